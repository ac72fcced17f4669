// The `run` use case: one workload against one target, the fio-like primitive; with MPI, one
// client (rank) of a multi-client load whose results rank 0 merges (usecase/mpi_clients.h). The
// CLI parses the flags into a RunRequest and prints the RunOutcome.
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
#include "usecase/console.h"
#include "usecase/mpi_clients.h"
#include "usecase/options.h"
#include "usecase/targets.h"
#include "workload/parse.h"
#include "workload/spec.h"

namespace ssdlab::usecase {

struct RunOutcome;

// A live view of the phase (the CLI's status line on a terminal).
class RunProgress {
 public:
  virtual ~RunProgress() = default;
  virtual void OnInterval(const IntervalSample& s) = 0;
  // The phase has ended (clear the status line).
  virtual void PhaseEnded() = 0;
};

struct RunRequest {
  std::string target;       // composed (with MPI: this rank's, %r/%h replaced)
  uint64_t size_bytes = 0;  // --size; 0 = as the target is
  WorkloadArgs workload;
  EngineKind engine = EngineKind::kIoUring;
  std::string engine_name = "io_uring";
  EngineOptions engine_options;
  bool engine_flags_given = false;  // any of the real engine's flags (refused on a simulator)
  bool buffered = false, destructive = false;
  bool prefill = false;  // one sequential pass over the range first, not measured
  uint64_t temp_interval_ns = 1'000'000'000;
  std::vector<std::string> argv;  // the command line, for the document
  // --db: the results database the run is stored in as a run of kind "run" (usecase/stored_run.h;
  // with MPI, by rank 0: the merged result); "" = not stored. --run: its name, refused when
  // taken before anything is measured; "" = run-YYYYMMDD-HHMMSS (-2, -3, ... while taken).
  std::string db, run;
  // The outputs besides the target, as (what, path): checked with the target's files first.
  std::vector<std::pair<std::string, std::string>> outputs;
  MpiClients* mpi = nullptr;  // one rank of a multi-client load
  bool range_per_rank = false;
  const std::atomic<bool>* stop = nullptr;
  RunProgress* progress = nullptr;
  Console* console = nullptr;  // REQUIRED
  // --lat-log: opens the sink of every measured I/O, once the workload is resolved and before
  // the target is opened (unset: none).
  std::function<Result<IoLogSink*>()> open_io_log;
  // Called on the rank that reports (every run but an MPI rank other than 0), once the document
  // is built and before the target's use ends: writes the outputs. A failure keeps a simulated
  // drive's state file as it was (EndTargetUse).
  std::function<Status(RunOutcome&)> write_outputs;
};

struct RunOutcome {
  bool reports = true;  // false: an MPI rank other than 0 (rank 0 reports for all)
  PhaseResult result;   // the phase's (rank 0 of MPI: the merged aggregate)
  WorkloadSpec spec;
  TargetInfo target;
  int clients = 1;  // MPI ranks
  double start_skew_ns = 0;
  nlohmann::json health;     // temperature and SMART around the phase
  results::RunDocument doc;  // the `run` document (reports only)
  std::string run;           // the stored run's name ("" when not stored)
  CommandEnd end;
};

// Every option of `ssdlab run` that shapes the request, once (usecase/options.h): the target's
// size, the workload, the engine and its flags (each of which also sets engine_flags_given),
// --prefill and --temp-interval, with the defaults read from a default RunRequest. The command
// line registers them and a job file's sections apply them to the flags they translate to.
using RunDef = OptionDef<RunRequest>;
const std::vector<RunDef>& RunOptionDefs();

// Runs the workload. An error is a failure before the phase ended well enough to report (bad
// input, an unsafe target, a failed --prefill, a failed phase, no completed I/O): nothing was
// written out.
Result<RunOutcome> Run(const RunRequest& request);

}  // namespace ssdlab::usecase
