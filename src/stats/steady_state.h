// Steady-state judgement of a tracking variable by round, per SNIA SSS PTS (Enterprise 1.1,
// 2.0.x section 3 "Steady State"): over the measurement window (the last `window` rounds),
//   data excursion:  max(y) - min(y)                          <= max_range_pct of mean(y)
//   slope excursion: |slope| * (window - 1) of the LSQ line   <= max_slope_pct of mean(y)
// and the reviewers' variant (docs/methodology.md; the DC400 review): the least-squares line stays
// within mean +-band_pct over the window (checked at both ends of the window).
// Limits are inclusive: a value exactly on the limit passes. Both rules are evaluated on every
// window (the verdict keeps each one's outcome as evidence); `criteria.rule` decides `reached`.
// A window is judged only when it lies wholly after preconditioning: every round of it at or
// after `first_judged_round` (methodology: "Steady state").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ssdlab {

struct LinearFit {
  double slope = 0;      // per round
  double intercept = 0;  // value at x = 0 (the first round of the fitted span)
};
// Least squares of y against x = 0, 1, ..., n-1. n >= 1 (n = 1 gives slope 0).
LinearFit FitLine(const double* y, size_t n);

enum class SteadyStateRule {
  kSnia,        // data excursion and slope excursion
  kReviewBand,  // fitted line within mean +- band_pct
};

struct SteadyStateCriteria {
  SteadyStateRule rule = SteadyStateRule::kSnia;
  uint32_t window_rounds = 5;
  double max_range_pct = 20;  // kSnia
  double max_slope_pct = 10;  // kSnia
  double band_pct = 10;       // kReviewBand
};

struct SteadyStateVerdict {
  bool reached = false;
  uint32_t rounds_run = 0;
  uint32_t window_rounds = 0;
  uint32_t window_first_round = 0;  // 0-based index of the window's first round
  double mean = 0;
  double range_pct = 0;            // (max - min) / mean, percent
  double slope_excursion_pct = 0;  // |slope| * (window - 1) / mean, percent
  double band_excursion_pct = 0;   // max |fit(x) - mean| / mean over the window, percent
  double slope = 0;                // of the window's fit, per round
  double intercept = 0;            // of the window's fit, at the window's first round
  // The evidence, set by JudgeSteadyState; absent in verdicts stored before it was kept.
  // 0-based index of the first round a window may hold (the first round wholly after
  // preconditioning); a window starting before it is not judged (reached is false).
  std::optional<uint32_t> first_judged_round;
  std::optional<SteadyStateCriteria> criteria;  // the rule that decided `reached`, its limits
  std::optional<bool> snia_met;  // SNIA's rule on this window (range and slope within limits)
  std::optional<bool> band_met;  // the review rule on this window (fitted line within the band)
};

// Judges the last window of `series` (one value per round, oldest first). With fewer rounds
// than the window, or a window that starts before `first_judged_round` (0-based: the first
// round wholly after preconditioning), not reached by either rule (the figures describe what
// there is).
SteadyStateVerdict JudgeSteadyState(const std::vector<double>& series,
                                    const SteadyStateCriteria& criteria,
                                    size_t first_judged_round = 0);

}  // namespace ssdlab
