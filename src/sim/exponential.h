// Exponential draws in whole nanoseconds without a C library call on the hot path.
//
// The simulator's random delays are static_cast<uint64_t>(-mean_ns * std::log(k * 2^-53)) for
// a uniform integer k in [1, 2^53] (sim/device.h ExponentialNs). Calling glibc's log for each
// of them was a tenth of the simulator's instructions on a write workload, and more of its
// time (a call through the PLT per draw). Only the truncated value matters, so the draw is
// computed from an inline approximation of -log(u) whose error is far below the slack allowed
// below; when the approximate value is farther than that slack from every integer, its integer
// part is the one the formula above gives, whatever the C library's rounding. Otherwise (for
// a mean of a few microseconds, about one draw in several million) the formula itself is
// evaluated. The drawn values, and so the simulator's outputs, are bit for bit those of the
// plain formula.
//
// The approximation: k = 2^n * m with m in [1, 2), a table of 256 points c_i = 1/(1 +
// (i + 0.5)/256) with log(c_i) (computed with std::log at start-up) indexed by the next 8 bits
// of m, and log(m) = log(m * c_i) - log(c_i) with log(1 + r), |r| < 2^-9, by its series to r^4
// (truncation error below r^5 / 5 < 6e-15; rounding errors a few units in the last place of
// values below 37). Its absolute error is below 5 * 10^-14. The slack is mean_ns * 38 * 2^-40
// (-log u is at most 36.8), hundreds of times that, and glibc's error (under one unit in the
// last place) and the product's rounding besides. The draw is truncated from the approximate
// value itself, and the check (that the value is not within the slack of an integer) is a
// predicted branch beside it, off the chain of dependent operations that the drawn time
// starts.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace ssdlab::sim {

class ExponentialTable {
 public:
  ExponentialTable() {
    for (uint32_t i = 0; i < kPoints; ++i) {
      c_[i] = 1.0 / (1.0 + (i + 0.5) / kPoints);
      log_c_[i] = std::log(c_[i]);
    }
  }
  // -log(k * 2^-53) within 5 * 10^-14, for k in [1, 2^53].
  [[gnu::always_inline]] double NegLog(uint64_t k) const {
    const int lead = 63 - __builtin_clzll(k);  // k in [2^lead, 2^(lead + 1))
    const uint64_t top = k << (63 - lead);     // k's leading bit at bit 63
    const uint32_t i = static_cast<uint32_t>(top >> 55) & (kPoints - 1);
    // m = k / 2^lead, exactly: the bits below the leading one (at most 52 of them) as its
    // mantissa.
    const double m = std::bit_cast<double>(((top << 1) >> 12) | (uint64_t{1023} << 52));
    const double r = m * c_[i] - 1.0;
    // log(1 + r) = r - r^2/2 + r^3/3 - r^4/4, as (r - r^2/2) + r^3 (1/3 - r/4): two short
    // chains instead of Horner's one long one.
    const double r2 = r * r;
    const double log1p_r = (r - 0.5 * r2) + (r2 * r) * (1.0 / 3.0 - 0.25 * r);
    return (static_cast<double>(53 - lead) * kLn2 + log_c_[i]) - log1p_r;
  }

 private:
  static constexpr uint32_t kPoints = 256;
  static constexpr double kLn2 = 0.6931471805599453094;
  std::array<double, kPoints> c_;
  std::array<double, kPoints> log_c_;
};

inline const ExponentialTable kExponentialTable;

// static_cast<uint64_t>(-mean_ns * std::log(static_cast<double>(k) * 0x1.0p-53)), bit for bit.
// REQUIRES: k in [1, 2^53]; mean_ns > 0 and finite, and mean_ns * 37 < 2^62.
[[gnu::always_inline]] inline uint64_t TruncatedExponentialNs(uint64_t k, double mean_ns) {
  const double v = mean_ns * kExponentialTable.NegLog(k);
  const auto n = static_cast<int64_t>(v);  // (signed: one instruction; v < 2^62)
  const double fraction = v - static_cast<double>(n);
  const double slack = mean_ns * (38 * 0x1.0p-40);
  if (fraction > slack && fraction < 1.0 - slack) [[likely]]
    return static_cast<uint64_t>(n);
  return static_cast<uint64_t>(-mean_ns * std::log(static_cast<double>(k) * 0x1.0p-53));
}

}  // namespace ssdlab::sim
