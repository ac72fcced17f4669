#include "workload/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "workload/parse.h"

namespace ssdlab {
namespace {

WorkloadSpec Spec(const std::string& rw, const std::string& bs, const std::string& dist,
                  const std::string& range = "0%-100%", uint64_t target = 64ull << 20) {
  WorkloadArgs a;
  a.rw = rw;
  a.bs = bs;
  a.dist = dist;
  a.range = range;
  auto s = ResolveWorkload(a, target, 512);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.value();
}

TEST(JobGenerator, UniformCoversRangeEvenlyAndAligned) {
  WorkloadSpec s = Spec("randread", "4KiB", "uniform", "16MiB-32MiB");
  JobGenerator g(s, 0);
  const uint64_t units = (16u << 20) / 4096;
  std::vector<int> hits(units, 0);
  const int n = 400000;
  for (int i = 0; i < n; ++i) {
    IoRequest r = g.Next();
    ASSERT_EQ(r.offset % 4096, 0u);
    ASSERT_GE(r.offset, 16u << 20);
    ASSERT_LE(r.offset + r.bytes, 32u << 20);
    ++hits[(r.offset - (16u << 20)) / 4096];
  }
  // Every unit hit; counts within a loose band around the mean (~97.7).
  double mean = static_cast<double>(n) / units;
  for (int h : hits) {
    EXPECT_GT(h, mean * 0.5);
    EXPECT_LT(h, mean * 1.6);
  }
}

TEST(JobGenerator, BlockSizeMixAndAlignment) {
  WorkloadSpec s = Spec("randrw", "4KiB:67,8KiB:10,64KiB:23", "uniform");
  JobGenerator g(s, 0);
  std::map<uint32_t, int> count;
  int reads = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    IoRequest r = g.Next();
    ASSERT_EQ(r.offset % r.bytes, 0u) << "aligned to its own size";
    ASSERT_LE(r.offset + r.bytes, s.range_end_bytes);
    ++count[r.bytes];
    reads += r.dir == Direction::kRead;
  }
  EXPECT_NEAR(count[4096] / static_cast<double>(n), 0.67, 0.01);
  EXPECT_NEAR(count[8192] / static_cast<double>(n), 0.10, 0.01);
  EXPECT_NEAR(count[65536] / static_cast<double>(n), 0.23, 0.01);
  EXPECT_NEAR(reads / static_cast<double>(n), 0.50, 0.01);
}

TEST(JobGenerator, ZonedSkew) {
  WorkloadSpec s = Spec("randread", "4KiB", "zoned:50/5:30/15:20/80");
  JobGenerator g(s, 0);
  const uint64_t size = s.range_end_bytes;
  int z0 = 0, z1 = 0, z2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double pos = static_cast<double>(g.Next().offset) / size;
    if (pos < 0.05) {
      ++z0;
    } else if (pos < 0.20) {
      ++z1;
    } else {
      ++z2;
    }
  }
  EXPECT_NEAR(z0 / static_cast<double>(n), 0.50, 0.01);
  EXPECT_NEAR(z1 / static_cast<double>(n), 0.30, 0.01);
  EXPECT_NEAR(z2 / static_cast<double>(n), 0.20, 0.01);
}

TEST(JobGenerator, ZipfSkewMatchesTheory) {
  // With exponent 1.2 over N units, the hottest unit gets 1/H(N,1.2) of all accesses.
  WorkloadSpec s = Spec("randread", "4KiB", "zipf:1.2");
  const uint64_t units = s.range_end_bytes / 4096;
  double hn = 0;
  for (uint64_t k = 1; k <= units; ++k) hn += std::pow(static_cast<double>(k), -1.2);
  JobGenerator g(s, 0);
  std::map<uint64_t, int> hits;
  const int n = 500000;
  for (int i = 0; i < n; ++i) ++hits[g.Next().offset];
  std::vector<int> counts;
  for (auto& [off, c] : hits) counts.push_back(c);
  std::sort(counts.rbegin(), counts.rend());
  EXPECT_NEAR(counts[0] / static_cast<double>(n), 1.0 / hn, 0.1 / hn);
  EXPECT_NEAR(counts[1] / static_cast<double>(n), std::pow(2.0, -1.2) / hn, 0.1 / hn);
  // The hottest units are scattered, not bunched at the start of the range.
  OffsetDistribution d(s.dist, units);
  EXPECT_NE(d.Scatter(1), 1u);
  std::set<uint64_t> seen;
  for (uint64_t r = 0; r < units; ++r) seen.insert(d.Scatter(r));
  EXPECT_EQ(seen.size(), units) << "scatter is a permutation";
}

