// Private to report/: the PTS tests' sections, one file per test of the suite's registry
// (pts_iops.cc, pts_tp.cc, ...; the registry PtsSections() and the blocks they share in
// pts_sections.cc), and the run facts and labels they share with the rest of the model
// (model.cc). A section reads its test's results through their typed form (results/): a run
// whose results are damaged shows why ("damaged: KEY is not ...") in the test's verdict cells
// (the overview's and the parameter table's) instead of its figures.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "report/model_internal.h"
#include "results/cells.h"
#include "results/lvi.h"
#include "results/matrix.h"
#include "results/pts_options.h"
#include "results/pts_tests.h"
#include "results/steady_state.h"

namespace ssdlab::report::pts {

using results::PtsOptions;

// One PTS test's section of the report, keyed by the catalogue (results/pts_tests.h: name,
// title, the check of its stored results): adding a test adds one entry to PtsSections(), in
// battery order, and its builder's file.
struct PtsSectionDef {
  results::PtsTest id;
  json (*build)(Ctx& ctx, const std::string& name);

  const char* name() const { return results::PtsTestOf(id).name; }    // the stored test name
  const char* title() const { return results::PtsTestOf(id).title; }  // heading, table labels
  // Reads the stored results (a results/ FromJson, `where` = "NAME.results"): ok, or the Status
  // naming the damaged key that the verdict tables show.
  Status check(const json& results, const std::string& where) const {
    return results::PtsTestOf(id).check(results, where);
  }
};
const std::vector<PtsSectionDef>& PtsSections();

// The section builders (null when no run holds readable results of the test), one file each.
json IopsSection(Ctx& ctx, const std::string& name);   // pts_iops.cc
json TpSection(Ctx& ctx, const std::string& name);     // pts_tp.cc
json LatSection(Ctx& ctx, const std::string& name);    // pts_lat.cc
json LviSection(Ctx& ctx, const std::string& name);    // pts_lvi.cc
json WsatSection(Ctx& ctx, const std::string& name);   // pts_wsat.cc
json HirSection(Ctx& ctx, const std::string& name);    // pts_hir.cc
json XsrSection(Ctx& ctx, const std::string& name);    // pts_xsr.cc
json SweepSection(Ctx& ctx, const std::string& name);  // pts_sweep.cc: dirth and ecw
json OpSection(Ctx& ctx, const std::string& name);     // pts_op.cc
// With two or more runs: the table of each test's headline figures (steady-state means) with
// every run's difference from the first beside the spread of the steady rounds, marked when
// within it, and bars of the figures relative to the first run (compare.cc). Null otherwise.
json CompareSection(Ctx& ctx);

// The section title of a stored test name (the name itself when unknown).
std::string TestTitle(const std::string& name);
// The verdict cell of test `name` in a run document (VerdictOf, its results read by the
// registry's check).
json TestVerdictCell(const json& doc, const std::string& name);
// The PTS tests any of the runs holds, in battery order.
std::vector<std::string> TestsPresent(const Ctx& ctx);

// ---- Labels and axes ----
json RoundAxis();
bool EndsWith(const std::string& s, const std::string& suffix);
// Tracking variables in readable units: bandwidth in MB/s, latency in microseconds.
double VarScale(const std::string& var);
std::string VarLabel(const std::string& var);
// "randread bs=4 KiB qd=8 jobs=16" -> "16 threads x QD 8"
std::string LoadText(const std::string& description);
json ThreadsParam(const std::vector<int>& threads);

// ---- Run facts ----
const json& Ctxt(const ReportRun& r);
// The run's PTS options (context.config.options) read with the suite's declaration
// (results/pts_options.h): NotFound when the run holds none (a profile or app run), Invalid
// naming the key when they are damaged.
Result<results::PtsOptions> OptionsOf(const ReportRun& r);
// The full drive of a PTS run's options (FullDriveOf(run) reads the same time_scale).
using report::FullDriveOf;
inline FullDrive FullDriveOf(const results::PtsOptions& o) {
  return FullDrive{o.time_scale > 1 ? o.time_scale : 1u};
}
std::string PurgeOf(const ReportRun& r);
double BandPct(const ReportRun& r);
std::string RuleText(const ReportRun& r);
std::string SpecName(const std::string& s);
std::string VerdictText(const json& ss);
json VerdictCell(const json& ss);
// The verdict cell of a run's test: "not run" (null test), "damaged: ..." when its results
// could not be read (`results` not ok), else VerdictCell of its steady state.
json VerdictOf(const json* test, const Status& results);

// ---- A test's typed results in every run ----

// One run's results of a test: the run, its stored test, and the typed results or the Status
// naming the damaged key ("iops.results.cells[2].total.iops is not a number").
template <class T>
struct RunResults {
  const ReportRun* run;
  const json* test;
  Result<T> results;
};
// The runs of ctx that hold test `name`, in order, with its results read by `from` (a results/
// FromJson taking the results object and "NAME.results").
template <class T, class From>
std::vector<RunResults<T>> ReadResults(const Ctx& ctx, const std::string& name, From from) {
  std::vector<RunResults<T>> out;
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, name);
    if (t) out.push_back({&r, t, from(Get(*t, "results"), name + ".results")});
  }
  return out;
}

