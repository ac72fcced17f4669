// Log-linear latency histogram (after HdrHistogram, Gil Tene).
//
// Values are nanoseconds. Below 512 every value has its own bucket; above, each power of two
// is split into 256 equal buckets, so a bucket's width is at most 1/256 (0.39%) of its lower
// bound. Values up to 2^43 ns (about 2.4 hours) are resolved; larger ones land in the last
// bucket (min, max, mean and stddev stay exact regardless).
//
// Percentiles use the nearest-rank definition (the smallest recorded value v such that at
// least p% of values are <= v), interpolated linearly inside the bucket that holds that rank
// and clamped to [min, max]: the result lies within 0.39% of the exact answer and never above
// the observed maximum (unlike fio #1984).
//
// Not thread-safe: one histogram per thread; merge bucket by bucket (never average percentiles).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ssdlab {

class Histogram {
 public:
  static constexpr int kSubBits = 8;   // 256 buckets per octave (upper half used)
  static constexpr int kMaxBits = 43;  // resolves values < 2^43 ns
  static constexpr uint64_t kLinearLimit = 1u << (kSubBits + 1);  // 512: exact below this
  static constexpr int kBucketCount =
      static_cast<int>(kLinearLimit) + (kMaxBits - kSubBits - 1) * (1 << kSubBits);

  Histogram();

  [[gnu::always_inline]] void Record(uint64_t value_ns) {
    if (counts_.empty()) [[unlikely]]
      Allocate();
    ++counts_[BucketOf(value_ns)];
    ++count_;
    sum_ += value_ns;
    sum_sq_ += static_cast<unsigned __int128>(value_ns) * value_ns;
    if (value_ns < min_) min_ = value_ns;
    if (value_ns > max_) max_ = value_ns;
  }
  // Records `value_ns` n times, in O(1) (e.g. the idle seconds of a gap).
  void RecordN(uint64_t value_ns, uint64_t n) {
    if (n == 0) return;
    if (counts_.empty()) Allocate();
    counts_[BucketOf(value_ns)] += n;
    count_ += n;
    sum_ += value_ns * n;
    sum_sq_ += static_cast<unsigned __int128>(value_ns) * value_ns * n;
    if (value_ns < min_) min_ = value_ns;
    if (value_ns > max_) max_ = value_ns;
  }
  void Merge(const Histogram& other);
  void Reset();

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  uint64_t sum() const { return sum_; }
  double Mean() const;
  double Stddev() const;  // population standard deviation, exact
  // p in [0, 100]. Returns 0 for an empty histogram.
  double Percentile(double p) const;

  // Non-empty buckets as (lower bound ns, count), ascending.
  std::vector<std::pair<uint64_t, uint64_t>> NonEmptyBuckets() const;
  // Rebuilds from NonEmptyBuckets() plus the exact moments (used when loading stored results).
  static Histogram FromBuckets(const std::vector<std::pair<uint64_t, uint64_t>>& buckets,
                               uint64_t min_ns, uint64_t max_ns, uint64_t sum_ns,
                               double sum_sq_ns2);
  double sum_sq() const { return static_cast<double>(sum_sq_); }

  // Branch-free: with msb the highest set bit of v and s = max(msb - kSubBits, 0), the bucket
  // is (s << kSubBits) + (v >> s) (for v < 512, s = 0 and the bucket is v), capped at the last.
  // The highest bit of v | 511 is max(msb, kSubBits), which gives s without a clamp (and
  // clz ^ 63 is 63 - clz, which compilers emit as one bsr).
  static int BucketOf(uint64_t v) {
    const int s = (__builtin_clzll(v | (kLinearLimit - 1)) ^ 63) - kSubBits;
    const uint64_t b = (static_cast<uint64_t>(s) << kSubBits) + (v >> s);
    return static_cast<int>(b < kBucketCount - 1 ? b : kBucketCount - 1);
  }
  static uint64_t BucketLow(int index);
  static uint64_t BucketWidth(int index);

 private:
  void Allocate() { counts_.assign(kBucketCount, 0); }
  // The buckets' counts: empty until the first value (a histogram of a direction a phase
  // never issues, or a copy of one, costs no 74 KB of zeros); kBucketCount entries from then.
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  unsigned __int128 sum_sq_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace ssdlab
