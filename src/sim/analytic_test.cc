#include "sim/analytic.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ssdlab::sim {
namespace {

TEST(Analytic, LambertW0) {
  EXPECT_NEAR(LambertW0(0), 0, 1e-15);
  EXPECT_NEAR(LambertW0(std::exp(1.0)), 1, 1e-12);
  EXPECT_NEAR(LambertW0(-std::exp(-1.0)), -1, 1e-6);
  for (double x : {-0.367, -0.3, -0.1, 0.5, 2.0, 10.0, 1e3}) {
    const double w = LambertW0(x);
    EXPECT_NEAR(w * std::exp(w), x, 1e-10 * std::max(1.0, std::fabs(x))) << x;
    EXPECT_GE(w, -1.0);
  }
}

TEST(Analytic, GreedyWaKnownPoints) {
  // alpha = 1.28 (OP 28%): about 2.48; large alpha -> 1; alpha -> 1 grows without bound.
  EXPECT_NEAR(GreedyWriteAmplification(1.28), 2.48, 0.01);
  EXPECT_NEAR(GreedyWriteAmplification(10.0), 1.0, 0.001);
  EXPECT_GT(GreedyWriteAmplification(1.01), 40);
  // Monotone in alpha.
  double prev = 1e9;
  for (double a = 1.05; a < 3; a += 0.05) {
    const double wa = GreedyWriteAmplification(a);
    EXPECT_LT(wa, prev);
    prev = wa;
  }
  // The model's fixed point: victims hold u = 1 - 1/WA valid pages, and for greedy with
  // uniform writes (Desnoyers 2012) u satisfies u = -alpha' W0(-e^{-alpha'}/alpha'')...; check
  // the equivalent closed form WA = 1/(1-u) with u = -W0(-alpha e^-alpha)/alpha.
  const double a = 1.5;
  const double u = -LambertW0(-a * std::exp(-a)) / a;
  EXPECT_NEAR(GreedyWriteAmplification(a), 1 / (1 - u), 1e-12);
}

TEST(Analytic, EffectiveAlphaAccountsForReserveAndLivePages) {
  Geometry g;
  g.pages_per_block = 1000;
  g.blocks = 1000;
  g.physical_pages = 1000000;
  g.user_pages = 800000;
  g.low_free_blocks = 10;  // the pool and the frontiers' unwritten pages: 10.5 blocks
  EXPECT_NEAR(EffectiveAlpha(g), (1000000 - 10.5 * 1000) / 800000.0, 1e-12);
  g.low_free_blocks = 3;  // below the least watermark the emergency refill: a block more
  EXPECT_NEAR(EffectiveAlpha(g), (1000000 - 4.5 * 1000) / 800000.0, 1e-12);
  g.low_free_blocks = 10;
  EXPECT_GT(EffectiveAlpha(g, 0.5), 2 * EffectiveAlpha(g) - 1e-9);
}

}  // namespace
}  // namespace ssdlab::sim