// A row of a test's parameter table: its name, and its text from a run's options and results
// (a default T when the results are damaged).
template <class T>
using ParamFact =
    std::pair<std::string, std::function<std::string(const results::PtsOptions&, const T&)>>;
// Test parameters as a small table: one row per fact, one column per run of ctx, and a last row
// with the steady-state verdict ("not run", or "damaged: ..." when the results are). A run whose
// options are damaged has "damaged: ..." in its fact cells.
template <class T>
json ParamsTable(Ctx& ctx, const std::string& name, const std::vector<RunResults<T>>& runs,
                 const std::vector<ParamFact<T>>& facts) {
  static const T kNone{};
  json cols = json::array({"Parameter"});
  std::vector<const RunResults<T>*> of_run;  // per run of ctx; null when it does not hold it
  std::vector<Result<results::PtsOptions>> options_of;  // per run of ctx, read once
  for (const ReportRun& r : ctx.runs) {
    cols.push_back(r.label);
    of_run.push_back(nullptr);
    for (const RunResults<T>& rr : runs) of_run.back() = rr.run == &r ? &rr : of_run.back();
    options_of.push_back(OptionsOf(r));
  }
  json rows = json::array();
  for (const auto& [fact, fn] : facts) {
    json rw = json::array({fact});
    for (size_t i = 0; i < of_run.size(); ++i) {
      const RunResults<T>* rr = of_run[i];
      const Result<results::PtsOptions>& options = options_of[i];
      if (!rr) {
        rw.push_back("not run");
        continue;
      }
      rw.push_back(options.ok() ? fn(*options, rr->results.ok() ? *rr->results : kNone)
                                : "damaged: " + options.status().message());
    }
    rows.push_back(rw);
  }
  json verdict = json::array({"Steady state"});
  for (const RunResults<T>* rr : of_run)
    verdict.push_back(rr ? VerdictOf(rr->test, rr->results.status()) : VerdictOf(nullptr, {}));
  rows.push_back(verdict);
  return TableBlock(ctx.Id("params-" + name), "Test parameters: " + TestTitle(name), cols, rows);
}

// A section's runs of its test with their typed results (ReadResults) and its blocks, the
// first of them its parameter table (ParamsTable of `facts`).
template <class T>
struct OpenedSection {
  std::vector<RunResults<T>> runs;
  json blocks;
};
template <class T, class From>
OpenedSection<T> OpenSection(Ctx& ctx, const std::string& name, From from,
                             const std::vector<ParamFact<T>>& facts) {
  OpenedSection<T> s{ReadResults<T>(ctx, name, from), json::array()};
  s.blocks.push_back(ParamsTable<T>(ctx, name, s.runs, facts));
  return s;
}

