// The `profile` use case: a review-lab profile (suite/profile.h) on one target, stored in a
// results database as a run of kind "profile". The CLI parses the flags into a ProfileRequest and
// prints the ProfileOutcome; everything between (the profile's definition and options, the paths'
// check, opening the target with its safety checks, --prefill, the stored run, the end of the
// target's use) is here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "suite/profile.h"
#include "usecase/console.h"
#include "usecase/options.h"
#include "usecase/sim_spread.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {

using ProfileOptionDef = OptionDef<ProfileOptions>;

// Every option of `ssdlab profile` that shapes what is measured, once.
const std::vector<ProfileOptionDef>& ProfileOptionDefs();

// A profile named by a path or a .toml name is a file; anything else a built-in profile.
bool LooksLikeProfileFile(const std::string& name);
// The profile `name`: the file (LoadProfileFile) or the built-in one (BuiltinProfile).
Result<ProfileDef> LoadProfileDef(const std::string& name);

// The directory of a fileio run must be a writable directory on a disk filesystem (NotFound,
// Invalid, Refused or Io naming the directory otherwise).
Status CheckFileioDir(const std::string& dir);

struct ProfileOutcome;

struct ProfileRequest {
  std::string name;  // a built-in profile or a .toml profile file
  // --target as given, composed into one target (an array with a layout: ComposeTarget).
  std::vector<std::string> targets;
  std::string layout, chunk;
  std::string db;                    // the results database (created when missing)
  std::string run;                   // the run's name ("" = profile-NAME-DATE-TIME)
  OptionTexts options;               // the profile's options as text (ProfileOptionDefs)
  std::string target_size, files;    // --target-size and --files as given ("" = default)
  std::string temp_interval = "1s";  // as given
  std::string confirm;               // a block device's serial (or WWN), for purges
  bool destructive = false;
  bool prefill = false;  // one unmeasured sequential pass over the whole target first
  // The files the command writes besides the database, as (what, path): checked with the
  // profile file's, the target's and the database's before anything is opened (usecase/paths.h).
  std::vector<std::pair<std::string, std::string>> outputs;
  const std::atomic<bool>* stop = nullptr;
  ProgressSink* progress = nullptr;
  Console* console = nullptr;  // the start line and notes (REQUIRED)
  // Called as soon as the profile has ended, before its status is recorded (clears a progress
  // line).
  std::function<void()> ended;
  // Called once the profile has ended and its status is recorded, before the target's use ends:
  // writes the outcome's outputs. A failure keeps a simulated drive's state file as it was
  // (EndTargetUse).
  std::function<Status(ProfileOutcome&)> write_outputs;
};

struct ProfileOutcome {
  std::string run;
  int64_t run_id = 0;
  std::string target;  // the composed target
  Status measured;     // --prefill's and the profile's status: ok, Interrupted, or why it failed
  Result<nlohmann::json> doc = Status::Invalid("not read");  // the stored run read back
  CommandEnd end;  // no `stored`: the profile stores as it goes (`measured`)
};

// Runs the profile. An error is a failure before it started (bad options, an unsafe target, a
// database that cannot be opened; a target that could not be opened is Io when the failure was
// one, Invalid otherwise): nothing was run. Otherwise the outcome says how it ended.
// `opened`: the backend to run on, opened already (pass 2 of a spread), or null.
Result<ProfileOutcome> RunProfile(ProfileRequest r, std::unique_ptr<Backend> opened = nullptr);

// `profile` on one simulated drive under mpirun (usecase/sim_spread.h): the op-advisor's points
// spread over the ranks; any other profile, or a request that cannot be spread, runs on rank 0
// alone. `run` is rank 0's profile the usual way (its outputs written, its exit status
// returned), on `opened` when not null (pass 2's replayer).
using RunProfileOn = std::function<int(std::unique_ptr<Backend> opened)>;
// The spread as RunSpread runs it over `ranks` ranks: spread (a note says over how many ranks),
// or why not (a note says why, unless the options or the target are bad: rank 0's profile then
// says what is wrong, as one process would).
SpreadCommand ProfileSpreadCommand(const ProfileRequest& r, int ranks, RunProfileOn run);
// RunSpread of ProfileSpreadCommand; one rank runs the profile the usual way. Returns rank 0's
// exit status on every rank; kUnsupported, said, when not started by mpirun.
int RunSpreadProfile(const ProfileRequest& r, const RunProfileOn& run);

}  // namespace ssdlab::usecase
