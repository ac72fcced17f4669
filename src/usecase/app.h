// The `app` use case: an application test (apps/app.h) on a directory of the drive under test,
// or on a simulated drive served as a block device with ext4 on it (serve/served_fs.h), stored
// in the results database as a run of kind "app" with one test.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apps/app.h"
#include "base/status.h"
#include "results/app.h"
#include "usecase/console.h"

namespace ssdlab::usecase {

struct AppRequest {
  AppOptions options;  // options.dir: the directory (with `target` empty)
  // sim:PRESET[?...]: the app runs on this simulated drive, served; "" = options.dir.
  std::string target;
  bool any_dir = false;   // run where the directory's drive cannot be told
  std::string db, run;    // the results database; the run's name ("" = app-NAME-DATE-TIME)
  std::string json_path;  // --json's file, checked with the database before anything starts
  const std::atomic<bool>* stop = nullptr;
  AppProgress progress;        // the app's progress lines
  Console* console = nullptr;  // REQUIRED: the start line, the run's end
};

struct AppTestOutcome {
  std::string run;              // the stored run's name
  results::AppResults results;  // as stored (simulated_drive: the served drive's counters)
  // What went wrong besides the app, for the user's error stream: "cannot store the results:
  // ...", the served drive's warnings ("warning: ...").
  std::vector<std::string> errors;
  Status status;                              // the app's: Ok, Interrupted, or why it failed
  Result<nlohmann::json> doc = Status::Ok();  // the run read back from the store
};

// Exactly one of --dir and --target, a target that is a simulated drive, the options' ranges
// (apps/app.h ValidateAppOptions). Invalid naming the flag.
Status ValidateAppRequest(const AppRequest& request);

// The request validated, then everything checkable before anything starts (the directory and
// the drive under it, or the programs serving needs: missing ones are Io, the host cannot
// proceed), the database opened and the run created; then the app runs and its results are
// stored whatever happened (Ctrl-C included), and the run ended (EndStoredRun). Errors: what
// failed before the run was created.
Result<AppTestOutcome> RunAppTest(const AppRequest& request);

}  // namespace ssdlab::usecase
