#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "stats/histogram_codec.h"

namespace ssdlab {
namespace {

// Exact nearest-rank percentile of sorted samples.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

void CheckAgainstExact(std::vector<uint64_t> samples) {
  Histogram h;
  for (uint64_t v : samples) h.Record(v);
  std::sort(samples.begin(), samples.end());
  for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 99.999}) {
    double exact = static_cast<double>(ExactPercentile(samples, p));
    double got = h.Percentile(p);
    EXPECT_LE(std::fabs(got - exact), 0.005 * exact + 1e-9) << "p" << p << " exact " << exact;
    EXPECT_LE(got, static_cast<double>(h.max()));
  }
  EXPECT_EQ(h.max(), samples.back());
  EXPECT_EQ(h.min(), samples.front());
  EXPECT_EQ(h.Percentile(100), static_cast<double>(samples.back()));
  long double sum = 0;
  for (uint64_t v : samples) sum += v;
  long double mean = sum / samples.size();
  EXPECT_NEAR(h.Mean(), static_cast<double>(mean), 1e-9 * static_cast<double>(mean));
  long double ss = 0;
  for (uint64_t v : samples) ss += (v - mean) * (v - mean);
  double sd = static_cast<double>(std::sqrt(ss / samples.size()));
  EXPECT_NEAR(h.Stddev(), sd, 1e-6 * sd + 1e-9);
}

TEST(Histogram, ErrorBoundLogNormal) {
  std::mt19937_64 gen(1);
  std::lognormal_distribution<double> d(std::log(100000.0), 1.0);  // ~100 us, heavy tail
  std::vector<uint64_t> v(1000000);
  for (auto& x : v) x = static_cast<uint64_t>(d(gen)) + 1;
  CheckAgainstExact(v);
}

TEST(Histogram, ErrorBoundUniformWide) {
  std::mt19937_64 gen(2);
  std::uniform_int_distribution<uint64_t> d(1, 3600ull * 1000000000ull);  // 1 ns .. 1 hour
  std::vector<uint64_t> v(1000000);
  for (auto& x : v) x = d(gen);
  CheckAgainstExact(v);
}

TEST(Histogram, ErrorBoundBimodalAndSmall) {
  std::mt19937_64 gen(3);
  std::exponential_distribution<double> fast(1.0 / 80.0);  // tens of ns: exact buckets
  std::normal_distribution<double> slow(5e6, 1e6);         // a second mode near 5 ms
  std::vector<uint64_t> v(1000000);
  for (size_t i = 0; i < v.size(); ++i) {
    double x = (i % 10 == 0) ? slow(gen) : fast(gen);
    v[i] = static_cast<uint64_t>(std::max(1.0, x));
  }
  CheckAgainstExact(v);
}

TEST(Histogram, NeverAboveMaxWithFewSamples) {
  Histogram h;
  h.Record(1000003);
  h.Record(1000001);
  EXPECT_LE(h.Percentile(99.999), 1000003.0);
  EXPECT_GE(h.Percentile(0.001), 1000001.0);
  Histogram one;
  one.Record(777777);
  EXPECT_EQ(one.Percentile(50), 777777.0);
  EXPECT_EQ(one.Percentile(99.99), 777777.0);
}

TEST(Histogram, MergeEqualsUnion) {
  std::mt19937_64 gen(4);
  std::lognormal_distribution<double> d(10.0, 2.0);
  Histogram a, b, all;
  for (int i = 0; i < 200000; ++i) {
    uint64_t x = static_cast<uint64_t>(d(gen));
    (i % 3 ? a : b).Record(x);
    all.Record(x);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_EQ(a.sum(), all.sum());
  EXPECT_EQ(a.NonEmptyBuckets(), all.NonEmptyBuckets());
  EXPECT_DOUBLE_EQ(a.Stddev(), all.Stddev());
  for (double p : {50.0, 99.0, 99.99}) EXPECT_DOUBLE_EQ(a.Percentile(p), all.Percentile(p));
}

TEST(Histogram, BucketsRoundTrip) {
  Histogram h;
  for (uint64_t v : {3ull, 700ull, 123456ull, 99999999ull, 1ull << 44}) h.Record(v);
  Histogram r = Histogram::FromBuckets(h.NonEmptyBuckets(), h.min(), h.max(), h.sum(), h.sum_sq());
  EXPECT_EQ(r.count(), h.count());
  EXPECT_EQ(r.NonEmptyBuckets(), h.NonEmptyBuckets());
  EXPECT_DOUBLE_EQ(r.Percentile(90), h.Percentile(90));
  EXPECT_EQ(r.max(), 1ull << 44);  // beyond the resolved range: clamped bucket, exact max
}

TEST(Histogram, BucketGeometry) {
  // Buckets tile the value range without gaps and stay within 1/256 relative width.
  for (int i = 1; i < Histogram::kBucketCount; ++i) {
    EXPECT_EQ(Histogram::BucketLow(i), Histogram::BucketLow(i - 1) + Histogram::BucketWidth(i - 1));
    EXPECT_EQ(Histogram::BucketOf(Histogram::BucketLow(i)), i);
    EXPECT_EQ(Histogram::BucketOf(Histogram::BucketLow(i) + Histogram::BucketWidth(i) - 1), i);
    if (Histogram::BucketLow(i) >= 512) {
      EXPECT_LE(Histogram::BucketWidth(i) * 256, Histogram::BucketLow(i));
    }
  }
  EXPECT_EQ(Histogram::BucketOf(0), 0);
  // Values past the resolved range share the last bucket.
  for (uint64_t v :
       {uint64_t{1} << 43, (uint64_t{1} << 43) + 12345, uint64_t{1} << 63, ~uint64_t{0}}) {
    EXPECT_EQ(Histogram::BucketOf(v), Histogram::kBucketCount - 1) << v;
  }
}

TEST(Histogram, EmptyIsZero) {
  Histogram h;
  EXPECT_EQ(h.Percentile(99), 0.0);
  EXPECT_EQ(h.Mean(), 0.0);
  EXPECT_EQ(h.min(), 0u);
}

}  // namespace
}  // namespace ssdlab

namespace ssdlab {
namespace {

// The flat words the store keeps are the pairs of NonEmptyBuckets, low then count, in order;
// decoding them rebuilds the same histogram.
TEST(HistogramCodec, WordsAreTheBucketPairsFlattenedAndBack) {
  Histogram h;
  for (uint64_t ns : {700ull, 700ull, 12000ull, 5000000ull}) h.Record(ns);
  const auto pairs = h.NonEmptyBuckets();
  const std::vector<uint64_t> words = HistogramWords(h);
  ASSERT_EQ(words.size(), 2 * pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(words[2 * i], pairs[i].first);
    EXPECT_EQ(words[2 * i + 1], pairs[i].second);
  }
  EXPECT_EQ(BucketsOfWords(words), pairs);
  Histogram back =
      Histogram::FromBuckets(BucketsOfWords(words), h.min(), h.max(), h.sum(), h.sum_sq());
  EXPECT_EQ(back.NonEmptyBuckets(), pairs);
  EXPECT_EQ(back.Percentile(99), h.Percentile(99));
  EXPECT_TRUE(HistogramWords(Histogram()).empty());
  EXPECT_EQ(BucketsOfWords({1, 2, 3}).size(), 1u);  // an odd last word is no bucket
}

}  // namespace
}  // namespace ssdlab
