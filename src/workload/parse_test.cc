#include "workload/parse.h"

#include <gtest/gtest.h>

namespace ssdlab {
namespace {

constexpr uint64_t kTarget = 1ull << 30;

TEST(ParseBlockSizes, SingleAndMix) {
  auto one = ParseBlockSizes("4KiB");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].bytes, 4096u);
  auto mix = ParseBlockSizes("4KiB:67,8KiB:10,64KiB:23");
  ASSERT_TRUE(mix.ok());
  ASSERT_EQ(mix->size(), 3u);
  EXPECT_EQ((*mix)[2].bytes, 65536u);
  EXPECT_DOUBLE_EQ((*mix)[1].pct, 10.0);
  EXPECT_FALSE(ParseBlockSizes("4KiB:50,8KiB:40").ok());  // sums to 90
  EXPECT_FALSE(ParseBlockSizes("4KiB,8KiB").ok());        // shares missing
  EXPECT_FALSE(ParseBlockSizes("4XB").ok());
  EXPECT_FALSE(ParseBlockSizes("0").ok());
}

TEST(ParseDistribution, Kinds) {
  EXPECT_EQ(ParseDistribution("uniform")->kind, DistKind::kUniform);
  EXPECT_DOUBLE_EQ(ParseDistribution("zipf:1.2")->param, 1.2);
  EXPECT_EQ(ParseDistribution("pareto:0.9")->kind, DistKind::kPareto);
  auto z = ParseDistribution("zoned:50/5:30/15:20/80");
  ASSERT_TRUE(z.ok());
  ASSERT_EQ(z->zones.size(), 3u);
  EXPECT_DOUBLE_EQ(z->zones[1].range_pct, 15.0);
  EXPECT_FALSE(ParseDistribution("zipf:1").ok());
  EXPECT_FALSE(ParseDistribution("zipf").ok());
  EXPECT_FALSE(ParseDistribution("pareto:1.5").ok());
  EXPECT_FALSE(ParseDistribution("zoned:50/5:30/15").ok());  // sums to 80/20
  EXPECT_FALSE(ParseDistribution("gauss").ok());
}

TEST(ParseRange, PercentAndBytes) {
  auto r = ParseRange("0%-25%", kTarget);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, 0u);
  EXPECT_EQ(r->second, kTarget / 4);
  auto b = ParseRange("1MiB-2MiB", kTarget);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->first, 1u << 20);
  EXPECT_FALSE(ParseRange("0%-125%", kTarget).ok());
  EXPECT_FALSE(ParseRange("50%-10%", kTarget).ok());
  EXPECT_FALSE(ParseRange("2GiB-3GiB", kTarget).ok());
  EXPECT_FALSE(ParseRange("25%", kTarget).ok());
}

TEST(ResolveWorkload, Defaults) {
  WorkloadArgs a;
  auto s = ResolveWorkload(a, kTarget, 512);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->pattern, Pattern::kRandom);
  EXPECT_DOUBLE_EQ(s->read_pct, 100);
  EXPECT_EQ(s->runtime_ns, 10ull * 1000000000ull);
  EXPECT_EQ(s->range_end_bytes, kTarget);
}

TEST(ResolveWorkload, MixesAmountsAndRamp) {
  WorkloadArgs a;
  a.rw = "randrw";
  a.rwmix_read = "70";
  a.io_size = "3x";
  a.range = "0%-25%";
  a.ramp = "2x";
  auto s = ResolveWorkload(a, kTarget, 512);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_DOUBLE_EQ(s->read_pct, 70);
  EXPECT_EQ(s->io_bytes, 3 * kTarget / 4);
  EXPECT_EQ(s->ramp_bytes, 2 * kTarget / 4);
  EXPECT_EQ(s->ramp_ns, 0u);
  a.ramp = "2s";
  EXPECT_EQ(ResolveWorkload(a, kTarget, 512)->ramp_ns, 2000000000u);
}

TEST(ResolveWorkload, SequentialDefaultsToOnePass) {
  WorkloadArgs a;
  a.rw = "write";
  auto s = ResolveWorkload(a, kTarget, 512);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->pattern, Pattern::kSequential);
  EXPECT_EQ(s->io_bytes, kTarget);
  EXPECT_DOUBLE_EQ(s->read_pct, 0);
}

TEST(ResolveWorkload, Rejections) {
  auto bad = [](auto mutate) {
    WorkloadArgs a;
    mutate(a);
    return !ResolveWorkload(a, kTarget, 4096).ok();
  };
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.qd = 0; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.jobs = 0; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.bs = "512"; }));  // below 4096 alignment
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.rw = "readwrite"; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.rwmix_read = "70"; }));  // not a mixed workload
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.range = "0%-200%"; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.runtime = "0s"; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.ramp = "lots"; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.rate_iops = "-5"; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) { a.data = "ones"; }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) {
    a.rw = "write";
    a.dist = "zipf:1.2";
  }));
  EXPECT_TRUE(bad([](WorkloadArgs& a) {
    a.rw = "trim";
    a.verify = true;
  }));
}

TEST(DescribeWorkload, Readable) {
  WorkloadArgs a;
  a.rw = "randrw";
  a.rwmix_read = "70";
  a.qd = 8;
  a.jobs = 4;
  EXPECT_EQ(DescribeWorkload(ResolveWorkload(a, kTarget, 512).value()),
            "randrw 70/30 bs=4 KiB qd=8 jobs=4");
}

}  // namespace
}  // namespace ssdlab

namespace ssdlab {
namespace {

// The distributions' names are one table: the parser, its errors and the names read it.
TEST(DistNames, OneTableForNamesParsingAndErrors) {
  for (DistKind k : {DistKind::kUniform, DistKind::kZipf, DistKind::kPareto, DistKind::kZoned}) {
    DistKind back;
    ASSERT_TRUE(DistKindFromName(DistKindName(k), &back)) << DistKindName(k);
    EXPECT_EQ(back, k);
  }
  EXPECT_STREQ(DistKindName(DistKind::kZipf), "zipf");
  DistKind k = DistKind::kZoned;
  EXPECT_TRUE(DistKindFromName("random", &k));  // fio's word
  EXPECT_EQ(k, DistKind::kUniform);
  EXPECT_FALSE(DistKindFromName("normal", &k));
  EXPECT_EQ(DistSyntaxes(", "), "uniform, zipf:S, pareto:H, zoned:A/R:...");
  EXPECT_EQ(ParseDistribution("normal").status().message(),
            "--dist: unknown distribution 'normal' (uniform, zipf:S, pareto:H, zoned:A/R:...)");
  EXPECT_EQ(ParseDistribution("random:1").status().message(), "--dist uniform takes no parameter");
  EXPECT_EQ(ParseDistribution("pareto").status().message(),
            "--dist pareto: needs a number, e.g. pareto:0.9");
  EXPECT_EQ(ParseDistribution("zoned:50/0:50/100").status().message(),
            "--dist zoned: zone '50/0' covers no range");
  EXPECT_EQ(ParseDistribution("zipf:1.2").value().kind, DistKind::kZipf);
}

}  // namespace
}  // namespace ssdlab
