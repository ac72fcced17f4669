// `ssdlab sim fit` and `ssdlab sim compare`: the digital twin of a stored run (twin/fit.h).
#include <fmt/format.h>

#include <iostream>

#include "base/secrets.h"
#include "cli/commands.h"
#include "twin/figures.h"
#include "twin/fit.h"
#include "usecase/import.h"
#include "usecase/twin_fit.h"

namespace ssdlab {
namespace {

// The fitted twin's table: its keys, the prior, and the median errors per test of the twin and
// of the base, on the fitted and the held-out figures.
void PrintFit(const usecase::FitRequest& a, const usecase::FitOutcome& o) {
  const twin::FitResult& r = o.result;
  auto base_train = twin::MedianErrors(r.base_figures, false);
  auto base_held = twin::MedianErrors(r.base_figures, true);
  auto lookup = [](const std::vector<std::pair<std::string, double>>& v, const std::string& k) {
    for (const auto& [key, e] : v)
      if (key == k) return fmt::format("{:.1f}%", 100 * e);
    return std::string("-");
  };
  std::cout << fmt::format("twin of {} from {} ({} figures, {} evaluations, {:.0f} s): {}\n",
                           a.runs[0], o.base_name, o.figures, r.evaluations, o.wall_s, a.out);
  std::string fitted;
  for (const std::string& k : r.fitted_keys) fitted += (fitted.empty() ? "" : ", ") + k;
  std::cout << "  fitted keys: " << fitted << "\n";
  if (r.kept_base)
    std::cout << "  no candidate beat the base on the fitted figures: the twin keeps the base's "
                 "values\n";
  if (!r.rejected_figures.empty())
    std::cout << fmt::format("  (the search's best point, not kept: fitted {}, held out {})\n",
                             lookup(twin::MedianErrors(r.rejected_figures, false), "all"),
                             lookup(twin::MedianErrors(r.rejected_figures, true), "all"));
  std::string cv;
  for (const auto& [w, loss] : r.prior_cv)
    cv += fmt::format("{}{:g}: {:.4g}", cv.empty() ? "" : ", ", w, loss);
  std::cout << fmt::format("  prior weight {:g}{}\n", r.prior_weight,
                           cv.empty() ? ""
                                      : fmt::format(" (cross-validated on the training cells, "
                                                    "{} simulations; left-out loss {})",
                                                    r.cv_evaluations, cv));
  std::cout << fmt::format("  {:<6} {:>14} {:>14} {:>14} {:>14}\n", "test", "fitted (twin)",
                           "held out (twin)", "fitted (base)", "held out (base)");
  auto train = twin::MedianErrors(r.figures, false);
  auto held = twin::MedianErrors(r.figures, true);
  std::vector<std::string> tests;
  for (const auto* v : {&train, &held})
    for (const auto& [k, e] : *v)
      if (std::find(tests.begin(), tests.end(), k) == tests.end()) tests.push_back(k);
  for (const std::string& t : tests)
    std::cout << fmt::format("  {:<6} {:>14} {:>14} {:>14} {:>14}\n", t, lookup(train, t),
                             lookup(held, t), lookup(base_train, t), lookup(base_held, t));
  std::cout << "  (median relative error |simulated - measured| / measured)\n";
  if (!r.victim_policies.empty()) {
    std::cout << "  victim policies at the twin's numbers, by their full tests (close objectives: "
                 "barely told apart):\n";
    for (const twin::FitResult::PolicyFit& v : r.victim_policies) {
      std::string held;
      for (const auto& [test, e] : v.held_out_errors)
        if (test != "all") held += fmt::format(", {} {:.1f}%", test, 100 * e);
      std::cout << fmt::format("    {:<12} objective {:.4g}{}\n", v.gc, v.objective,
                               held.empty() ? "" : "; held out " + held.substr(2));
    }
  }
}

int RunFit(usecase::FitRequest q) {
  q.stop = &StopFlag();
  q.console = &CliConsole();
  q.progress = [](uint32_t done, uint32_t budget, double best, double secs) {
    const int width = 30;
    const int filled = budget ? static_cast<int>(width * std::min(1.0, 1.0 * done / budget)) : 0;
    std::cerr << fmt::format("\rsim fit [{}{}] {}/{} evaluations, objective {:.4g}, {:.0f} s ",
                             std::string(filled, '#'), std::string(width - filled, '.'), done,
                             budget, best, secs)
              << std::flush;
  };
  auto outcome = usecase::SimFit(q);
  if (!outcome.ok()) return Fail(outcome.status());
  PrintFit(q, *outcome);
  return kExitOk;
}

int RunCompare(usecase::CompareRequest q) {
  q.stop = &StopFlag();
  auto fits = usecase::SimCompare(q);
  if (!fits.ok()) return Fail(fits.status());
  std::cout << fmt::format("run {} measured vs {} simulated ({})\n", q.run, q.target,
                           q.exact ? "exact: the run's tests re-run on it" : "cheap evaluator");
  std::cout << fmt::format("  {:<58} {:>12} {:>12} {:>8}\n", "figure", "measured", "simulated",
                           "error");
  for (const twin::FigureFit& f : fits.value()) {
    std::cout << fmt::format("  {:<58} {:>12.4g} {:>12.4g} {:>7.1f}%\n", f.figure.Name(),
                             f.figure.value, f.simulated, 100 * f.RelError());
  }
  for (const auto& [test, e] : twin::MedianErrors(fits.value(), false))
    std::cout << fmt::format("  median error {:<6} {:.1f}%\n", test, 100 * e);
  return kExitOk;
}

int RunImport(const usecase::ImportRequest& a) {
  auto outcome = usecase::Import(a);
  if (!outcome.ok()) return Fail(outcome.status());
  std::cout << fmt::format("imported {} cells of {} tests from {} as run {} (in {})\n",
                           outcome->cells, outcome->tests, a.file, a.run, MaskSecrets(a.db));
  return kExitOk;
}

}  // namespace

void AddImportCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<usecase::ImportRequest>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Store measurements made elsewhere (fio JSON, a CSV of published figures) as a run");
  cmd->add_option("file", a->file, "fio --output-format=json output (.json) or figures CSV (.csv)")
      ->required();
  cmd->add_option("--db", a->db, "Results database (created if missing)")->required();
  cmd->add_option("--run", a->run, "Name of the new run")->required();
  cmd->add_option("--format", a->format, "csv or fio (default: from the file name)");
  cmd->add_option("--capacity", a->capacity,
                  "User capacity of the drive measured (WSAT positions in GiB need it)");
  cmd->add_option("--model", a->model, "The drive's model, for show and report");
  cmd->add_option("--iops-state", a->iops_state,
                  "steady (default): the IOPS cells were measured in write steady state (a "
                  "minute per cell); fresh: on a drive fresh from its sequential "
                  "preconditioning (the whole matrix in a minute)");
  cmd->callback([a, exit_code] { *exit_code = RunImport(*a); });
}

