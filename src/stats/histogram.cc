#include "stats/histogram.h"

#include <algorithm>
#include <cmath>

namespace ssdlab {

Histogram::Histogram() = default;

uint64_t Histogram::BucketLow(int index) {
  if (index < static_cast<int>(kLinearLimit)) return static_cast<uint64_t>(index);
  int rel = index - static_cast<int>(kLinearLimit);
  int octave = rel >> kSubBits;  // 0 for values in [512, 1024)
  uint64_t sub = static_cast<uint64_t>(rel & ((1 << kSubBits) - 1));
  int shift = octave + 1;
  return ((uint64_t{1} << kSubBits) + sub) << shift;
}

uint64_t Histogram::BucketWidth(int index) {
  if (index < static_cast<int>(kLinearLimit)) return 1;
  int octave = (index - static_cast<int>(kLinearLimit)) >> kSubBits;
  return uint64_t{1} << (octave + 1);
}

void Histogram::Merge(const Histogram& other) {
  if (counts_.empty()) {
    counts_ = other.counts_;
  } else if (!other.counts_.empty()) {
    for (int i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  }
  count_ += other.count_;
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void Histogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);  // keeps the allocation for the next values
  count_ = 0;
  sum_ = 0;
  sum_sq_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
}

double Histogram::Mean() const {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

double Histogram::Stddev() const {
  if (count_ < 2) return 0.0;
  // Exact integer arithmetic: n * sum_sq - sum^2 = n^2 * variance.
  unsigned __int128 n = count_;
  unsigned __int128 s = sum_;
  unsigned __int128 num = n * sum_sq_ - s * s;
  long double var = static_cast<long double>(num) / (static_cast<long double>(count_) * count_);
  return static_cast<double>(std::sqrt(var));
}

double Histogram::Percentile(double p) const {
  if (count_ == 0) return 0.0;
  if (p <= 0) return static_cast<double>(min());
  if (p >= 100) return static_cast<double>(max_);
  // Nearest rank: the rank-th smallest value, rank in [1, count].
  uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int i = 0; i < kBucketCount; ++i) {
    uint64_t c = counts_[i];
    if (c == 0) continue;
    if (seen + c >= rank) {
      // Spread the bucket's c values evenly over its width; take the midpoint of the share
      // that belongs to this rank.
      double frac = (static_cast<double>(rank - seen) - 0.5) / static_cast<double>(c);
      double v = static_cast<double>(BucketLow(i)) + frac * static_cast<double>(BucketWidth(i));
      if (BucketWidth(i) == 1) v = static_cast<double>(BucketLow(i));
      return std::clamp(v, static_cast<double>(min()), static_cast<double>(max_));
    }
    seen += c;
  }
  return static_cast<double>(max_);
}

std::vector<std::pair<uint64_t, uint64_t>> Histogram::NonEmptyBuckets() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (int i = 0; i < static_cast<int>(counts_.size()); ++i) {
    if (counts_[i]) out.emplace_back(BucketLow(i), counts_[i]);
  }
  return out;
}

Histogram Histogram::FromBuckets(const std::vector<std::pair<uint64_t, uint64_t>>& buckets,
                                 uint64_t min_ns, uint64_t max_ns, uint64_t sum_ns,
                                 double sum_sq_ns2) {
  Histogram h;
  if (!buckets.empty()) h.Allocate();
  for (auto [low, c] : buckets) {
    h.counts_[BucketOf(low)] += c;
    h.count_ += c;
  }
  if (h.count_) {
    h.min_ = min_ns;
    h.max_ = max_ns;
  }
  h.sum_ = sum_ns;
  h.sum_sq_ = static_cast<unsigned __int128>(sum_sq_ns2);
  return h;
}

}  // namespace ssdlab
