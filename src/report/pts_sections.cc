// The registry of the PTS tests' sections (one per test of the suite's registry,
// suite/tests.cc; each section in its own file, pts_TEST.cc) and the blocks they share.
#include "report/pts_sections.h"

#include <fmt/format.h>

#include <algorithm>

#include "results/hir.h"
#include "results/lvi.h"
#include "results/matrix.h"
#include "results/op.h"
#include "results/sweep.h"
#include "results/tp.h"
#include "results/wsat.h"
#include "results/xsr.h"

namespace ssdlab::report::pts {

// ---------------------------------------------------------------- steady state

std::vector<results::TrackedRound> RoundsOf(const json& test) {
  auto rounds = results::RoundsFromJson(Get(test, "rounds"), Str(test, "name") + ".rounds");
  return rounds.ok() ? std::move(rounds).value() : std::vector<results::TrackedRound>{};
}

std::map<std::string, std::vector<double>> TrackedSeries(
    const std::vector<results::TrackedRound>& rounds, std::optional<double> op_pct) {
  std::map<std::string, std::vector<double>> series;
  for (const results::TrackedRound& rd : rounds) {
    if (op_pct && rd.op_pct != op_pct) continue;
    for (const auto& [k, v] : rd.tracking) series[k].push_back(v);
  }
  return series;
}

std::vector<SteadyWindow> DefaultWindows(const json& test) {
  auto ss = results::SteadyStateFromJson(Get(test, "steady_state"));
  if (!ss.ok()) return {};
  return {{"", ss->variables, TrackedSeries(RoundsOf(test))}};
}

namespace {
// A variable's verdict with its evidence (results/steady_state.h), as stored.
json ExcursionVerdictCell(const SteadyStateVerdict& v) {
  const std::string evidence = results::EvidenceText(v);
  const std::string text = evidence.empty() ? (v.reached ? "reached" : "not reached") : evidence;
  return Cell(text, v.reached ? "good" : "bad");
}
}  // namespace

json SteadyStateBlocks(Ctx& ctx, const std::string& test_name, const std::string& what,
                       const WindowsFn& windows_of) {
  json blocks = json::array();
  json conv_charts = json::array();
  json window_charts = json::array();
  json ex_rows = json::array();
  for (const ReportRun& r : ctx.runs) {
    const json* t = FindTest(r.doc, test_name);
    if (!t) continue;
    auto ss = results::SteadyStateFromJson(Get(*t, "steady_state"));
    if (!ss.ok() || ss->variables.empty()) continue;
    // Every numeric tracking value by round.
    json conv = json::array();
    for (const results::TrackedRound& rd : RoundsOf(*t)) {
      for (const auto& [k, v] : rd.tracking) {
        const std::string var = rd.op_pct ? fmt::format("OP {:g}%: {}", *rd.op_pct, k) : k;
        conv.push_back({{"drive", r.label},
                        {"round", static_cast<double>(rd.round)},
                        {"variable", VarLabel(var)},
                        {"value", R6(VarScale(k) * v)}});
      }
    }
    if (conv.empty()) continue;
    json cs = LineSpec(fmt::format("Steady-state convergence: {}", r.label), conv, RoundAxis(),
                       Q("value", "Tracking variable"), "variable", "Variable",
                       Ctx{ctx.runs, false}, nullptr, "", ctx.multi ? kNarrow : kWide, kShort);
    conv_charts.push_back(
        ChartBlock(ctx.Id("ss-conv-" + test_name),
                   "Convergence of the tracking variables (" + what + "), " + r.label, cs));
    double band = BandPct(r);
    for (const SteadyWindow& win : windows_of ? windows_of(r, *t) : DefaultWindows(*t)) {
      for (const auto& [k, v] : win.variables) {
        auto it = win.series.find(k);
        if (it == win.series.end()) continue;
        const std::vector<double>& y = it->second;
        int first = static_cast<int>(v.window_first_round);
        int w = static_cast<int>(v.window_rounds);
        const double sc = VarScale(k);
        double mean = sc * v.mean, slope = sc * v.slope, icpt = sc * v.intercept;
        json pts = json::array();
        for (int i = first; i < first + w && i < static_cast<int>(y.size()); ++i) {
          double x = i + 1;
          pts.push_back({{"round", x}, {"series", "measured"}, {"value", R6(sc * y[i])}});
          pts.push_back({{"round", x}, {"series", "average"}, {"value", R6(mean)}});
          pts.push_back({{"round", x},
                         {"series", fmt::format("{:g}% x average", 100 + band)},
                         {"value", R6(mean * (1 + band / 100))}});
          pts.push_back({{"round", x},
                         {"series", fmt::format("{:g}% x average", 100 - band)},
                         {"value", R6(mean * (1 - band / 100))}});
          pts.push_back({{"round", x},
                         {"series", "least-squares fit"},
                         {"value", R6(icpt + slope * (i - first))}});
        }
        if (pts.empty()) continue;
        json domain =
            json::array({"measured", "average", fmt::format("{:g}% x average", 100 + band),
                         fmt::format("{:g}% x average", 100 - band), "least-squares fit"});
        const std::string var_label = win.prefix + VarLabel(k);
        json s = Spec(ctx.multi ? fmt::format("Measurement window, {}: {}", r.label, var_label)
                                : fmt::format("Measurement window: {}", var_label),
                      pts, 340, kShort);
        s["encoding"] = {
            {"x", RoundAxis()},
            {"y", Q("value", VarLabel(k), false, false)},
            {"color",
             {{"field", "series"},
              {"type", "nominal"},
              {"title", ""},
              {"scale",
               {{"domain", domain},
                {"range", json::array({"#1f5fa8", "#333333", "#c0392b", "#c0392b", "#27ae60"})}}}}},
            {"strokeDash",
             {{"field", "series"},
              {"type", "nominal"},
              {"title", ""},
              {"scale",
               {{"domain", domain},
                {"range",
                 json::array({json::array({1, 0}), json::array({1, 0}), json::array({6, 4}),
                              json::array({6, 4}), json::array({2, 2})})}}}}}};
        s["layer"] = json::array(
            {{{"mark", {{"type", "line"}, {"tooltip", true}}}},
             {{"mark", {{"type", "point"}, {"filled", true}, {"size", 50}, {"tooltip", true}}},
              {"transform", json::array({{{"filter", "datum.series == 'measured'"}}})}}});
        window_charts.push_back(
            ChartBlock(ctx.Id("ss-window-" + test_name),
                       "Steady-state measurement window, " + r.label + ": " + var_label +
                           fmt::format("; average, {:g}%/{:g}% bands and the least-squares line",
                                       100 - band, 100 + band),
                       s));
        ex_rows.push_back(
            json::array({r.label, var_label, fmt::format("{}-{}", first + 1, first + w),
                         FmtNum(mean, 5), FmtPct(v.range_pct, 2), FmtPct(v.slope_excursion_pct, 2),
                         FmtPct(v.band_excursion_pct, 2), ExcursionVerdictCell(v)}));
      }
    }
  }
  if (conv_charts.empty()) return blocks;
  blocks.push_back(RowBlock(conv_charts));
  if (!window_charts.empty()) blocks.push_back(RowBlock(window_charts));
  json notes = json::array();
  for (const ReportRun& r : ctx.runs) {
    if (FindTest(r.doc, test_name)) notes.push_back(r.label + ": " + RuleText(r) + ".");
  }
  blocks.push_back(TableBlock(
      ctx.Id("ss-table-" + test_name), "Steady-state excursions (" + what + ")",
      json::array({"Drive", "Tracking variable", "Window (rounds)", "Average", "Data excursion",
                   "Slope excursion", "Fit band excursion", "Verdict"}),
      ex_rows, notes));
  return blocks;
}

json SteadySection(Ctx& ctx, const std::string& name, json blocks, const std::string& what,
                   const std::string& intro, const WindowsFn& windows) {
  Append(blocks, SteadyStateBlocks(ctx, name, what, windows));
  return Section(name, TestTitle(name), intro, std::move(blocks));
}

json VerdictOf(const json* test, const Status& results) {
  if (!test) return Cell("not run", "muted");
  if (!results.ok()) return Cell("damaged: " + results.message(), "bad");
  return VerdictCell(Get(*test, "steady_state"));
}

// ---------------------------------------------------------------- lists and cells

std::string ListBytes(const std::vector<uint64_t>& v) {
  std::string s;
  for (uint64_t b : v) s += (s.empty() ? "" : ", ") + BlockLabel(b);
  return s;
}

std::string ListMixes(const std::vector<results::Mix>& v) {
  std::string s;
  for (const results::Mix& m : v) s += (s.empty() ? "" : ", ") + MixLabel(m.read_pct);
  return s;
}

std::string StimulusOf(const std::string& what, const std::vector<results::CellResult>& cells) {
  return what + ", " + (cells.empty() ? "" : LoadText(cells.front().workload.description));
}

std::vector<MatrixCell> MatrixCells(const std::vector<results::CellResult>& cells) {
  std::vector<MatrixCell> out;
  for (const results::CellResult& c : cells) {
    double rp;
    uint64_t bs;
    if (ParseCellName(c.cell, &rp, &bs)) out.push_back({rp, bs, &c});
  }
  return out;
}

// ---------------------------------------------------------------- the registry

const std::vector<PtsSectionDef>& PtsSections() {
  using T = results::PtsTest;
  static const std::vector<PtsSectionDef> kSections = {
      {T::kIops, IopsSection}, {T::kTp, TpSection},       {T::kLat, LatSection},
      {T::kLvi, LviSection},   {T::kWsat, WsatSection},   {T::kHir, HirSection},
      {T::kXsr, XsrSection},   {T::kDirth, SweepSection}, {T::kEcw, SweepSection},
      {T::kOp, OpSection},
  };
  return kSections;
}

json TestVerdictCell(const json& doc, const std::string& name) {
  const json* t = FindTest(doc, name);
  if (!t) return VerdictOf(nullptr, Status::Ok());
  for (const PtsSectionDef& def : PtsSections()) {
    if (name == def.name()) return VerdictOf(t, def.check(Get(*t, "results"), name + ".results"));
  }
  return VerdictOf(t, Status::Ok());
}

}  // namespace ssdlab::report::pts