void AddSimTwinCommands(CLI::App& sim, int* exit_code) {
  auto a = std::make_shared<usecase::FitRequest>();
  CLI::App* fit = sim.add_subcommand(
      "fit", "Fit a simulated drive (a twin) to stored runs' figures; writes a preset file");
  fit->add_option("runs", a->runs, "Stored run(s) to fit")->required();
  fit->add_option("--db", a->db, "Results database")->required();
  fit->add_option("--base", a->base,
                  "Preset (or FILE.toml, with ?key=value) to start from; default: the run's "
                  "simulated target");
  fit->add_option("--fit", a->fit,
                  "Comma-separated parameter keys to fit (default: cmd_us, ctrl_*_us, "
                  "ctrl_*_kib_us, t_read_us, t_prog_us, ch_mb_s, op, link_mb_s, link_cap_mb_s "
                  "(those not 0 in the base, but for ctrl_*_kib_us; link_cap_mb_s not on "
                  "SATA), gc, gc_lazy, gc_yield)");
  fit->add_option("--train-tests", a->train_tests,
                  "Fit only these tests' figures (e.g. iops,lat,wsat); the others are held out. "
                  "Default: a quarter of each test's cells is held out");
  fit->add_option("--holdout", a->holdout,
                  "Hold out this fraction of each test's cells (seeded by --seed; e.g. 0.5), "
                  "imported runs' roles ignored. Default: 0.25, imported runs by role");
  fit->add_option("--fold", a->fold,
                  "I/N: k-fold cross-validation: hold out fold I (0 .. N-1) of each test's "
                  "cells dealt into N folds (seeded by --seed); the N fits with one seed hold out "
                  "every cell once. Imported runs' roles ignored");
  fit->add_option("--seed", a->seed, "Seed of the held-out split");
  fit->add_option("--loss", a->loss,
                  "squared (default), abs or soft: each figure's loss, of its log-ratio r "
                  "simulated / measured: r^2, |r|, or soft-L1 (r^2 / 0.1 within a few percent, "
                  "about |r| - 0.05 beyond); capped at 1");
  fit->add_option("--prior", a->prior,
                  "The weight of the prior towards the base, a number >= 0 (default 0.01), or "
                  "auto: with few training cells the one of 1, 0.1, 0.01 that cross-validation "
                  "on the training cells picks (else 0.01)");
  fit->add_option("--correct", a->correct,
                  "auto: correct the cheap evaluator's bias per figure by the run's own tests "
                  "re-run on the base (runs ssdlab made; an import's tests as the review spec's; "
                  "with gc_lazy fitted also on the base in the other GC mode, for that mode's "
                  "candidates), then re-anchored at the search's best "
                  "point (the tests re-run there, kept when closer; the search again from it); "
                  "base: the base's correction only (per GC mode); off: no correction");
  fit->add_option("--max-evals", a->max_evals, "Simulations at most (default 40 + 16 x keys)");
  fit->add_option("-o,--output", a->out, "The twin's preset file (.toml)")->required();
  fit->callback([a, exit_code] { *exit_code = RunFit(*a); });

  auto c = std::make_shared<usecase::CompareRequest>();
  CLI::App* compare = sim.add_subcommand(
      "compare",
      "A stored run's figures, measured vs re-simulated on a (twin) drive, cell by cell");
  compare->add_option("run", c->run, "Stored run")->required();
  compare->add_option("--db", c->db, "Results database")->required();
  compare->add_option("--target", c->target, "sim:TWIN.toml (or any sim: target)")->required();
  compare->add_flag("--exact", c->exact,
                    "Re-run the run's own tests on the target through the suite (an import's as "
                    "the review spec's; slower; default: the cheap evaluator sim fit uses)");
  compare->callback([c, exit_code] { *exit_code = RunCompare(*c); });
}

}  // namespace ssdlab
