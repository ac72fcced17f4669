#include <gtest/gtest.h>

#include <map>
#include <random>

#include "lab/merge.h"
#include "lab/mpi.h"

namespace ssdlab {
namespace {

PhaseResult RandomClient(uint32_t seed, uint64_t scale_ns) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> lat(0, 1.0);
  PhaseResult r;
  r.measured_ns = 1'000'000'000 + seed;
  for (int d = 0; d < 2; ++d)
    for (int i = 0; i < 20000; ++i) {
      r.dirs[d].ios++;
      r.dirs[d].bytes += 4096;
      r.dirs[d].latency.Record(static_cast<uint64_t>(lat(rng) * scale_ns) + 1);
    }
  for (int k = 0; k < 4 + static_cast<int>(seed % 2); ++k) {
    IntervalSample s;
    s.t_begin_ns = k * 250'000'000ull;
    s.t_end_ns = (k + 1) * 250'000'000ull;
    s.dirs[0] = {1000u + seed, 4096000, 7000u * seed, 90u + seed + k};
    r.intervals.push_back(s);
  }
  r.io_errors = seed % 3;
  return r;
}

// The merged histogram of the clients is exactly the bucket-by-bucket sum of theirs (after the
// trip through the wire format the ranks exchange), and its percentiles are the merged
// histogram's, not an average of the clients' percentiles.
TEST(MergeClientPhases, MergedHistogramEqualsTheBucketSumOfTheRanks) {
  std::vector<PhaseResult> ranks;
  for (uint32_t r = 0; r < 4; ++r) {
    auto wired = PhaseFromWire(PhaseWire(RandomClient(r + 1, 10'000 * (r + 1))));
    ASSERT_TRUE(wired.ok()) << wired.status().message();
    ranks.push_back(std::move(wired.value()));
  }
  PhaseResult m = MergeClientPhases(ranks);
  for (int d = 0; d < 2; ++d) {
    std::map<uint64_t, uint64_t> sum;
    uint64_t ios = 0, min = UINT64_MAX, max = 0, total = 0;
    for (const PhaseResult& p : ranks) {
      for (auto [low, c] : p.dirs[d].latency.NonEmptyBuckets()) sum[low] += c;
      ios += p.dirs[d].ios;
      min = std::min(min, p.dirs[d].latency.min());
      max = std::max(max, p.dirs[d].latency.max());
      total += p.dirs[d].latency.sum();
    }
    std::vector<std::pair<uint64_t, uint64_t>> want(sum.begin(), sum.end());
    EXPECT_EQ(m.dirs[d].latency.NonEmptyBuckets(), want);
    EXPECT_EQ(m.dirs[d].ios, ios);
    EXPECT_EQ(m.dirs[d].latency.count(), ios);
    EXPECT_EQ(m.dirs[d].latency.min(), min);
    EXPECT_EQ(m.dirs[d].latency.max(), max);
    EXPECT_EQ(m.dirs[d].latency.sum(), total);
    double mean_of_p99 = 0;
    for (const PhaseResult& p : ranks) mean_of_p99 += p.dirs[d].latency.Percentile(99) / 4;
    EXPECT_GT(std::abs(m.dirs[d].latency.Percentile(99) - mean_of_p99), 1000.0)
        << "clients of different speeds: the merged p99 is not the mean of theirs";
  }
  // Series summed interval by interval; the longest client's extra interval is kept.
  ASSERT_EQ(m.intervals.size(), 5u);
  EXPECT_EQ(m.intervals[0].dirs[0].ios, 1001u + 1002 + 1003 + 1004);
  EXPECT_EQ(m.intervals[4].dirs[0].ios, 1001u + 1003);
  EXPECT_EQ(m.intervals[3].dirs[0].lat_max_ns, 90u + 4 + 3);
  EXPECT_EQ(m.measured_ns, 1'000'000'004u);
  EXPECT_EQ(m.io_errors, 1u + 2 + 0 + 1);
}

TEST(MergeClientPhases, AMalformedWireDocumentIsRefused) {
  nlohmann::json j = PhaseWire(RandomClient(1, 1000));
  j["dirs"][0].erase("buckets");
  EXPECT_EQ(PhaseFromWire(j).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(PhaseFromWire(nlohmann::json::object()).status().code(), Code::kInvalidArgument);
}

TEST(RankPattern, ExpandsRankHostAndPercent) {
  EXPECT_EQ(ExpandRankPattern("/data/f%r.bin", 3, "node7"), "/data/f3.bin");
  EXPECT_EQ(ExpandRankPattern("sim:tiny?seed=%r&x=%h%%", 12, "n1"), "sim:tiny?seed=12&x=n1%");
  EXPECT_TRUE(HasRankPattern("a%hb"));
  EXPECT_FALSE(HasRankPattern("sim:tiny"));
}

TEST(Mpi, OutsideMpirunNothingStartsMpi) {
  if (StartedByMpirun()) GTEST_SKIP() << "this test process was itself started by mpirun";
  auto w = MpiWorld::Get();
  EXPECT_EQ(w.status().code(), Code::kUnsupported);
  EXPECT_NE(w.status().message().find("mpirun"), std::string::npos);
}

}  // namespace
}  // namespace ssdlab
