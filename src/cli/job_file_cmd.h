// `ssdlab run JOB.fio [--section NAME] [--explain]`: fio job files on run's command line
// (usecase/job_file.h does the work).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "usecase/run.h"

namespace ssdlab {

struct JobFileArgs {
  std::string job;      // the job file (run's positional argument)
  std::string section;  // --section NAME
  bool explain = false;
  // run's own flags that combine with a job file.
  const std::vector<std::string>* targets = nullptr;  // --target: for jobs without filename=
  const std::string* json = nullptr;
  const std::string* db = nullptr;   // --db: each section stored as a run of kind "run"
  const std::string* run = nullptr;  // --run: their name (usecase::JobFileRequest::run)
  const bool* destructive = nullptr;
};

// Registers JOB (positional), --section and --explain on run's `cmd`.
void AddJobFileOptions(CLI::App* cmd, JobFileArgs* a);

// The command when JOB, --section or --explain was given (its exit status); nullopt otherwise.
// A run flag other than --target, --json, --db, --run and --destructive is refused with a job
// file (the file sets the workload).
std::optional<int> RunJobFileCommand(const CLI::App& cmd, const JobFileArgs& a);

// run's human summary of one phase on `target` by `engine` (cli/run_cmd.cc).
void PrintRunSummary(const std::string& target, const std::string& engine,
                     const usecase::RunOutcome& o, std::ostream& human);

}  // namespace ssdlab
