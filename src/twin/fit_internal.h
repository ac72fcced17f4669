// What the fit's stages share (twin/fit.cc and its parts): not exported beyond src/twin/.
//   fit_objective.cc  the objective, its prior towards the base, the drive at a normalised point
//                     (Problem) and the bias correction's factors
//   fit_search.cc     the local searches: NLopt's Subplex and Levenberg-Marquardt
//   fit_split.cc      the training / held-out split and the prior weight's cross-validation
//   fit.cc            the fit's steps in order (Fitter), the keys fitted, Fit
//   twin_file.cc      the twin's preset file with its [fit] table
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sim/params.h"
#include "twin/figures.h"
#include "twin/fit.h"
#include "twin/simulate.h"

namespace ssdlab::twin::fit_internal {

// The objective of a drive that does not open (or an evaluation not run).
constexpr double kFailedObjective = 1e3;
// Weight of the mean squared normalised distance from the base in the minimised objective.
constexpr double kPriorWeight = 0.01;
// At most one number key fitted per this many training cells (PinnedKeys).
constexpr size_t kCellsPerKey = 2;
// Few training cells: at least this many for the prior weight's cross-validation.
constexpr size_t kMinCvCells = 3;

// v printed by snprintf with `fmt`.
std::string Format(double v, const char* fmt = "%.6g");

// gc, gc_lazy and gc_yield: the categorical keys.
bool IsCategorical(const std::string& key);

// The drive's GC policies (gc, gc_lazy, gc_yield), as one string.
std::string PolicyOf(const sim::SimParams& p);

// The prior's term for the policy of p: each key changed weighs as one of the n number keys at
// the end of its range.
double PolicyPrior(const sim::SimParams& p, const sim::SimParams& base, double weight, size_t n);

// A key the fit can move from the base's value (a 0 has no log scale, but for a per-KiB
// controller time).
bool Fittable(const sim::SimParams& base, const std::string& key);

// A figure's cell: its name without the metric.
std::string CellOf(const Figure& f);

// The objective: the mean over tests of the mean capped loss of their figures (`sim`: one
// simulated value per figure).
double Score(const std::vector<Figure>& figs, const std::vector<double>& sim,
             FitOptions::Loss loss);

// Per figure, exact / cheap at the base clamped to kMinCorrection .. kMaxCorrection (1 where either
// is unknown or not positive); multiplies `cheap` by them.
std::vector<double> CorrectionFactors(const std::vector<double>& exact, std::vector<double>* cheap);

// One search problem: the training figures (with their correction factors) on drives at
// normalised points u in [-1, 1]^n (one coordinate per number key in `keys`), the objective plus
// the prior towards the base, the evaluations counted against a budget and cached by drive.
// Refers to base, train, factor, shape and o: they must outlive it.
class Problem {
 public:
  Problem(const sim::SimParams& base, const std::vector<Figure>& train,
          const std::vector<double>& factor, const RunShape& shape, const FitOptions& o,
          std::vector<std::string> keys, double prior_weight = kPriorWeight)
      : base_(base),
        train_(train),
        factor_(factor),
        shape_(shape),
        o_(o),
        keys_(std::move(keys)),
        prior_weight_(prior_weight) {}

  // The drive at normalised point u (one coordinate per number key), categorical values of
  // `cat` applied first.
  Result<sim::SimParams> At(const std::vector<double>& u, const sim::SimParams& cat) const;

  // The weak prior towards the base at normalised point u: with few figures, keys they do not
  // pin stay put.
  double Prior(const std::vector<double>& u) const;

  // The objective at p (the drive at normalised point u) plus the prior; the best point of
  // every evaluation so far is kept (best_params_, best_u_), whichever step evaluated it. With
  // `residuals`, also the residuals whose squares sum to it (ResidualsOf; empty when the drive
  // does not open).
  double Total(const sim::SimParams& p, const std::vector<double>& u,
               std::vector<double>* residuals = nullptr);

  // The objective plus the prior as a sum of squares: per training figure the signed square
  // root of its capped loss times its weight (1 / (tests x its test's figures)), per number key
  // sqrt(prior weight / keys) x its normalised coordinate.
  std::vector<double> ResidualsOf(const std::vector<double>& sim,
                                  const std::vector<double>& u) const;

  // The factors of the drives of the other GC mode than factor_'s drive (`factor_lazy`):
  // `other` (null: factor_ for every drive).
  void SetOtherModeFactors(bool factor_lazy, const std::vector<double>* other) {
    factor_lazy_ = factor_lazy;
    other_factor_ = other;
  }

  // The training figures simulated at p, corrected (one evaluation; cached by parameters), or
  // null when the drive does not open.
  const std::vector<double>* Values(const sim::SimParams& p);

  // Ends the search at the next step (no budget left).
  void Halt();

  uint32_t evals_ = 0, budget_ = 0;
  bool stopped_ = false;  // o.stop was seen
  uint32_t evals_at_stop_ = 0;
  double best_ = HUGE_VAL;
  double best_total_ = HUGE_VAL, best_raw_ = HUGE_VAL;
  sim::SimParams best_params_;
  std::vector<double> best_u_;
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  const sim::SimParams& base_;
  const std::vector<Figure>& train_;
  const std::vector<double>& factor_;  // per training figure (empty: none)
  bool factor_lazy_ = false;
  const std::vector<double>* other_factor_ = nullptr;
  const RunShape& shape_;
  const FitOptions& o_;
  std::vector<std::string> keys_;
  double prior_weight_;

 public:
  std::map<std::string, std::vector<double>> cache_;  // target -> Values (empty: failed)
};

// Subplex from `u0` on [-1, 1]^n for at most `evals` evaluations; returns the best point.
std::vector<double> Minimise(Problem& pb, const sim::SimParams& cat, std::vector<double> u0,
                             uint32_t evals, double* best);

// Levenberg-Marquardt on the residuals (Problem::ResidualsOf) from `u`, within [-1, 1]^n, for
// at most `evals` evaluations: per iteration a forward-difference Jacobian (one evaluation per
// key, a backward step at the upper bound), then damped Gauss-Newton steps (Marquardt's scaling,
// at most kMaxLmStep per coordinate) until one lowers the total; stops when none does or the
// total falls by less than kLmTolerance of itself. Returns the best point; *best its total.
std::vector<double> LevenbergMarquardt(Problem& pb, const sim::SimParams& cat,
                                       std::vector<double> u, uint32_t evals, double* best);

// Few training cells: of kCvWeights, the prior weight whose fits (Levenberg-Marquardt from the
// base, the keys `numbers`) on all but one of kCvFolds seeded folds of the training cells predict
// the left-out fold best (the sum over folds of its Score); ties go to the larger weight. The
// held-out figures take no part. Fills the sum per weight and counts the simulations run.
double CrossValidatedWeight(const sim::SimParams& base, const std::vector<Figure>& train,
                            const std::vector<double>& factor, const RunShape& shape,
                            const FitOptions& o, const std::vector<std::string>& numbers,
                            std::vector<std::pair<double, double>>* scores, uint32_t* evals);

}  // namespace ssdlab::twin::fit_internal
