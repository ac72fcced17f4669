// What one phase of load measured: per-direction counts and latency histograms, a time series,
// CPU use, errors. Produced by a Backend (real or simulated), consumed by suites, the store and
// the report. Only the measured part (after ramp) is counted.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stats/histogram.h"

namespace ssdlab {

struct DirectionStats {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  Histogram latency;  // ns, from submission (or scheduled time when rate-limited) to completion

  void Merge(const DirectionStats& o) {
    ios += o.ios;
    bytes += o.bytes;
    latency.Merge(o.latency);
  }
};

// One time-series point: what completed in (t_begin_ns, t_end_ns] after the measured start.
struct IntervalSample {
  uint64_t t_begin_ns = 0;
  uint64_t t_end_ns = 0;
  struct Dir {
    uint64_t ios = 0;
    uint64_t bytes = 0;
    uint64_t lat_sum_ns = 0;
    uint64_t lat_max_ns = 0;
    // A timed request source's (a replay's) submission lag of these I/Os: how much later than
    // its scheduled time each was submitted (PhaseResult::submit_lag), summed and the largest.
    // Zero for every other source, which has no schedule.
    uint64_t lag_sum_ns = 0;
    uint64_t lag_max_ns = 0;
  };
  std::array<Dir, 3> dirs;  // indexed by Direction

  void Merge(const IntervalSample& o) {
    for (size_t i = 0; i < dirs.size(); ++i) {
      dirs[i].ios += o.dirs[i].ios;
      dirs[i].bytes += o.dirs[i].bytes;
      dirs[i].lat_sum_ns += o.dirs[i].lat_sum_ns;
      if (o.dirs[i].lat_max_ns > dirs[i].lat_max_ns) dirs[i].lat_max_ns = o.dirs[i].lat_max_ns;
      dirs[i].lag_sum_ns += o.dirs[i].lag_sum_ns;
      if (o.dirs[i].lag_max_ns > dirs[i].lag_max_ns) dirs[i].lag_max_ns = o.dirs[i].lag_max_ns;
    }
  }
};

// The edge of a measured window that ended by its runtime: the measured I/Os (issued inside the
// window) still in flight when it ended. The backend issues nothing more and waits for them up
// to a bound (PhaseRecorder::kEdgeWaitNs of its clock): those done by then are counted with their
// true latency (the measured length adds their drain at the queue's depth); those not are left out
// of the counts but reported here. Nothing is dropped silently.
struct EdgeStats {
  uint64_t in_flight = 0;         // measured I/Os in flight at the window's end
  uint64_t longest_ns = 0;        // the longest latency among those counted
  uint64_t abandoned = 0;         // of in_flight, not done within the bound: not counted
  uint64_t abandoned_age_ns = 0;  // the oldest of those: its age at the bound
  uint64_t from_ramp = 0;         // the ramp's I/Os that completed in the window, counted by it
  // Slots the previous round's I/Os (counted there) held into the window; when `held_all` is
  // set they held every slot for the whole runtime (a stall longer than the window): the window
  // issued nothing and has no I/O and no measured time of its own (both are the previous round's).
  uint64_t held = 0;
  bool held_all = false;

  void Merge(const EdgeStats& o) {
    in_flight += o.in_flight;
    from_ramp += o.from_ramp;
    held += o.held;
    held_all = held_all || o.held_all;
    longest_ns = longest_ns > o.longest_ns ? longest_ns : o.longest_ns;
    abandoned += o.abandoned;
    abandoned_age_ns =
        abandoned_age_ns > o.abandoned_age_ns ? abandoned_age_ns : o.abandoned_age_ns;
  }
};

struct VerifyRecord {
  uint64_t offset = 0;
  std::string problem;
  uint64_t found_offset = 0;
  uint64_t generation = 0;
};

struct PhaseResult {
  std::array<DirectionStats, 3> dirs;  // indexed by Direction
  uint64_t measured_ns = 0;            // length of the measured part (wall or virtual time)
  EdgeStats edge;                      // the measured window's edge (zero: ended by bytes)
  std::vector<IntervalSample> intervals;
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
  uint64_t io_errors = 0;
  std::vector<std::string> errors;  // first few distinct error messages
  uint64_t verify_failures = 0;
  std::vector<VerifyRecord> verify_records;  // first 100 failing units
  bool interrupted = false;
  std::vector<std::string> notes;  // what the backend did besides the phase (e.g. a fill)
  // Backend-specific counters (the simulator's "sim" object); name -> value, in order.
  std::string counters_name;
  std::vector<std::pair<std::string, double>> counters;
  // Timed request sources only (WorkloadSpec::source): how late each measured request was
  // submitted against its scheduled time, ns. Empty otherwise.
  Histogram submit_lag;

  DirectionStats Total() const {
    DirectionStats t;
    for (const auto& d : dirs) t.Merge(d);
    return t;
  }
  double Iops(const DirectionStats& d) const {
    return measured_ns ? static_cast<double>(d.ios) * 1e9 / static_cast<double>(measured_ns) : 0;
  }
  double BytesPerS(const DirectionStats& d) const {
    return measured_ns ? static_cast<double>(d.bytes) * 1e9 / static_cast<double>(measured_ns) : 0;
  }
};

}  // namespace ssdlab
