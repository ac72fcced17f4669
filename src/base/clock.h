// Monotonic wall clock in nanoseconds (CLOCK_MONOTONIC through the vDSO, about 20 ns a call).
#pragma once

#include <time.h>

#include <cstdint>

namespace ssdlab {

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// Seconds since the epoch, for timestamps in results.
inline double UnixTimeS() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

}  // namespace ssdlab
