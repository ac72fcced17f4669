// Resolves a --target string to a Backend: "sim:PRESET[?k=v&...]" is the simulator, anything
// else a file or block device. Block devices pass the safety checks before anything is opened
// for writing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "engine/engine.h"
#include "sim/sim.h"
#include "usecase/console.h"
#include "usecase/options.h"

namespace ssdlab::usecase {

struct TargetRequest {
  std::string target;
  uint64_t size_bytes = 0;   // --size; 0 = as the target is
  bool writes = false;       // the workload writes or trims
  bool destructive = false;  // --destructive
  bool direct = true;
  EngineKind engine = EngineKind::kIoUring;
  EngineOptions engine_options;  // run's --batch-*, --sqpoll, --hipri, --cpus-allowed
};

// --engine io_uring|libaio|psync, how a real target is driven, for a request O with `engine`
// (parsed) and `engine_name` (as given, and shown as the default): run's and replay's.
template <class O>
OptionDef<O> EngineKindDef() {
  return {"--engine", "io_uring|libaio|psync",
          [](const std::string&, const std::string& t, O& q) -> Status {
            SSDLAB_ASSIGN_OR_RETURN(q.engine, ParseEngineKind(t));
            q.engine_name = t;
            return Status::Ok();
          },
          [](const O& q) { return q.engine_name; }};
}

// The --target value of a command: the one target, or with --layout the array of simulated
// targets as one target string (sim/sim.h ArrayTarget). Invalid for several targets without a
// layout, or a layout with fewer than two targets.
Result<std::string> ComposeTarget(const std::vector<std::string>& targets,
                                  const std::string& layout, const std::string& chunk);

// The scale `--time-scale auto` gives a simulated drive whose preset's scale is preset_scale,
// for a test whose timed phase (a round, a profile's phase) is phase_ns: phase_ns / 10 s (each
// phase still long against the simulator's own stalls: a lazy-GC batch stalls writes for ~0.4
// s), at least 1 and at most preset_scale.
uint32_t DerivedTimeScale(uint64_t phase_ns, uint32_t preset_scale);
// --time-scale TEXT ("N" or "auto") of a command on `targets`: the number N ("auto": the scale
// the first target's query sets, else DerivedTimeScale(phase_ns, its preset's scale); 1 when it
// is not a simulated drive), and for N > 1 every target at scale=N. Invalid, naming the flag,
// for N = 0 or a number that is not one, and for N > 1 on a target that is not a simulated
// drive or sets another scale.
Result<uint32_t> ApplyTimeScale(const std::string& text, uint64_t phase_ns,
                                std::vector<std::string>& targets);

// Checks everything that can be checked without changing the target; returns its facts.
Result<TargetInfo> ProbeTarget(const TargetRequest& request);
Result<std::unique_ptr<Backend>> OpenTarget(const TargetRequest& request);
// Ends a command's use of `backend` by how the command ends (`outcome`), so that a command that
// fails saves no state: ok -> Close() (a simulated drive saves its state=); interrupted
// (Code::kInterrupted) -> Close() too, and a line to `console` saying that the state file now holds
// the drive as the interruption left it; any other error -> nothing is saved, the state file
// stays as it was before the command. Returns Close()'s status (Ok when it was not called).
Status EndTargetUse(Backend& backend, const Status& outcome, Console& console);
// How a command ended after its measurement, each ok where there was nothing to do.
struct CommandEnd {
  Status stored;   // storing the run in the database
  Status outputs;  // the request's write_outputs
  Status closed;   // the end of the target's use (EndUseAfterOutputs)
};
// EndTargetUse once the run is stored and the outputs written: by the command's `outcome`, or as
// a failure (saving no state) when storing or an output failed. Sets end.closed.
void EndUseAfterOutputs(Backend& backend, const Status& outcome, CommandEnd& end, Console& console);
// For a simulated drive with state=: one line saying whether its state was loaded (with its
// fill and write amplification so far) or is new. Empty for other targets. Call before the
// first phase.
std::string SimStateNote(const Backend& backend);

}  // namespace ssdlab::usecase
