// An external source of requests for a phase (trace replay): when WorkloadSpec::source is set,
// backends take every request from it instead of their generators, and the phase ends when the
// source is exhausted (runtime and io size limits still apply when set).
#pragma once

#include <cstddef>
#include <cstdint>

#include "workload/spec.h"

namespace ssdlab {

// Due times of a timed source stay below this (2^62 ns, about 146 years after the phase's
// start), so that a backend can add latencies and its own clock to them without overflow.
inline constexpr uint64_t kMaxSchedNs = uint64_t{1} << 62;

// One request and, for a timed source, when it is due.
struct SourcedRequest {
  IoRequest req;
  // Due time after the phase's start; non-decreasing, < kMaxSchedNs; unused if !timed().
  uint64_t sched_ns = 0;
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // Writes up to `n` (> 0) requests to `out` and returns how many; 0 means exhausted (every
  // later call returns 0 too). Thread-safe: several jobs may pull from one source, each
  // request going to exactly one of them. Requests lie inside the spec's active range and are
  // aligned to the target's logical block; bytes > 0 and <= spec.MaxBlockBytes().
  virtual size_t Fill(SourcedRequest* out, size_t n) = 0;
  // True: open loop, each request is submitted at its sched_ns (or as soon after it as a free
  // slot allows) and its latency counts from sched_ns. False: closed loop (as fast as possible).
  virtual bool timed() const = 0;
};

}  // namespace ssdlab
