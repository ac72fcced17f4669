// The `pts` use case: a SNIA PTS battery on one target, stored in a results database, new or
// resumed. The CLI parses the flags into a PtsRequest and prints the PtsOutcome; everything
// between (the options' resolution, the resume safety rules, the paths' check, opening the
// target with its safety checks, the stored run, the end of the target's use) is here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "device/device_backend.h"
#include "results/pts_options.h"
#include "store/store.h"
#include "suite/pts.h"
#include "usecase/console.h"
#include "usecase/options.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {

using PtsDef = OptionDef<PtsOptions>;

// Every option of `ssdlab pts` that shapes the battery, once. --spec comes first: it sets the
// defaults the others override (ResolvePtsOptions).
const std::vector<PtsDef>& PtsOptionDefs();
// The spec's defaults, then every option given, in declaration order; then the cross checks.
Result<PtsOptions> ResolvePtsOptions(const OptionTexts& texts);

// With --resume, the options that only say how to run it this time; every other option given
// must leave the stored run's resolved options as they are (CheckResumeOptions).
const std::vector<std::string>& ResumeOnlyOptions();

// A stored run's arguments as given (config.args: a flag's key -> its text); Invalid naming the
// key when the document holds something else there.
Result<OptionTexts> StoredArgs(const RunRecord& run);

// What was given with --resume, for CheckResumeOptions.
struct ResumeGiven {
  std::string resume;              // the run to continue
  std::string run;                 // --run as given
  std::string target;              // the composed --target as given
  OptionTexts options;             // the battery's options as text
  std::vector<std::string> flags;  // long names of the options given on the command line
};
// Refuses options given with --resume that would change the stored run's resolved options
// (`stored`; `stored_args`: its arguments as text, for the message). Values that are spelled
// differently but mean the same ("500ms" and "0.5s") are the same.
Status CheckResumeOptions(const ResumeGiven& given, const OptionTexts& stored_args,
                          const PtsOptions& stored);

// The stored identity of a resumed run's target against the one found now: a device node that
// points at another disk, or a simulated drive with other parameters, must never merge two
// drives' rounds into one run (Refused naming what differs).
Status CheckResumeIdentity(const RunRecord& run, const TargetInfo& now,
                           const std::optional<DeviceIdentity>& id);

// A target opened for the battery with the usual safety checks (the device's identity, the
// --confirm of a whole-device purge, the device layer's purge methods).
struct OpenedTarget {
  std::unique_ptr<Backend> backend;
  std::optional<DeviceIdentity> identity;
};
Result<OpenedTarget> OpenPtsTarget(const std::string& target, bool destructive,
                                   const std::string& confirm);

// How a battery is launched besides the usual single process: a backend opened already (pass 2
// of a spread run, usecase/sim_spread.h), and a wrapper of the opened target (rank 0 of --mpi),
// which may add to the run's context (`stored` is a resumed run's context).
struct PtsLaunch {
  std::unique_ptr<Backend> opened;
  std::function<Result<std::unique_ptr<Backend>>(
      std::unique_ptr<Backend>, const nlohmann::json& stored, nlohmann::json& context)>
      wrap;
};

struct PtsOutcome;

struct PtsRequest {
  std::string target;  // the composed target; with `resume`, "" takes the stored run's
  std::string db;      // the results database (created unless resuming)
  std::string run;     // the new run's name ("" = pts-DATE-TIME)
  std::string fleet;   // the fleet the new run belongs to ("" alone)
  ResumeGiven given;   // the options as text and what was given (`given.resume`: resume it)
  bool mpi = false;    // a multi-client battery (must match a resumed run)
  bool destructive = false;
  std::string confirm;  // a block device's serial (or WWN)
  uint64_t temp_interval_ns = 1'000'000'000;
  // The files the command writes besides the database, as (what, path): checked with the
  // target's and the database's before anything is created (usecase/paths.h).
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<std::pair<std::string, std::string>> inputs;
  const std::atomic<bool>* stop = nullptr;
  ProgressSink* progress = nullptr;
  // A new battery on a simulated drive (no state=, a purge): its tests run on this many
  // threads at once, each on its own copy of the drive, and are stored as one thread stores
  // them (SpreadOverThreads); 0 = SpreadThreadsFor's choice, 1 = one thread.
  int sim_threads = 1;
  Console* console = nullptr;  // the start line and notes (REQUIRED)
  PtsLaunch* launch = nullptr;
  // Called once the battery has ended and its status is recorded, before the target's use ends:
  // writes the outcome's outputs (JSON, report). A failure keeps a simulated drive's state file
  // as it was (EndTargetUse).
  std::function<Status(PtsOutcome&)> write_outputs;
};

struct PtsOutcome {
  std::string run;
  int64_t run_id = 0;
  std::string target;
  bool resumed = false;
  Status battery;  // the suite's status: ok, Interrupted, or why it failed
  Result<nlohmann::json> doc = Status::Invalid("not read");  // the stored run read back
  CommandEnd end;  // no `stored`: the battery stores as it goes (`battery`)
};

// Every path of the battery (usecase/paths.h): its target's files, the database, the outputs
// and the inputs; checked before the database is created or the target opened.
Status CheckPtsPaths(const PtsRequest& request);

// Runs the battery. An error is a failure before the battery started (bad options, a refused
// resume, an unsafe target, a database that cannot be opened): nothing was run. Otherwise the
// outcome says how the battery ended.
Result<PtsOutcome> RunPts(PtsRequest request);

// The end of a stored run: records its status (RunStatusName of `st`; a failure to record it
// goes to `console`) and reads the run back.
Result<nlohmann::json> EndStoredRun(Store& store, int64_t run_id, const std::string& run,
                                    const Status& st, Console& console);

}  // namespace ssdlab::usecase
