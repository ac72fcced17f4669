// Pieces shared by the commands that store runs (`pts`, `profile`, `app`): progress output,
// health hooks around each test, default run names, the end of a stored run.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "device/device_backend.h"
#include "store/store.h"
#include "suite/pts.h"
#include "usecase/runs.h"

namespace ssdlab {

// A status line on a terminal (one line per round and point otherwise), or one JSON event per
// line with --progress json; everything on stderr. A JSON event's fields that have no value
// (no cell or message yet, no steady-state distance or ETA, no measurement: iops, mean_ns and
// p99_ns of an event that measured nothing; round and max_rounds of one that is not a round)
// are null.
class CliProgress : public ProgressSink {
 public:
  CliProgress(bool json_lines, bool tty) : json_(json_lines), tty_(tty) {}
  void OnEvent(const ProgressEvent& e) override;
  // Clears the status line.
  void Done();

 private:
  bool json_, tty_;
};

// The progress of --progress MODE: nullptr for "none", JSON lines for "json" (the command's
// callback has called UseJsonLinesOnStderr), else the status line (a terminal) or a line per round.
std::unique_ptr<CliProgress> MakeProgress(const std::string& mode);

// The long names ("--round") of the options given on `cmd`'s command line.
std::vector<std::string> GivenOptions(const CLI::App* cmd);

// The options of a command that stores a run: --db (required), --run (`run_help` says its
// default), --json, --progress.
void AddStoredRunOptions(CLI::App* cmd, std::string* db, std::string* run,
                         const std::string& run_help, std::string* json_path,
                         std::string* progress);

// Says how run `run` in database `db` ended (`st`), calls `print` with the run read back (`doc`,
// when it was), and writes it to json_path when one is given ("-": stdout). Returns st, or the
// failure to write the JSON when st is ok (a failure after a failed run is printed).
Status PrintStoredRun(const std::string& run, const std::string& db, Status st,
                      const Result<nlohmann::json>& doc, const std::string& json_path,
                      const std::function<void(const nlohmann::json& doc)>& print);

// The end of run `run` (id run_id) in database `db`, which ended with `st`: records its status,
// says it on stderr, calls `print` with the run read back as JSON (Store::RunJson), and writes
// that JSON to json_path when one is given ("-": stdout). Returns st, or the failure to write
// the JSON when st is ok (a failure after a failed run is printed).
Status FinishStoredRun(Store& store, int64_t run_id, const std::string& run, const std::string& db,
                       const Status& st, const std::string& json_path,
                       const std::function<void(const nlohmann::json& doc)>& print);

}  // namespace ssdlab
