#include "stats/steady_state.h"

#include <algorithm>
#include <cmath>

namespace ssdlab {

LinearFit FitLine(const double* y, size_t n) {
  LinearFit f;
  if (n == 0) return f;
  double mx = (static_cast<double>(n) - 1) / 2, my = 0;
  for (size_t i = 0; i < n; ++i) my += y[i];
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; ++i) {
    double dx = static_cast<double>(i) - mx;
    sxy += dx * (y[i] - my);
    sxx += dx * dx;
  }
  f.slope = sxx > 0 ? sxy / sxx : 0;
  f.intercept = my - f.slope * mx;
  return f;
}

SteadyStateVerdict JudgeSteadyState(const std::vector<double>& series, const SteadyStateCriteria& c,
                                    size_t first_judged_round) {
  SteadyStateVerdict v;
  v.rounds_run = static_cast<uint32_t>(series.size());
  v.window_rounds = c.window_rounds;
  v.first_judged_round = static_cast<uint32_t>(first_judged_round);
  v.criteria = c;
  v.snia_met = false;
  v.band_met = false;
  size_t w = std::min<size_t>(c.window_rounds, series.size());
  if (w == 0) return v;
  size_t first = series.size() - w;
  v.window_first_round = static_cast<uint32_t>(first);
  const double* y = series.data() + first;
  double sum = 0, lo = y[0], hi = y[0];
  for (size_t i = 0; i < w; ++i) {
    sum += y[i];
    lo = std::min(lo, y[i]);
    hi = std::max(hi, y[i]);
  }
  v.mean = sum / static_cast<double>(w);
  LinearFit fit = FitLine(y, w);
  v.slope = fit.slope;
  v.intercept = fit.intercept;
  double span = static_cast<double>(w - 1);
  if (v.mean > 0) {
    v.range_pct = (hi - lo) / v.mean * 100;
    v.slope_excursion_pct = std::fabs(fit.slope) * span / v.mean * 100;
    double at_first = fit.intercept, at_last = fit.intercept + fit.slope * span;
    v.band_excursion_pct =
        std::max(std::fabs(at_first - v.mean), std::fabs(at_last - v.mean)) / v.mean * 100;
  }
  if (series.size() < c.window_rounds || first < first_judged_round || v.mean <= 0) return v;
  // A tiny tolerance keeps values that sit exactly on a limit (up to rounding) inside it.
  constexpr double kEps = 1e-9;
  v.snia_met =
      v.range_pct <= c.max_range_pct + kEps && v.slope_excursion_pct <= c.max_slope_pct + kEps;
  v.band_met = v.band_excursion_pct <= c.band_pct + kEps;
  v.reached = c.rule == SteadyStateRule::kSnia ? *v.snia_met : *v.band_met;
  return v;
}

}  // namespace ssdlab
