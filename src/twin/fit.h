// Fits a simulated drive's free parameters to measured figures (twin/figures.h) with a
// derivative-free search (the categorical keys first, one sweep of coordinate steps, then
// NLopt's Subplex on normalised log-parameters; the result is the best point evaluated), and
// writes the result as a preset file (sim/preset_file.h) with a [fit] table.
//
// The figures are split once, deterministically from `seed`: `train` figures are fitted,
// the rest are held out and only reported. By default a quarter of each test's figures is
// held out; with `train_tests` set, the figures of the other tests are; imported figures
// with roles (twin/import.h) are fitted on the calibration ones, the predicted ones held out.
// Objective: the mean over tests of the mean squared log-ratio simulated / measured of their
// training figures, each capped at 1 (a factor e), so that each test weighs the same however
// many cells it has and a few cells the model cannot reproduce do not outweigh the rest; the
// optimiser minimises it plus 0.01 x the mean squared normalised distance from the base (a
// weak prior: keys the figures do not pin stay at the base's values).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/params.h"
#include "twin/figures.h"
#include "twin/simulate.h"

namespace ssdlab::twin {

// The keys fitted when --fit is not given: controller and NAND times, spare area, GC.
const std::vector<std::string>& DefaultFitKeys();

struct FitOptions {
  std::vector<std::string> keys;         // parameter keys (numbers), or gc / gc_lazy
  std::vector<std::string> train_tests;  // empty: a random quarter of each test is held out
  uint64_t seed = 1;
  uint32_t max_evals = 0;  // 0: 40 + 16 x keys
  double max_factor = 3;   // each value within base / max_factor .. base x max_factor
  SimulateOptions sim;
  // Per figure (in the order of Fit's `figures`): every value the cheap evaluator gives for
  // that figure is multiplied by this factor, in the objective and in the result (a correction
  // of the evaluator's bias against the full tests: the full tests' value / the evaluator's, both
  // on the base). Empty: no correction.
  std::vector<double> sim_factor;
  // Called after each evaluation: evaluations done, budget, best objective so far.
  std::function<void(uint32_t, uint32_t, double)> progress;
};

// One figure's outcome.
struct FigureFit {
  Figure figure;
  double simulated = 0;
  bool held_out = false;
  double RelError() const;  // |simulated - measured| / measured
};

struct FitResult {
  sim::SimParams params;                // the twin
  std::vector<FigureFit> figures;       // every figure, at the twin
  std::vector<FigureFit> base_figures;  // every figure, at the base (before fitting)
  uint32_t evaluations = 0;
  double objective = 0, base_objective = 0;  // over the training figures
};

// Invalid: an unknown key or one that cannot be fitted (text keys other than gc, a base value
// of 0), or no training figures.
Status CheckFitKeys(const std::vector<std::string>& keys, const sim::SimParams& base);

Result<FitResult> Fit(const sim::SimParams& base, const std::vector<Figure>& figures,
                      const RunShape& shape, const FitOptions& o);

// Median relative error per test and overall ("all"), of the held-out or training figures.
std::vector<std::pair<std::string, double>> MedianErrors(const std::vector<FigureFit>& f,
                                                         bool held_out);

// The twin as a preset file: base and fitted values, sources naming the fit, and a [fit]
// table (runs, keys, seed, evaluations, error tables of training and held-out figures).
std::string TwinToml(const FitResult& r, const std::string& base_name,
                     const std::vector<std::string>& runs, const FitOptions& o, double wall_s);

}  // namespace ssdlab::twin
