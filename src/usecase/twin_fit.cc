// The `sim fit` use case (usecase/twin_fit.h).
#include "usecase/twin_fit.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "base/output_file.h"
#include "base/strings.h"
#include "base/units.h"
#include "results/run_context.h"
#include "sim/params.h"
#include "sim/preset_file.h"
#include "store/store.h"
#include "twin/figures.h"
#include "usecase/paths.h"
#include "usecase/twin_runs.h"

namespace ssdlab::usecase {
namespace {

// --correct auto: the correction is re-anchored at most this many times
// (twin::FitOptions::reanchor).
constexpr uint32_t kReanchorRounds = 1;

// Per figure: its value from the full tests on drive p (the run's tests re-run on it, an
// import's as the review spec's, usecase/twin_runs.h); 0 for figures the re-run misses. The fit
// corrects the cheap evaluator by these (twin::FitOptions::base_exact, full_tests); `what` names
// p in the progress line.
Result<std::vector<double>> FullTestValues(Store& store, const std::vector<std::string>& runs,
                                           const sim::SimParams& p,
                                           const std::vector<twin::Figure>& figures,
                                           const std::string& what, const std::atomic<bool>* stop,
                                           Console& console) {
  std::vector<double> exact(figures.size(), 0.0);
  for (const std::string& run : runs) {
    SSDLAB_ASSIGN_OR_RETURN(nlohmann::json doc, store.RunJson(run));
    if (!CanRerun(doc)) continue;
    console.Note("sim fit: re-running run " + run + "'s tests on " + what +
                 (HasPtsOptions(doc) ? "" : " (as the review spec's)") + " (bias correction)");
    SSDLAB_ASSIGN_OR_RETURN(nlohmann::json rerun, RerunOnTwin(doc, twin::TargetOf(p), stop));
    SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::Figure> ex, twin::FiguresOfRun(rerun, nullptr));
    std::vector<twin::Figure> mine;
    std::vector<size_t> where;
    for (size_t i = 0; i < figures.size(); ++i)
      if (figures[i].run == run) mine.push_back(figures[i]), where.push_back(i);
    const std::vector<double> v = MatchFigures(mine, ex);
    for (size_t k = 0; k < where.size(); ++k) exact[where[k]] = v[k];
  }
  return exact;
}

// The figures of every run, and the shape of the first.
Result<std::vector<twin::Figure>> LoadFigures(Store& store, const std::vector<std::string>& runs,
                                              twin::RunShape* shape, std::string* sim_target) {
  std::vector<twin::Figure> all;
  for (size_t i = 0; i < runs.size(); ++i) {
    SSDLAB_ASSIGN_OR_RETURN(nlohmann::json doc, store.RunJson(runs[i]));
    twin::RunShape s;
    SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::Figure> f, twin::FiguresOfRun(doc, &s));
    if (i == 0) {
      *shape = s;
      SSDLAB_ASSIGN_OR_RETURN(results::RunContext ctx,
                              results::RunContextFromJson(doc.value("context", nlohmann::json()),
                                                          "run '" + runs[i] + "': context"));
      if (ctx.target_path.starts_with("sim:")) *sim_target = ctx.target_path;
    }
    all.insert(all.end(), f.begin(), f.end());
  }
  return all;
}

// The fit's options from the request's texts (`figures`: the runs'; `base`: the start).
Status FitOptionsOf(const FitRequest& a, const std::vector<twin::Figure>& figures,
                    const sim::SimParams& base, twin::FitOptions& o) {
  o.keys = a.fit.empty() ? twin::DefaultFitKeys(base) : SplitNonEmpty(a.fit, ',');
  o.train_tests = SplitNonEmpty(a.train_tests, ',');
  if (!a.holdout.empty()) {
    auto h = ParseDouble(a.holdout);
    if (!h.ok() || !(h.value() > 0 && h.value() < 1))
      return Status::Invalid("--holdout '" + a.holdout +
                             "': expected the fraction of each test's cells to hold out, "
                             "above 0 and below 1 (e.g. 0.5)");
    o.holdout = h.value();
  }
  if (!a.fold.empty()) {  // the form here; the range by SplitFigures, below
    const size_t slash = a.fold.find('/');
    auto i = ParseCount(a.fold.substr(0, slash));
    auto n = slash == std::string::npos ? i : ParseCount(a.fold.substr(slash + 1));
    if (slash == std::string::npos || !i.ok() || !n.ok() || i.value() > UINT32_MAX ||
        n.value() > UINT32_MAX)
      return Status::Invalid("--fold '" + a.fold +
                             "': expected I/N, fold I (from 0) of N folds (e.g. 0/5)");
    o.fold = static_cast<uint32_t>(i.value());
    o.folds = static_cast<uint32_t>(n.value());
  }
  for (const std::string& t : o.train_tests) {
    bool found = false;
    for (const twin::Figure& f : figures) found |= f.test == t;
    if (!found)
      return Status::Invalid("--train-tests: run(s) " + a.runs[0] + " have no figures of test '" +
                             t + "'");
  }
  const std::map<std::string, twin::FitOptions::Loss> losses = {
      {"squared", twin::FitOptions::Loss::kSquared},
      {"abs", twin::FitOptions::Loss::kAbsolute},
      {"soft", twin::FitOptions::Loss::kSoftL1}};
  if (!losses.count(a.loss))
    return Status::Invalid("--loss '" + a.loss + "': expected squared, abs or soft");
  o.loss = losses.at(a.loss);
  if (a.prior != "auto") {
    auto w = ParseDouble(a.prior);
    if (!w.ok() || !(w.value() >= 0) || !std::isfinite(w.value()))
      return Status::Invalid("--prior '" + a.prior +
                             "': expected auto or the prior's weight, a number >= 0 (e.g. 0.01)");
    o.prior_weight = w.value();
  }
  o.seed = a.seed;
  o.max_evals = a.max_evals;
  SSDLAB_RETURN_IF_ERROR(twin::CheckFitKeys(o.keys, base));
  SSDLAB_RETURN_IF_ERROR(twin::SplitFigures(figures, o).status());
  if (a.correct != "auto" && a.correct != "base" && a.correct != "off")
    return Status::Invalid("--correct '" + a.correct + "': expected auto, base or off");
  return Status::Ok();
}

}  // namespace

