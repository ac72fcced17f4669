#include "stats/steady_state.h"

#include <gtest/gtest.h>

namespace ssdlab {
namespace {

TEST(FitLine, ExactLine) {
  double y[] = {3, 5, 7, 9};
  LinearFit f = FitLine(y, 4);
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 3);
  double one[] = {4};
  EXPECT_DOUBLE_EQ(FitLine(one, 1).slope, 0);
  EXPECT_DOUBLE_EQ(FitLine(one, 1).intercept, 4);
}

TEST(FitLine, HandComputed) {
  // x = 0..4, y = 10, 12, 11, 13, 14: mean 12, Sxy = 9, Sxx = 10 -> slope 0.9, b = 10.2.
  double y[] = {10, 12, 11, 13, 14};
  LinearFit f = FitLine(y, 5);
  EXPECT_NEAR(f.slope, 0.9, 1e-12);
  EXPECT_NEAR(f.intercept, 10.2, 1e-12);
}

TEST(SteadyState, ReachedOnFlatSeries) {
  std::vector<double> s = {50, 40, 30, 100, 101, 99, 100, 100};
  auto v = JudgeSteadyState(s, {});
  EXPECT_TRUE(v.reached);
  EXPECT_EQ(v.rounds_run, 8u);
  EXPECT_EQ(v.window_first_round, 3u);
  EXPECT_DOUBLE_EQ(v.mean, 100);
  EXPECT_NEAR(v.range_pct, 2, 1e-12);
}

TEST(SteadyState, RangeFails) {
  // Window 100, 125, 100, 100, 100: mean 105, range 25 = 23.8% > 20%; slope = -1 -> 3.8%.
  std::vector<double> s = {100, 125, 100, 100, 100};
  auto v = JudgeSteadyState(s, {});
  EXPECT_FALSE(v.reached);
  EXPECT_NEAR(v.range_pct, 25.0 / 105 * 100, 1e-9);
  EXPECT_LE(v.slope_excursion_pct, 10);
}

TEST(SteadyState, SlopeFails) {
  // Steady climb 90, 94, 98, 102, 106: mean 98, range 16 (16.3%) passes, slope 4 -> 16/98 fails.
  std::vector<double> s = {90, 94, 98, 102, 106};
  auto v = JudgeSteadyState(s, {});
  EXPECT_FALSE(v.reached);
  EXPECT_LE(v.range_pct, 20);
  EXPECT_NEAR(v.slope_excursion_pct, 16.0 / 98 * 100, 1e-9);
  EXPECT_NEAR(v.slope, 4, 1e-12);
}

TEST(SteadyState, ExactlyOnTheLimitsPasses) {
  // Range exactly 20% of the mean: 90, 110, 100, 100, 100 -> mean 100, range 20, slope 0.
  std::vector<double> range = {90, 110, 100, 100, 100};
  auto v = JudgeSteadyState(range, {});
  EXPECT_NEAR(v.range_pct, 20, 1e-12);
  EXPECT_TRUE(v.reached);
  // Slope excursion exactly 10%: 95, 97.5, 100, 102.5, 105 -> slope 2.5 * 4 = 10 of mean 100.
  std::vector<double> slope = {95, 97.5, 100, 102.5, 105};
  auto s = JudgeSteadyState(slope, {});
  EXPECT_NEAR(s.slope_excursion_pct, 10, 1e-12);
  EXPECT_TRUE(s.reached);
  std::vector<double> over = {94.9, 97.45, 100, 102.55, 105.1};
  EXPECT_FALSE(JudgeSteadyState(over, {}).reached);
}

TEST(SteadyState, FewerRoundsThanWindow) {
  std::vector<double> s = {100, 100, 100};
  auto v = JudgeSteadyState(s, {});
  EXPECT_FALSE(v.reached);
  EXPECT_EQ(v.rounds_run, 3u);
  EXPECT_DOUBLE_EQ(v.mean, 100);
  EXPECT_FALSE(JudgeSteadyState({}, {}).reached);
}

TEST(SteadyState, ReviewBandRule) {
  SteadyStateCriteria c;
  c.rule = SteadyStateRule::kReviewBand;
  c.window_rounds = 4;
  c.band_pct = 10;
  // 4 rounds 90, 100, 100, 110: slope 6, line 91..109 around mean 100: 9% -> passes.
  auto v = JudgeSteadyState({90, 100, 100, 110}, c);
  EXPECT_NEAR(v.band_excursion_pct, 9, 1e-9);
  EXPECT_TRUE(v.reached);
  // 85, 95, 105, 115: slope 10, line 85..115: 15% -> fails (range 30% too, which SNIA would flag).
  EXPECT_FALSE(JudgeSteadyState({85, 95, 105, 115}, c).reached);
  // Exactly 10%: line 90..110 needs slope 20/3 from 90: 90, 96.667, 103.333, 110.
  auto e = JudgeSteadyState({90, 90 + 20.0 / 3, 110 - 20.0 / 3, 110}, c);
  EXPECT_NEAR(e.band_excursion_pct, 10, 1e-9);
  EXPECT_TRUE(e.reached);
}

// Issue 44: a window that holds a round of the preconditioning is never judged, however flat.
TEST(SteadyState, WindowStartingBeforePreconditioningEndsIsNotJudged) {
  SteadyStateCriteria c;
  c.rule = SteadyStateRule::kReviewBand;
  c.window_rounds = 4;
  const std::vector<double> flat = {100, 100, 100, 100, 100, 100};
  // Preconditioning completed in round 4 (0-based 3): the first judged round is 4 (0-based).
  auto early = JudgeSteadyState(flat, c, 4);
  EXPECT_EQ(early.window_first_round, 2u);
  EXPECT_EQ(*early.first_judged_round, 4u);
  EXPECT_FALSE(early.reached);
  EXPECT_FALSE(*early.band_met);
  EXPECT_FALSE(*early.snia_met);
  const std::vector<double> more = {100, 100, 100, 100, 100, 100, 100, 100};
  auto late = JudgeSteadyState(more, c, 4);
  EXPECT_EQ(late.window_first_round, 4u);
  EXPECT_TRUE(late.reached);
  // Without a bound every round may be judged, as before.
  EXPECT_TRUE(JudgeSteadyState(flat, c).reached);
}

// Issue 44: both rules are evaluated on every window; the criteria's rule decides `reached`.
TEST(SteadyState, BothRulesKeptAsEvidence) {
  SteadyStateCriteria c;
  c.rule = SteadyStateRule::kReviewBand;
  c.window_rounds = 4;
  // 100, 120, 80, 100: mean 100, range 40% (> SNIA's 20%), slope -4: line 106..94, band 6%.
  auto v = JudgeSteadyState({100, 120, 80, 100}, c);
  EXPECT_NEAR(v.range_pct, 40, 1e-9);
  EXPECT_NEAR(v.band_excursion_pct, 6, 1e-9);
  ASSERT_TRUE(v.criteria && v.snia_met && v.band_met);
  EXPECT_TRUE(*v.band_met);
  EXPECT_FALSE(*v.snia_met);
  EXPECT_TRUE(v.reached);
  EXPECT_EQ(v.criteria->rule, SteadyStateRule::kReviewBand);
  c.rule = SteadyStateRule::kSnia;
  EXPECT_FALSE(JudgeSteadyState({100, 120, 80, 100}, c).reached);
}

}  // namespace
}  // namespace ssdlab
