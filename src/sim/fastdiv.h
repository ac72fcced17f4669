// Division of 32-bit values by a divisor fixed at run time, by one 128-bit multiply
// (Lemire, Kaser & Kurz 2019, "Faster remainder by direct computation"). Exact for every
// 32-bit numerator and divisor >= 1. Used on the simulator's hot path (block of a page, die of
// a page) where the divisors come from the geometry.
#pragma once

#include <cassert>
#include <cstdint>

namespace ssdlab::sim {

class FastDiv {
 public:
  FastDiv() = default;
  explicit FastDiv(uint32_t d) : d_(d), m_(UINT64_MAX / d + 1) { assert(d >= 1); }
  uint32_t Div(uint32_t x) const {
    if (d_ == 1) return x;
    return static_cast<uint32_t>((static_cast<unsigned __int128>(m_) * x) >> 64);
  }
  // No case for d == 1: m_ wraps to 0 there, and so does the result.
  uint32_t Mod(uint32_t x) const {
    const uint64_t low = m_ * x;
    return static_cast<uint32_t>((static_cast<unsigned __int128>(low) * d_) >> 64);
  }
  uint32_t divisor() const { return d_; }

 private:
  uint32_t d_ = 1;
  uint64_t m_ = 0;
};

}  // namespace ssdlab::sim