Result<FitOutcome> SimFit(const FitRequest& a) {
  const auto t0 = std::chrono::steady_clock::now();
  Console& console = *a.console;
  // Every preset file read is an input: --base's, or the run's own drive's (known once read).
  PathRegistry paths = CommandPaths();
  AddDatabasePath(paths, "--db", a.db, false);
  paths.AddInput("--base " + a.base, sim::PresetFileOf(a.base));
  paths.AddOutput("-o", a.out);
  SSDLAB_RETURN_IF_ERROR(paths.Check());
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(a.db, Store::Mode::kReadOnly));
  twin::RunShape shape;
  std::string run_target;
  SSDLAB_ASSIGN_OR_RETURN(std::vector<twin::Figure> figures,
                          LoadFigures(*store, a.runs, &shape, &run_target));
  FitOutcome out;
  out.figures = figures.size();
  out.base_name = a.base;
  if (out.base_name.empty()) {
    if (run_target.empty())
      return Status::Invalid("sim fit: run '" + a.runs[0] +
                             "' is not of a simulated drive; name the starting preset "
                             "with --base PRESET");
    out.base_name = run_target.substr(4);
    paths.AddInput("the preset file of run " + a.runs[0] + "'s drive " + run_target,
                   sim::PresetFileOf(run_target));
    SSDLAB_RETURN_IF_ERROR(paths.Check());
  }
  const std::string& b = out.base_name;
  SSDLAB_ASSIGN_OR_RETURN(
      sim::SimParams base,
      sim::ParseSimTarget("sim:" + (b.rfind("sim:", 0) == 0 ? b.substr(4) : b)));
  twin::FitOptions o;
  SSDLAB_RETURN_IF_ERROR(FitOptionsOf(a, figures, base, o));
  if (a.correct != "off") {
    SSDLAB_ASSIGN_OR_RETURN(
        o.base_exact, FullTestValues(*store, a.runs, base, figures, "the base", a.stop, console));
    // --correct auto: re-anchored at the search's best points (twin::FitOptions::reanchor).
    o.reanchor = a.correct == "auto" ? kReanchorRounds : 0;
    o.full_tests = [&](const sim::SimParams& p) {
      console.Note("");  // after the progress line
      return FullTestValues(*store, a.runs, p, figures,
                            "the search's best point (gc=" + sim::FindParam("gc")->get(p) +
                                ", gc_lazy=" + sim::FindParam("gc_lazy")->get(p) +
                                ", gc_yield=" + sim::FindParam("gc_yield")->get(p) +
                                ", op=" + sim::FindParam("op")->get(p) + ")",
                            a.stop, console);
    };
  }
  o.progress = [&a, t0](uint32_t done, uint32_t budget, double best) {
    if (a.progress)
      a.progress(done, budget, best,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  o.stop = a.stop;
  auto r = twin::Fit(base, figures, shape, o);
  console.Note("");  // the progress line ends
  SSDLAB_RETURN_IF_ERROR(r.status());
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  SSDLAB_RETURN_IF_ERROR(
      WriteOutputFile("-o", a.out, twin::TwinToml(r.value(), b, a.runs, o, out.wall_s)));
  out.result = std::move(r.value());
  return out;
}

Result<std::vector<twin::FigureFit>> SimCompare(const CompareRequest& r) {
  SSDLAB_ASSIGN_OR_RETURN(auto store, Store::Open(r.db, Store::Mode::kReadOnly));
  SSDLAB_ASSIGN_OR_RETURN(nlohmann::json doc, store->RunJson(r.run));
  SSDLAB_ASSIGN_OR_RETURN(std::string target, TwinTarget(r.target, 1));
  nlohmann::json twin_doc;
  if (r.exact) {
    SSDLAB_ASSIGN_OR_RETURN(twin_doc, RerunOnTwin(doc, target, r.stop));
  }
  return CompareOnTwin(doc, target, twin_doc);
}

}  // namespace ssdlab::usecase
