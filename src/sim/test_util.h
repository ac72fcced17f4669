// Helpers shared by the simulator's unit tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/status.h"
#include "sim/sim.h"
#include "workload/parse.h"

namespace ssdlab::simtest {

// The value of `r`; a failure naming its message, and T{}, where it has none.
template <typename T>
T ValueOrFail(Result<T> r) {
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : T{};
}

inline std::unique_ptr<SimBackend> Open(const std::string& target) {
  return ValueOrFail(OpenSimBackend(target));
}

// A spec from textual arguments, resolved against the backend's target.
inline WorkloadSpec Spec(const SimBackend& b, const std::string& rw, const std::string& bs,
                         uint32_t qd, const std::string& io_size, const std::string& runtime = "",
                         const std::string& range = "0%-100%", uint32_t jobs = 1,
                         uint64_t seed = 1) {
  const WorkloadArgs a{.rw = rw,
                       .bs = bs,
                       .qd = qd,
                       .jobs = jobs,
                       .runtime = runtime,
                       .io_size = io_size,
                       .range = range,
                       .seed = seed,
                       .interval = "0"};
  return ValueOrFail(ResolveWorkload(a, b.info().size_bytes, b.info().logical_block_bytes));
}

inline PhaseResult RunSpec(SimBackend& b, const WorkloadSpec& spec) {
  return ValueOrFail(b.RunPhase(spec, RunControl{}));
}

inline double Counter(const PhaseResult& r, const std::string& name) {
  for (const auto& [k, v] : r.counters) {
    if (k == name) return v;
  }
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

inline double WriteIops(const PhaseResult& r) {
  return r.Iops(r.dirs[static_cast<size_t>(Direction::kWrite)]);
}

}  // namespace ssdlab::simtest