TEST(JobGenerator, ParetoShare) {
  // pareto:0.8: 80% of accesses land on the hottest 20% of units.
  WorkloadSpec s = Spec("randread", "4KiB", "pareto:0.8");
  const uint64_t units = s.range_end_bytes / 4096;
  JobGenerator g(s, 0);
  std::vector<int> hits(units, 0);
  const int n = 400000;
  for (int i = 0; i < n; ++i) ++hits[g.Next().offset / 4096];
  std::sort(hits.rbegin(), hits.rend());
  long top = 0;
  for (uint64_t i = 0; i < units / 5; ++i) top += hits[i];
  EXPECT_NEAR(top / static_cast<double>(n), 0.8, 0.02);
}

TEST(JobGenerator, SequentialStripesPerJobAndWraps) {
  WorkloadArgs a;
  a.rw = "write";
  a.bs = "128KiB";
  a.jobs = 4;
  auto s = ResolveWorkload(a, 4ull << 20, 512).value();
  for (uint32_t j = 0; j < 4; ++j) {
    JobGenerator g(s, j);
    uint64_t first = g.Next().offset;
    EXPECT_EQ(first, j * (1ull << 20));
    uint64_t prev = first;
    for (int i = 0; i < 40; ++i) {
      IoRequest r = g.Next();
      EXPECT_TRUE(r.offset == prev + 131072 || r.offset == 0) << r.offset;
      EXPECT_LE(r.offset + r.bytes, 4ull << 20);
      EXPECT_EQ(r.dir, Direction::kWrite);
      prev = r.offset;
    }
  }
}

TEST(JobGenerator, SameSeedSameSequenceOtherSeedDiffers) {
  WorkloadSpec s = Spec("randrw", "4KiB:50,64KiB:50", "zipf:0.9");
  JobGenerator a(s, 1), b(s, 1), c(s, 2);
  int same_as_other_job = 0;
  for (int i = 0; i < 1000; ++i) {
    IoRequest x = a.Next(), y = b.Next(), z = c.Next();
    EXPECT_EQ(x.offset, y.offset);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.dir, y.dir);
    same_as_other_job += x.offset == z.offset;
  }
  EXPECT_LT(same_as_other_job, 100);
  s.seed = 2;
  JobGenerator d(s, 1);
  JobGenerator e(Spec("randrw", "4KiB:50,64KiB:50", "zipf:0.9"), 1);
  int same = 0;
  for (int i = 0; i < 1000; ++i) same += d.Next().offset == e.Next().offset;
  EXPECT_LT(same, 100);
}

TEST(JobGenerator, FastPathAndFillDrawAsTheGeneralPath) {
  // Uniform offsets with one block size take Next()'s inline path; the same spec with a second
  // block size at 0% takes the general one and must give the same requests. Fill(n) equals n
  // calls of Next() on either path. (Reads or writes only: no draw for the direction.)
  for (const char* rw : {"randwrite", "randrw", "randread", "randtrim"}) {
    WorkloadSpec fast = Spec(rw, "4KiB", "uniform", "1MiB-33MiB");
    fast.read_pct = std::string(rw) == "randrw" ? 30 : fast.read_pct;
    WorkloadSpec general = fast;
    general.block_sizes.push_back(BlockShare{8192, 0});
    for (uint32_t job : {0u, 3u}) {
      JobGenerator a(fast, job), b(general, job), c(fast, job), d(general, job);
      std::vector<IoRequest> fc(37), fd(37);
      for (int round = 0; round < 300; ++round) {
        c.Fill(fc.data(), fc.size());
        d.Fill(fd.data(), fd.size());
        for (size_t i = 0; i < fc.size(); ++i) {
          const IoRequest x = a.Next(), y = b.Next();
          ASSERT_EQ(x.offset, y.offset) << rw << " " << round;
          ASSERT_EQ(x.bytes, y.bytes);
          ASSERT_EQ(x.dir, y.dir);
          ASSERT_EQ(fc[i].offset, x.offset);
          ASSERT_EQ(fc[i].bytes, x.bytes);
          ASSERT_EQ(fc[i].dir, x.dir);
          ASSERT_EQ(fd[i].offset, x.offset);
          ASSERT_EQ(fd[i].dir, x.dir);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ssdlab
