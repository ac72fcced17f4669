// The fit's split of the figures into training and held-out ones (SplitFigures, twin/fit.h), and
// the prior weight's cross-validation on folds of the training cells (twin/fit_internal.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "twin/fit_internal.h"

namespace ssdlab::twin {
namespace fit_internal {
namespace {

// Few training cells: the prior weights tried by cross-validation (largest first), the folds,
// and each fold fit's Levenberg-Marquardt budget per key (plus two).
constexpr double kCvWeights[] = {1.0, 0.1, 0.01};
constexpr size_t kCvFolds = 4;
constexpr uint32_t kCvEvalsPerKey = 6;

}  // namespace

// Few training cells: of kCvWeights, the prior weight whose fits (Levenberg-Marquardt from the
// base, the keys `numbers`) on all but one of kCvFolds seeded folds of the training cells predict
// the left-out fold best (the sum over folds of its Score); ties go to the larger weight. The
// held-out figures take no part. Fills the sum per weight and counts the simulations run.
double CrossValidatedWeight(const sim::SimParams& base, const std::vector<Figure>& train,
                            const std::vector<double>& factor, const RunShape& shape,
                            const FitOptions& o, const std::vector<std::string>& numbers,
                            std::vector<std::pair<double, double>>* scores, uint32_t* evals) {
  FitOptions quiet = o;  // the fold fits report no progress
  quiet.progress = nullptr;
  std::vector<std::string> cells;
  for (const Figure& f : train)
    if (std::find(cells.begin(), cells.end(), CellOf(f)) == cells.end()) cells.push_back(CellOf(f));
  std::sort(cells.begin(), cells.end());
  std::mt19937_64 rng(o.seed ^ 0xc5a1b2e3d4f50617ull);
  std::shuffle(cells.begin(), cells.end(), rng);
  const size_t folds = std::min(kCvFolds, cells.size());
  std::map<std::string, size_t> fold_of;
  for (size_t i = 0; i < cells.size(); ++i) fold_of[cells[i]] = i % folds;
  scores->clear();
  for (double w : kCvWeights) scores->emplace_back(w, 0.0);
  const uint32_t lm_evals = kCvEvalsPerKey * static_cast<uint32_t>(numbers.size() + 2);
  for (size_t fold = 0; fold < folds; ++fold) {
    std::vector<Figure> fit, check;
    std::vector<double> fit_factor, check_factor;
    for (size_t i = 0; i < train.size(); ++i) {
      const bool out = fold_of[CellOf(train[i])] == fold;
      (out ? check : fit).push_back(train[i]);
      (out ? check_factor : fit_factor).push_back(factor[i]);
    }
    std::map<std::string, std::vector<double>> cache;         // shared by the weights
    std::map<std::string, std::vector<double>> check_values;  // per fitted point
    for (auto& [w, score] : *scores) {
      Problem pb(base, fit, fit_factor, shape, quiet, numbers, w);
      pb.cache_ = std::move(cache);
      std::vector<double> u(numbers.size(), 0.0);
      double best = pb.Total(base, u);
      LevenbergMarquardt(pb, base, u, lm_evals, &best);
      *evals += pb.evals_;
      cache = std::move(pb.cache_);
      const std::string at = TargetOf(pb.best_params_);
      if (!check_values.count(at)) {
        auto v = SimulateFigures(pb.best_params_, check, shape, o.sim);
        ++*evals;
        std::vector<double> values = v.ok() ? v.value() : std::vector<double>(check.size(), 0.0);
        for (size_t i = 0; i < values.size(); ++i) values[i] *= check_factor[i];
        check_values[at] = std::move(values);
      }
      score += Score(check, check_values[at], o.loss);
    }
  }
  double chosen = scores->front().first, lowest = HUGE_VAL;
  for (const auto& [w, score] : *scores)
    if (score < lowest - 1e-12) lowest = score, chosen = w;
  return chosen;
}

}  // namespace fit_internal

using fit_internal::CellOf;
using fit_internal::Format;

Result<std::vector<bool>> SplitFigures(const std::vector<Figure>& figures, const FitOptions& o) {
  if (!(o.holdout >= 0 && o.holdout < 1))
    return Status::Invalid("--holdout " + Format(o.holdout) +
                           ": expected the fraction of each test's cells to hold out, at least 0 "
                           "and below 1");
  if (o.folds != 0 && !(o.folds >= 2 && o.folds <= 100 && o.fold < o.folds))
    return Status::Invalid("--fold " + std::to_string(o.fold) + "/" + std::to_string(o.folds) +
                           ": expected fold I of N folds, 0 <= I < N, 2 <= N <= 100");
  if ((o.holdout > 0) + (o.folds > 0) + !o.train_tests.empty() > 1)
    return Status::Invalid(
        "--holdout, --fold and --train-tests exclude each other (the first two hold out cells "
        "of every test, the last whole tests)");
  // By cell within each test, so a cell's metrics are all trained or all held out.
  std::map<std::string, std::vector<std::string>> cells_of_test;
  auto cell_of = CellOf;
  for (const Figure& f : figures) {
    auto& v = cells_of_test[f.test];
    if (std::find(v.begin(), v.end(), cell_of(f)) == v.end()) v.push_back(cell_of(f));
  }
  std::set<std::string> held_cells;
  std::mt19937_64 rng(o.seed);
  // Imported published figures say which were calibration figures: the rest are held out.
  const bool by_role = o.train_tests.empty() && o.holdout == 0 && o.folds == 0 &&
                       std::any_of(figures.begin(), figures.end(),
                                   [](const Figure& f) { return f.role == "calibration"; });
  if (by_role) cells_of_test.clear();
  const double fraction = o.holdout > 0 ? o.holdout : 0.25;
  for (auto& [test, cells] : cells_of_test) {
    const bool trained =
        o.train_tests.empty() ||
        std::find(o.train_tests.begin(), o.train_tests.end(), test) != o.train_tests.end();
    if (!trained) {
      for (const auto& c : cells) held_cells.insert(test + "|" + c);
      continue;
    }
    if (!o.train_tests.empty() || cells.size() < 2) continue;
    std::shuffle(cells.begin(), cells.end(), rng);
    const size_t n = cells.size();
    size_t first = 0, last = std::min(n - 1, static_cast<size_t>(std::ceil(fraction * n - 1e-9)));
    if (o.folds > 0) first = o.fold * n / o.folds, last = (o.fold + 1) * n / o.folds;
    for (size_t i = first; i < last; ++i) held_cells.insert(test + "|" + cells[i]);
  }
  std::vector<bool> held(figures.size());
  bool any_trained = false;
  for (size_t i = 0; i < figures.size(); ++i) {
    held[i] = by_role ? figures[i].role != "calibration"
                      : held_cells.count(figures[i].test + "|" + cell_of(figures[i])) > 0;
    any_trained |= !held[i];
  }
  if (!any_trained)
    return Status::Invalid(
        "sim fit: no figures left to fit (--train-tests names none of the "
        "run's tests)");
  return held;
}

}  // namespace ssdlab::twin
