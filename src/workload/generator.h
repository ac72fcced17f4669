// Deterministic request generators: for a given spec, job index and seed, the sequence of
// (direction, offset, size) is always the same. No I/O, no allocation after construction.
#pragma once

#include <cstdint>
#include <vector>

#include "base/rng.h"
#include "workload/spec.h"

namespace ssdlab {

// Zipf-distributed ranks in [1, n] with exponent s (> 0, != 1), by rejection-inversion
// (Hörmann & Derflinger 1996, "Rejection-inversion to generate variates from monotone
// discrete distributions"; the form used by Apache Commons RNG). O(1) per sample, no table,
// so n may be in the billions.
class ZipfSampler {
 public:
  ZipfSampler(uint64_t n, double s);
  uint64_t Sample(Rng& rng) const;

 private:
  double H(double x) const;
  double HInverse(double x) const;
  double h(double x) const;
  uint64_t n_;
  double s_;
  double h_integral_x1_;
  double h_integral_n_;
  double threshold_;
};

// Picks unit indices in [0, units) following a Distribution. Hot units of the skewed
// distributions are scattered over the range by a fixed permutation (rank * P mod units),
// as real hot data is not all at the start of a drive; zoned keeps its zones in order.
class OffsetDistribution {
 public:
  OffsetDistribution(const Distribution& dist, uint64_t units);
  uint64_t Pick(Rng& rng) const;
  // The unit a given popularity rank (0 = hottest) maps to (zipf/pareto).
  uint64_t Scatter(uint64_t rank) const;

 private:
  Distribution dist_;
  uint64_t units_;
  uint64_t multiplier_ = 1;
  ZipfSampler zipf_;
  double pareto_pow_ = 1;
  std::vector<uint64_t> zone_access_threshold_;  // cumulative, scaled to 2^32
  std::vector<uint64_t> zone_begin_;             // unit index where each zone starts (+ end)
};

class JobGenerator {
 public:
  // REQUIRES: spec validated (ResolveWorkload) and job < spec.jobs.
  JobGenerator(const WorkloadSpec& spec, uint32_t job);
  // The next request. Uniform random offsets with one block size (the common case, and the
  // simulator's hot path) take an inline path that draws exactly what NextGeneral() would.
  IoRequest Next() {
    if (!uniform_one_size_) return NextGeneral();
    IoRequest req;
    req.dir = one_dir_ ? dir_
                       : ((rng_.Next() & 0xffffffffULL) < read_threshold_ ? Direction::kRead
                                                                          : non_read_dir_);
    req.bytes = static_cast<uint32_t>(unit_bytes_);
    req.offset = range_begin_bytes_ + rng_.Below(units_) * unit_bytes_;
    return req;
  }
  // The next n requests, as n calls of Next() (cheaper per request: the state stays in
  // registers).
  void Fill(IoRequest* out, size_t n);
  // Seed for this job's data contents (distinct per job, derived from spec.seed).
  uint64_t data_seed() const { return data_seed_; }

 private:
  IoRequest NextGeneral();

  const WorkloadSpec spec_;  // a copy: callers may pass a temporary
  Rng rng_;
  uint64_t data_seed_;
  OffsetDistribution dist_;
  uint64_t unit_bytes_;
  std::vector<uint64_t> bs_threshold_;  // cumulative, scaled to 2^32
  uint64_t read_threshold_;             // scaled to 2^32
  uint64_t seq_pos_;                    // next sequential offset
  // Fast path (Next()): random pattern, uniform distribution, a single block size.
  bool uniform_one_size_;
  Direction non_read_dir_;  // kWrite, or kTrim for trim workloads
  bool one_dir_;            // read_pct 0 or 100: every request goes to dir_, without a draw
  Direction dir_;
  uint64_t range_begin_bytes_;
  uint64_t units_;  // block-size units in the range (as OffsetDistribution's)
};

}  // namespace ssdlab
