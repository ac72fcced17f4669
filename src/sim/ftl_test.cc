#include "sim/ftl.h"

#include <gtest/gtest.h>

#include "base/rng.h"

namespace ssdlab::sim {
namespace {

Geometry SmallGeometry() {
  Geometry g;
  g.pages_per_block = 256;
  g.blocks = 64;
  g.physical_pages = 64 * 256;
  g.user_pages = 48 * 256;
  g.low_free_blocks = 3;
  g.min_free_blocks = 2;
  return g;
}

// Drives the FTL the way the device does: GC whenever the pool is low.
void Churn(Ftl& f, uint64_t writes, uint64_t seed, uint32_t user_pages, bool trims) {
  Rng rng(seed);
  for (uint64_t i = 0; i < writes; ++i) {
    const uint32_t lpn = static_cast<uint32_t>(rng.Below(user_pages));
    if (trims && rng.Below(10) == 0) {
      f.Trim(lpn);
      continue;
    }
    f.HostWrite(lpn);
    while (f.free_blocks() < 3) {
      if (!f.collecting() && !f.SelectVictim()) FAIL() << "no victim";
      uint32_t src, dst;
      if (!f.RelocateNext(&src, &dst)) f.EraseVictim();
    }
  }
}

class FtlPolicies : public ::testing::TestWithParam<VictimPolicy> {};

TEST_P(FtlPolicies, InvariantsHoldUnderRandomWritesAndTrims) {
  Geometry g = SmallGeometry();
  Ftl f(g, GetParam(), 4, 7);
  EXPECT_EQ(f.CheckInvariants(), "");
  Churn(f, 200000, 1, static_cast<uint32_t>(g.user_pages), true);
  EXPECT_EQ(f.CheckInvariants(), "");
  EXPECT_GT(f.counters().erases, 0u);
  EXPECT_GT(f.counters().gc_copies, 0u);
  f.Reset();
  EXPECT_EQ(f.CheckInvariants(), "");
  EXPECT_EQ(f.free_blocks(), g.blocks);
  EXPECT_EQ(f.mapped_pages(), 0u);
}

// The copy hint (PrefetchNextCopy) reads the victim's bitmap and reverse map ahead of its copies
// and prefetches mapping entries: nothing it does may change the state. The same churn with the
// hint on and off, on a small drive and on one large enough (4 MiB of l2p) for the default to
// turn it on, ends in the same mapping and counters.
TEST_P(FtlPolicies, TheCopyHintChangesNothing) {
  Geometry large;
  large.pages_per_block = 1024;
  large.blocks = 1300;
  large.physical_pages = 1300 * 1024;
  large.user_pages = 1 << 20;
  large.low_free_blocks = 3;
  large.min_free_blocks = 2;
  for (const Geometry& g : {SmallGeometry(), large}) {
    Ftl on(g, GetParam(), 4, 7, true, Ftl::CopyHint::kOn);
    Ftl off(g, GetParam(), 4, 7, true, Ftl::CopyHint::kOff);
    const auto pages = static_cast<uint32_t>(g.user_pages);
    Churn(on, 3 * g.user_pages, 2, pages, true);
    Churn(off, 3 * g.user_pages, 2, pages, true);
    EXPECT_EQ(on.CheckInvariants(), "");
    EXPECT_GT(on.counters().gc_copies, g.user_pages / 2);
    EXPECT_EQ(on.counters().gc_copies, off.counters().gc_copies);
    EXPECT_EQ(on.counters().erases, off.counters().erases);
    EXPECT_EQ(on.free_blocks(), off.free_blocks());
    uint32_t differ = 0;
    for (uint32_t lpn = 0; lpn < pages; ++lpn) differ += on.Lookup(lpn) != off.Lookup(lpn);
    EXPECT_EQ(differ, 0u) << g.user_pages << " user pages";
  }
}

INSTANTIATE_TEST_SUITE_P(All, FtlPolicies,
                         ::testing::Values(VictimPolicy::kGreedy, VictimPolicy::kFifo,
                                           VictimPolicy::kDChoices, VictimPolicy::kCostBenefit));

TEST(Ftl, GreedyPicksTheBlockWithFewestValidPages) {
  Geometry g = SmallGeometry();
  Ftl f(g, VictimPolicy::kGreedy, 1, 1);
  // Fill three blocks sequentially (the third closes when the fourth opens).
  for (uint32_t lpn = 0; lpn < 3 * 256 + 1; ++lpn) f.HostWrite(lpn);
  // Invalidate 10 pages of block 0, 100 of block 1, 50 of block 2.
  for (uint32_t i = 0; i < 10; ++i) f.HostWrite(i);
  for (uint32_t i = 0; i < 100; ++i) f.Trim(256 + i);
  for (uint32_t i = 0; i < 50; ++i) f.Trim(512 + i);
  ASSERT_TRUE(f.SelectVictim());
  EXPECT_EQ(f.victim_valid(), 156u);
  uint32_t src, dst, n = 0;
  while (f.RelocateNext(&src, &dst)) {
    EXPECT_EQ(f.BlockOf(src), 1u);
    ++n;
  }
  EXPECT_EQ(n, 156u);
  EXPECT_EQ(f.EraseVictim(), 1u);
  EXPECT_EQ(f.CheckInvariants(), "");
}

TEST(Ftl, TrimUnmaps) {
  Geometry g = SmallGeometry();
  Ftl f(g, VictimPolicy::kGreedy, 1, 1);
  f.HostWrite(5);
  EXPECT_NE(f.Lookup(5), Ftl::kNone);
  f.Trim(5);
  EXPECT_EQ(f.Lookup(5), Ftl::kNone);
  EXPECT_EQ(f.mapped_pages(), 0u);
  f.Trim(5);  // no-op
  EXPECT_EQ(f.counters().trims, 1u);
}

}  // namespace
}  // namespace ssdlab::sim
