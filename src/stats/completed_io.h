// The rule that a phase of no I/O gives no figure, shared by everything that turns a phase into
// stored or printed figures (the suite's Runner, `ssdlab run`).
#pragma once

#include <string>

#include "base/status.h"
#include "base/units.h"
#include "stats/phase_result.h"

namespace ssdlab {

// A measured phase that completed no I/O has no figure to give (its IOPS and MB/s would be
// 0 for want of time, not of speed): Ok when `r` completed at least one I/O or was
// interrupted, else an IoError naming `phase`, its measured time and `remedy` (what makes the
// phase long enough, e.g. "a longer --runtime").
inline Status CheckCompletedIo(const PhaseResult& r, const std::string& phase,
                               const std::string& remedy) {
  if (r.interrupted || r.Total().ios > 0) return Status::Ok();
  return Status::Io(phase + ": no I/O completed in its measured " +
                    FormatNs(static_cast<double>(r.measured_ns)) +
                    ": the phase is too short for one I/O on this target; give " + remedy);
}

}  // namespace ssdlab
