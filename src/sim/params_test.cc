#include "sim/params.h"

#include <gtest/gtest.h>

#include "sim/sim.h"

namespace ssdlab::sim {
namespace {

TEST(SimParams, EveryPresetOpensAndDescribes) {
  ASSERT_GE(Presets().size(), 5u);
  for (const PresetInfo& p : ListPresets()) {
    auto b = OpenSimBackend("sim:" + p.name);
    ASSERT_TRUE(b.ok()) << p.name << ": " << b.status().message();
    EXPECT_EQ(b.value()->info().kind, "sim");
    EXPECT_EQ(b.value()->info().model, p.name);
    EXPECT_GT(b.value()->info().size_bytes, 0u);
    auto d = DescribeSim("sim:" + p.name);
    ASSERT_TRUE(d.ok());
    EXPECT_FALSE(d.value().empty());
    EXPECT_FALSE(p.sources.empty()) << p.name;
  }
}

TEST(SimParams, UserCapacityNeverExceedsTheConfiguredOne) {
  // Whole blocks round the physical side; the user side (times the scale) stays within the
  // preset's capacity, at its default scale and unscaled.
  for (const SimParams& p : Presets()) {
    for (uint32_t scale : {p.scale, 1u}) {
      SimParams q = p;
      q.scale = scale;
      const Geometry g = DeriveGeometry(q);
      EXPECT_LE(g.user_bytes() * scale, p.capacity_bytes) << p.preset << " scale " << scale;
      EXPECT_GT(g.user_bytes() * scale, p.capacity_bytes * 0.98) << p.preset << " scale " << scale;
    }
  }
}

TEST(SimParams, OverridesApply) {
  auto p = ParseSimTarget("sim:tiny?op=28&gc=fifo&channels=4&gc_lazy=1&interface=nvme");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->op_pct, 28);
  EXPECT_EQ(p->gc, VictimPolicy::kFifo);
  EXPECT_EQ(p->channels, 4u);
  EXPECT_TRUE(p->gc_lazy);
  EXPECT_DOUBLE_EQ(p->link_mb_s, 3500);
  Geometry g = DeriveGeometry(p.value());
  EXPECT_NEAR(g.op_pct(), 28, 0.01);
  EXPECT_NEAR(g.spare_factor(), 0.28 / 1.28, 1e-4);
}

TEST(SimParams, BadInputIsOneLineInvalid) {
  const char* bad[] = {
      "sim:nosuch",                            // unknown preset
      "sim:tiny?colour=blue",                  // unknown key
      "sim:tiny?op=-1",                        // OP below 0
      "sim:tiny?op=abc",                       // not a number
      "sim:tiny?op=0",                         // no spare area to garbage-collect
      "sim:tiny?op=0.5",                       // too little spare area
      "sim:tiny?channels=0",                   // zero dies
      "sim:tiny?dies_per_channel=0",           // zero dies
      "sim:tiny?gc=lru",                       // unknown policy
      "sim:tiny?pages_per_block=16",           // block below 256 pages
      "sim:tiny?page_bytes=6000",              // not a multiple of 4 KiB
      "sim:tiny?merge_unit=6000",              // not a multiple of the logical block
      "sim:tiny?gc_lazy=1&gc_batch_pace=1",    // a batch that never gains on the writes
      "sim:tiny?gc_batch_pace=101",            // beyond the range
      "sim:tiny?capacity=8TB&mem_limit=1GiB",  // does not fit in memory
      "sim:tiny?capacity=1PB",                 // beyond 32-bit page numbers
      "sim:tiny?op",                           // no value
      "tiny",                                  // no sim: prefix
  };
  for (const char* t : bad) {
    auto b = OpenSimBackend(t);
    ASSERT_FALSE(b.ok()) << t;
    EXPECT_EQ(b.status().code(), Code::kInvalidArgument) << t;
    EXPECT_EQ(b.status().message().find('\n'), std::string::npos) << t;
    EXPECT_FALSE(b.status().message().empty());
  }
  EXPECT_NE(OpenSimBackend("sim:tiny?colour=blue").status().message().find("colour"),
            std::string::npos);
  EXPECT_NE(OpenSimBackend("sim:tiny?merge_unit=6000").status().message().find("merge_unit"),
            std::string::npos);
  EXPECT_NE(OpenSimBackend("sim:tiny?gc_batch_pace=0.5").status().message().find("above 1"),
            std::string::npos);
  EXPECT_TRUE(OpenSimBackend("sim:tiny?gc_lazy=1&gc_batch_pace=1.5").ok());
  EXPECT_NE(OpenSimBackend("sim:tiny?op=0").status().message().find("spare area"),
            std::string::npos);
  EXPECT_NE(
      OpenSimBackend("sim:tiny?capacity=8TB&mem_limit=1GiB").status().message().find("memory"),
      std::string::npos);
}

TEST(SimParams, TargetAtScaleSetsTheScaleOnce) {
  EXPECT_EQ(SimTargetAtScale("sim:tiny", 6, false).value(), "sim:tiny?scale=6");
  EXPECT_EQ(SimTargetAtScale("sim:tiny?op=28&gc=fifo", 6, false).value(),
            "sim:tiny?op=28&gc=fifo&scale=6");
  EXPECT_EQ(SimTargetAtScale("sim:tiny?scale=6&op=28", 6, false).value(), "sim:tiny?op=28&scale=6");
  EXPECT_EQ(SimTargetAtScale("sim:tiny?scale=256&op=28", 6, true).value(),
            "sim:tiny?op=28&scale=6");
  auto conflict = SimTargetAtScale("sim:tiny?scale=256", 6, false);
  ASSERT_FALSE(conflict.ok());
  EXPECT_NE(conflict.status().message().find("scale=256, not scale=6"), std::string::npos);
  EXPECT_FALSE(SimTargetAtScale("/dev/sda", 6, false).ok());
  EXPECT_FALSE(SimTargetAtScale("array:raid0:65536:sim:tiny|sim:tiny", 6, false).ok());
  EXPECT_TRUE(ParseSimTarget(SimTargetAtScale("sim:tiny?op=28", 2, false).value()).ok());
}

TEST(SimParams, TargetSetsAKeyOnlyInItsQuery) {
  EXPECT_TRUE(SimTargetSets("sim:tiny?scale=6", "scale"));
  EXPECT_TRUE(SimTargetSets("sim:tiny?op=28&scale=6", "scale"));
  EXPECT_FALSE(SimTargetSets("sim:tiny?op=28", "scale"));
  EXPECT_FALSE(SimTargetSets("sim:tiny?op=28&gc_scale_x=1", "scale"));  // not a prefix match
  EXPECT_FALSE(SimTargetSets("sim:my-scale=1.toml", "scale"));  // in the name, not the query
  EXPECT_FALSE(SimTargetSets("sim:tiny", "scale"));
}

TEST(SimParams, ScaleKeepsGeometryAndSpare) {
  auto full = ParseSimTarget("sim:tiny?capacity=8GiB&op=28");
  auto scaled = ParseSimTarget("sim:tiny?capacity=8GiB&op=28&scale=16");
  ASSERT_TRUE(full.ok() && scaled.ok());
  Geometry a = DeriveGeometry(full.value()), b = DeriveGeometry(scaled.value());
  EXPECT_EQ(a.pages_per_block, b.pages_per_block);
  EXPECT_EQ(a.dies, b.dies);
  EXPECT_NEAR(static_cast<double>(a.user_pages) / b.user_pages, 16, 0.2);
}

TEST(SimParams, ParamPairsRoundTrip) {
  auto p = ParseSimTarget("sim:dc-sata-mixed");
  ASSERT_TRUE(p.ok());
  std::string target = "sim:tiny?";
  bool first = true;
  for (const auto& [k, v] : ParamPairs(p.value())) {
    target += (first ? "" : "&") + k + "=" + v;
    first = false;
  }
  auto q = ParseSimTarget(target);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(ParamPairs(q.value()), ParamPairs(p.value()));
  EXPECT_FALSE(ParamDoc("op").second.empty());
}

}  // namespace
}  // namespace ssdlab::sim