// The parameters IOPS and LAT share (pts_iops.cc): stimulus, block sizes and mixes (the
// options TEST_block_bytes, TEST_read_pcts).
std::vector<ParamFact<results::MatrixResults>> MatrixFacts(const std::string& test);

// ---- Blocks the sections share (pts_sections.cc) ----

// One steady-state measurement window judged: the variables' verdicts and their values by
// round, with a prefix for their labels ("OP +15%: ").
struct SteadyWindow {
  std::string prefix;
  std::map<std::string, SteadyStateVerdict> variables;
  std::map<std::string, std::vector<double>> series;
};
// The test's tracking rounds (results/steady_state.h); none when they are damaged.
std::vector<results::TrackedRound> RoundsOf(const json& test);
// Each tracked variable's values by round, oldest first; with `op_pct`, of the rounds of that
// OP-study setting only.
std::map<std::string, std::vector<double>> TrackedSeries(
    const std::vector<results::TrackedRound>& rounds, std::optional<double> op_pct = {});
// The test's own window: its verdict's variables over its rounds' tracking values (none when
// its steady state is damaged).
std::vector<SteadyWindow> DefaultWindows(const json& test);
// The windows of a run's test when it judges several (the OP study: one per setting).
using WindowsFn = std::function<std::vector<SteadyWindow>(const ReportRun& run, const json& test)>;
// The section of test `name` (its title, `intro` and `blocks`) ending with its steady-state
// blocks (SteadyStateBlocks of `what` and `windows`).
json SteadySection(Ctx& ctx, const std::string& name, json blocks, const std::string& what,
                   const std::string& intro, const WindowsFn& windows = nullptr);
// Convergence plot, measurement-window plots and the excursion table of a test. By default one
// window: the test's verdict over its rounds.
json SteadyStateBlocks(Ctx& ctx, const std::string& test_name, const std::string& what,
                       const WindowsFn& windows = nullptr);

// "4KiB, 64KiB" of a stored option's list of byte counts; "100/0, 65/35" of read percentages;
// "1, 2, 4" of numbers.
std::string ListBytes(const std::vector<uint64_t>& v);
std::string ListMixes(const std::vector<results::Mix>& v);
template <class N>
std::string ListNums(const std::vector<N>& v, const std::string& sep = ", ") {
  std::string s;
  for (N n : v) s += (s.empty() ? "" : sep) + fmt::format("{:g}", static_cast<double>(n));
  return s;
}
// "random, 16 threads x QD 8": the load of the first of `cells` (`what` before it).
std::string StimulusOf(const std::string& what, const std::vector<results::CellResult>& cells);

// Cells of a matrix test by (read pct, block bytes); cells not named so are left out.
struct MatrixCell {
  double read_pct;
  uint64_t bs;
  const results::CellResult* cell;
};
std::vector<MatrixCell> MatrixCells(const std::vector<results::CellResult>& cells);

// ---- Latency-vs-IOPS curves (pts_lvi.cc; the OP study draws them too) ----

struct CurveRows {
  json values = json::array();
  std::set<int> threads;
};
// "4KiB write", "4KiB 70/30".
std::string CurveName(const results::Curve& c);
// One row per point of `curves` (IOPS and latency in µs), with `extra_key` = `extra` if given.
void AddCurves(CurveRows& out, const std::vector<results::Curve>& curves, const std::string& drive,
               const std::string& extra_key = "", const std::string& extra = "");
// Latency `y_field` against IOPS as small multiples, one panel per value of `panel` (three
// panels a row, shared log scales), one line per `series` ("" one colour) with each point's
// queue depth written beside it, at the thread count a selector picks. With several drives
// (and `series` not "drive") the drive is the dash and the point shape.
json CurveChart(const std::string& title, const CurveRows& rows, const std::string& y_field,
                const std::string& y_title, const std::string& series,
                const std::string& series_title, const Ctx& ctx, const std::string& panel);

}  // namespace ssdlab::report::pts
