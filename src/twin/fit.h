// Fits a simulated drive's free parameters to measured figures (twin/figures.h) with a
// derivative-free search (the categorical keys first, an eager and a lazy GC each a start of
// its own, one sweep of coordinate steps from each, then NLopt's Subplex on normalised
// log-parameters from the better and, with every key fitted, Levenberg-Marquardt and a compass
// search from its best point; the result is the best point evaluated, or the base itself
// when that point is no closer to the training figures by their median error), and writes the
// result as a preset file (sim/preset_file.h) with a [fit] table.
//
// The figures are split once, deterministically from `seed` (SplitFigures): `train` figures
// are fitted, the rest are held out and only reported. By default a quarter of each test's
// cells is held out; with `train_tests` set, the figures of the other tests are; imported
// figures with roles (twin/import.h) are fitted on the calibration ones, the predicted ones held
// out. With `holdout` set, that fraction of each test's cells is held out whatever the roles;
// with `folds` set, fold `fold` of each test's cells split in `folds` (k-fold cross-validation:
// the fits of folds 0 .. folds - 1 with one seed hold out every cell of a test of two or more
// cells exactly once).
//
// Few figures cannot pin many keys: when the number keys outnumber half the training cells (a
// cell's metrics, such as LAT's mean and tails, move together), only the keys the training
// figures pin best are fitted (at most one per two cells; PinnedKeys, from the figures'
// sensitivity to each key at the base) and the GC policies are not fitted; the rest stay the
// base's. Nor are the GC policies fitted without WSAT or HIR figures among the training ones
// (the curves they shape; the steady-state cells of a table alone do not tell them apart).
//
// Objective: the mean over tests of the mean loss (squared or absolute log-ratio simulated /
// measured, FitOptions::loss) of their training figures, each capped at 1 (a factor e), so that
// each test weighs the same however many cells it has and a few cells the model cannot
// reproduce do not outweigh the rest; the optimiser minimises it plus a weight (0.01, or with
// few cells chosen by cross-validation: FitOptions::prior_weight) x the mean squared normalised
// distance from the base (a prior: keys the figures do not pin stay at the base's values); a
// GC policy key (gc, gc_lazy, gc_yield of a lazy GC) other than the base's counts in that mean
// as a number key at the end of its range (squared distance 1), so a policy that fits the
// training figures only as well as the base's within the prior's weight stays the base's. The
// re-anchoring's judgements by the full tests (which anchor, which victim policy) count the
// same policy term.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/params.h"
#include "twin/figures.h"
#include "twin/simulate.h"

