// Helpers shared by the store's unit tests.
#pragma once

#include <cstdint>

#include "stats/phase_result.h"

namespace ssdlab::storetest {

// A phase of `reads` 4 KiB reads measured over `measured_ns`, the i-th (from 1) taking
// `base_ns` + i x `step_ns`: the read side of the phases the tests store and read back.
inline PhaseResult ReadPhase(uint64_t measured_ns, uint64_t reads, uint64_t base_ns,
                             uint64_t step_ns) {
  PhaseResult r;
  r.measured_ns = measured_ns;
  for (uint64_t i = 1; i <= reads; ++i) {
    r.dirs[0].ios++;
    r.dirs[0].bytes += 4096;
    r.dirs[0].latency.Record(base_ns + i * step_ns);
  }
  return r;
}

}  // namespace ssdlab::storetest
