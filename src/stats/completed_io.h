// The rule that a phase of no I/O gives no figure, shared by everything that turns a phase into
// stored or printed figures (the suite's Runner, `ssdlab run`).
#pragma once

#include <string>

#include "base/status.h"
#include "base/units.h"
#include "stats/phase_result.h"

namespace ssdlab {

// A measured phase that completed no I/O has no figure to give: Ok when `r` completed at
// least one I/O or was interrupted, else an IoError naming `phase`, its measured time and why
// none counts. Since the I/Os in flight at a window's end are waited for (the edge rule of
// backend/phase_recorder.h), that is when every one was abandoned, slower than the wait's
// bound (r.edge), or when the window issued none; `remedy` (e.g. "a longer --runtime") is
// suggested for the latter.
inline Status CheckCompletedIo(const PhaseResult& r, const std::string& phase,
                               const std::string& remedy) {
  // A window held throughout by the previous round's I/Os has no I/O and no time of its own,
  // rightly: its figures are zero, the stall being in the previous round's (EdgeStats::held_all).
  if (r.interrupted || r.Total().ios > 0 || r.edge.held_all) return Status::Ok();
  const std::string head =
      phase + ": no I/O completed in its measured " + FormatNs(static_cast<double>(r.measured_ns));
  if (r.edge.abandoned > 0)
    return Status::Io(head + ": its " + std::to_string(r.edge.abandoned) +
                      " I/O(s) in flight at the end were still not done " +
                      FormatNs(static_cast<double>(r.edge.abandoned_age_ns)) +
                      " after they were issued (abandoned; is the target hung?)");
  return Status::Io(head + ": the phase is too short for one I/O on this target; give " + remedy);
}

}  // namespace ssdlab