namespace ssdlab::twin {

// The keys fitted when --fit is not given: controller and NAND times, spare area, the link
// (its rate, and both directions' cap but on SATA, half duplex, where it has no effect), GC; of
// the number keys, those that are not 0 in `base` (a 0 has no log scale: the base does without
// it), but for the per-KiB controller times (0 is no cost beyond a command's first 4 KiB; the
// fit can raise them from it, FitOptions::max_factor).
std::vector<std::string> DefaultFitKeys(const sim::SimParams& base);

struct FitOptions {
  std::vector<std::string> keys;         // parameter keys (numbers), or gc / gc_lazy / gc_yield
  std::vector<std::string> train_tests;  // empty: a random quarter of each test is held out
  // Above 0 (and below 1): this fraction of each test's cells is held out (rounded up, at least
  // one and at most all but one of a test's cells; a test of one cell is fitted), roles of
  // imported figures ignored. 0: the default split above.
  double holdout = 0;
  // Above 1 (at most 100): each test's cells of two or more are shuffled (by `seed`) and dealt
  // into `folds` parts of near-equal size (a test with fewer cells than folds has none in some);
  // part `fold` (0 .. folds - 1) is held out, roles of imported figures ignored. 0: none.
  uint32_t folds = 0, fold = 0;
  uint64_t seed = 1;  // of the split
  // The loss of a figure in the objective, of its log-ratio r = log(simulated / measured), capped
  // at 1: r^2 (squared); |r| (absolute: robust, a few figures the model cannot reach weigh less
  // than with the square, and a figure already matched resists being traded for them); or
  // soft-L1, 0.05 x (sqrt(1 + (r / 0.05)^2) - 1): quadratic within a few percent (smooth at 0,
  // for the Levenberg-Marquardt fits), about |r| - 0.05 beyond.
  enum class Loss { kSquared, kAbsolute, kSoftL1 } loss = Loss::kSquared;
  // The weight of the prior towards the base (the mean squared normalised distance from it) in
  // the minimised objective. Below 0 (auto): 0.01, or, when few training cells (at least 3)
  // select the keys, the weight of 1, 0.1 and 0.01 whose fits (Levenberg-Marquardt) on all but
  // one of 4 seeded folds of the training cells best predict the left-out fold (the held-out
  // figures take no part).
  double prior_weight = -1;
  uint32_t max_evals = 0;  // 0: 40 + 16 x keys (the cross-validation's fits come on top)
  // Each value within base / max_factor .. base x max_factor (link_mb_s at most the
  // interface's line rate, sim::LineRateMbS); a per-KiB controller time 0 in the base within
  // 0 .. (max_factor - 1) x the base's link time per KiB (1024 / link_mb_s us).
  double max_factor = 3;
  SimulateOptions sim;
  // Per figure (in the order of Fit's `figures`): its value from the full tests on the base
  // (the run's own tests re-run on it), or 0 where unknown. Every cheap value of a figure is
  // then multiplied by exact / cheap at the base (clamped to 1/4 .. 4; a correction of the
  // evaluator's bias against the full tests), in the objective and in the result, the cheap
  // value at the base taken from the same simulation (the training figures as the fit
  // simulates them, the held-out ones apart: cells share a drive in turn, so a figure's cheap
  // value depends on the figures simulated with it). At the base, the corrected figures are
  // the full tests' own (within the clamp). Empty: no correction.
  std::vector<double> base_exact;
  // With base_exact: per figure, its value from the full tests on drive p (the run's own tests
  // re-run on it; 0 where unknown), for re-anchoring the correction, and, with gc_lazy fitted,
  // for the other GC mode's correction (its candidates' factors are exact / cheap at the base's
  // numbers in that mode: the two modes' biases differ).
  std::function<Result<std::vector<double>>(const sim::SimParams&)> full_tests;
  // With base_exact and full_tests, above 0: the correction is re-anchored at the search's best
  // point (full_tests there; the factors exact / cheap there for every candidate, in place of
  // the base's, which misjudge candidates far from the base: another GC mode, other times;
  // with gc fitted, each other victim policy at that point is judged by its own full tests,
  // and the closest is the point), the point kept only when its full tests are closer to the
  // training figures (the objective) than the last anchor's (first the base's), and the search
  // (Subplex, the policies) run again from it with half the budget; at most this many times.
  // The twin is the last anchor kept, and its figures are its full tests' (within the clamp);
  // FitResult's objective and base_objective are then those of the full tests' values.
  uint32_t reanchor = 0;
  // Called after each evaluation: evaluations done, budget, best objective so far.
  std::function<void(uint32_t, uint32_t, double)> progress;
  // When set and true (SIGINT, SIGTERM), the fit stops at its next evaluation and Fit returns
  // Interrupted.
  const std::atomic<bool>* stop = nullptr;
};

// One figure's outcome.
struct FigureFit {
  Figure figure;
  double simulated = 0;
  bool held_out = false;
  double RelError() const;  // |simulated - measured| / measured
};

struct FitResult {
  sim::SimParams params;                 // the twin
  std::vector<std::string> fitted_keys;  // the keys fitted: o.keys, less those few cells cannot pin
  // Every figure, at the twin and at the base (before fitting): a drive's full-test value where
  // its full tests were run (the base with base_exact, a re-anchored twin), else the corrected
  // cheap value (whose factor is clamped).
  std::vector<FigureFit> figures;
  std::vector<FigureFit> base_figures;
  uint32_t evaluations = 0;
  double objective = 0, base_objective = 0;  // over the training figures
  // True when the search's best point did not beat the base on the training figures (re-anchored:
  // by its full tests' objective; else by their median relative error, MedianErrors "all"): the
  // twin is then the base itself.
  bool kept_base = false;
  // When the guard above rejected the search's best point: its figures (as `figures` would have
  // been), so that what was not kept can be told; else empty.
  std::vector<FigureFit> rejected_figures;
  // With gc fitted and the correction re-anchored: each victim policy at the twin's numbers and
  // modes, judged by its own full tests (the twin's first): its training objective (with the
  // prior's term for a policy other than the base's) and its held-out figures' median errors
  // (MedianErrors). Objectives close together: the training
  // figures barely tell the policies apart, and what the policy moves is uncertain.
  struct PolicyFit {
    std::string gc;
    double objective = 0;
    std::vector<std::pair<std::string, double>> held_out_errors;
  };
  std::vector<PolicyFit> victim_policies;
  double prior_weight = 0;  // the weight used
  // Chosen by cross-validation: per weight tried, the sum over folds of the left-out loss; and
  // the simulations it ran (beside `evaluations`).
  std::vector<std::pair<double, double>> prior_cv;
  uint32_t cv_evaluations = 0;
};

// Invalid: an unknown key or one that cannot be fitted (text keys other than gc, a base value
// of 0 but for the per-KiB controller times), or no training figures.
Status CheckFitKeys(const std::vector<std::string>& keys, const sim::SimParams& base);

// Per figure, true when it is held out (the split above; a cell's metrics together). Invalid
// for a holdout outside [0, 1), folds outside 2 .. 100 or a fold not below them, two of
// holdout, folds and train_tests together, or no figure left to fit.
Result<std::vector<bool>> SplitFigures(const std::vector<Figure>& figures, const FitOptions& o);

// Of `keys` (number keys), at most `max_keys` that the figures pin, best first: columns[k][f]
// is the (weighted) log-change of training figure f when key k moves from the base; the greedy
// column-pivoted Gram-Schmidt picks the column of largest norm, removes its direction from the
// others, and so on, stopping at max_keys or when no remaining column's norm is 1% or more (a
// key whose effect the chosen keys already give, or that moves nothing, is not pinned).
std::vector<std::string> PinnedKeys(const std::vector<std::string>& keys,
                                    std::vector<std::vector<double>> columns, size_t max_keys);

Result<FitResult> Fit(const sim::SimParams& base, const std::vector<Figure>& figures,
                      const RunShape& shape, const FitOptions& o);

// The victim policies a twin file records (TwinToml's [fit].victim_policies), in order; empty
// when it has none (a preset file that is no twin, a fit that judged no policies). Invalid: an
// unreadable file, text that is not TOML, or such a table of the wrong shape, naming the file.
Result<std::vector<FitResult::PolicyFit>> VictimPoliciesOfTwinFile(const std::string& path);

// Median relative error per test and overall ("all"), of the held-out or training figures.
std::vector<std::pair<std::string, double>> MedianErrors(const std::vector<FigureFit>& f,
                                                         bool held_out);

// The twin as a preset file: base and fitted values, sources naming the fit, and a [fit]
// table (runs, keys, seed, evaluations, error tables of training and held-out figures).
std::string TwinToml(const FitResult& r, const std::string& base_name,
                     const std::vector<std::string>& runs, const FitOptions& o, double wall_s);

}  // namespace ssdlab::twin
