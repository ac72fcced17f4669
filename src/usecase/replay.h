// The `replay` use case: a block trace replayed through the Backend seam (real targets in wall
// time, simulated drives in virtual time) into a run document with a `replay` object (the trace,
// the timing, how late submissions were, recorded against replayed latency), stored as a run of
// kind "replay" when a database is given. The CLI parses the flags into a ReplayRequest and
// prints the ReplayOutcome.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "engine/engine.h"
#include "results/run_document.h"
#include "stats/phase_result.h"
#include "trace/replay_source.h"
#include "trace/trace.h"
#include "usecase/console.h"
#include "usecase/options.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {

struct ReplayOutcome;

struct ReplayRequest {
  std::string trace;
  std::string target;       // composed
  uint64_t size_bytes = 0;  // --size; 0 = as the target is
  std::string range = "0%-100%";
  trace::TraceOptions trace_options;
  trace::ReplayOptions replay_options;   // its range and sizes are set from the target
  std::string timing_text = "original";  // as given, for the stored config and the text
  std::string event_text = "queue", remap_text = "none";
  uint32_t qd = 32, jobs = 1;
  std::string max_bs_text = "1MiB";  // as given, for messages
  uint64_t max_bs = 1 << 20, lag_limit_ns = 1'000'000, interval_ns = 1'000'000'000;
  EngineKind engine = EngineKind::kIoUring;
  std::string engine_name = "io_uring";
  bool buffered = false, destructive = false;
  std::string db, run;  // db "" = not stored; run "" = replay-DATE-TIME
  // The outputs besides the database, as (what, path): registered with the trace, the target
  // and the database and checked before anything is opened (usecase/paths.h).
  std::vector<std::pair<std::string, std::string>> outputs;
  // --lat-log: opens the sink of every measured I/O, once the trace and the target are checked
  // and before the database is opened (unset: none).
  std::function<Result<IoLogSink*>()> open_io_log;
  const std::atomic<bool>* stop = nullptr;
  Console* console = nullptr;  // REQUIRED
  // Called once the replay is stored, before the target's use ends: writes the outcome's
  // outputs. A failure keeps a simulated drive's state file as it was (EndTargetUse).
  std::function<Status(ReplayOutcome&)> write_outputs;
};

struct ReplayOutcome {
  PhaseResult result;
  trace::TraceRequestSource::Counts counts;
  std::string format;  // the trace's format
  TargetInfo target;
  uint64_t max_io_bytes = 0;
  bool timed = false;           // replayed at the trace's times (not as fast as possible)
  bool behind = false;          // timed, and the p99 submission lag was above the limit
  Histogram recorded;           // the trace's recorded latencies, all directions
  results::ReplayDocument doc;  // the `run` document with `replay`
  std::string run;              // the stored run's name ("" when not stored)
  CommandEnd end;
};

// Every option of `ssdlab replay` that shapes the request, once (usecase/options.h): the
// trace's reading, the timing, the range and sizes, the engine, with the defaults read from a
// default ReplayRequest. The command line registers them; Replay checks what they leave
// together (--max-bs at most 64MiB, --qd within io_uring's ring).
using ReplayDef = OptionDef<ReplayRequest>;
const std::vector<ReplayDef>& ReplayOptionDefs();

// Replays the trace. An error is a failure before the phase ended (bad input, an unsafe or
// missing target, a malformed trace, a failed phase): the stored run, if created, is marked
// failed. Otherwise the outcome says how it went.
Result<ReplayOutcome> Replay(const ReplayRequest& request);

}  // namespace ssdlab::usecase
