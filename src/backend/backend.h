// The seam between suites and load generators: a phase (one WorkloadSpec) is run by a Backend
// and returns a PhaseResult. Real targets run it on OS threads in wall-clock time (engine/);
// the simulator runs it in virtual time (sim/). Suites never know which one they drive.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/target_info.h"
#include "stats/phase_result.h"
#include "workload/spec.h"

namespace ssdlab {

// One line of the per-I/O log (--lat-log).
struct IoRecord {
  uint64_t start_ns;  // since the phase's measured start (negative ramp I/Os are not logged)
  uint64_t offset;
  uint64_t latency_ns;
  uint32_t bytes;
  Direction dir;
};

// Receives per-I/O records in batches. Implementations must be thread-safe.
class IoLogSink {
 public:
  virtual ~IoLogSink() = default;
  virtual void Write(const IoRecord* records, size_t count) = 0;
};

struct RunControl {
  // Set (from any thread, e.g. a signal handler) to stop the phase early; the result is then
  // marked interrupted. Backends check it at least every 100 ms.
  const std::atomic<bool>* stop = nullptr;
  // Called with each finished time-series interval (all jobs merged), from the backend's
  // thread; may be empty.
  std::function<void(const IntervalSample&)> on_interval;
  IoLogSink* io_log = nullptr;  // may be null
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const TargetInfo& info() const = 0;
  // Runs one phase to completion (or until stopped). REQUIRES: spec validated against
  // info() (ResolveWorkload). Errors of individual I/Os are counted in the result; a
  // non-ok Status means the phase could not run at all.
  virtual Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl& control) = 0;
  // Leaves the target idle for `ns` (the simulator advances virtual time, letting background
  // garbage collection work).
  virtual Status Idle(uint64_t ns, const RunControl& control) = 0;
  // Returns the target to a fresh state as far as `method` allows and says what was done:
  // the simulator becomes factory-fresh; files have their range's blocks deallocated (punch
  // hole); block devices are discarded. Methods: "auto", "discard", "none"; others are the
  // device layer's and give kUnsupported here. Errors: kUnsupported, kIoError.
  virtual Result<std::string> Purge(const std::string& method, const RunControl& control) = 0;
  // True when the target keeps its state across processes (a real drive): a resumed suite
  // continues from the stored rounds. False for the simulator, whose drive state lives in
  // memory (or, with `state=`, is saved only when a command ends, so not after a SIGKILL): a
  // resumed suite replays the stored rounds (deterministically) to rebuild it.
  virtual bool persistent_state() const = 0;
  // Ends the command's use of the target; called once when a command is done with it, also
  // after an interruption. A simulated drive with `state=PATH` saves its state there. Default:
  // nothing. Errors: Io/NoSpace naming what could not be saved.
  virtual Status Close() { return Status::Ok(); }
};

}  // namespace ssdlab
