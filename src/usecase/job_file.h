// `ssdlab run JOB.fio`: the job sections of an fio job file (workload/fio_job.h), run one after
// another, each as one `run` (usecase/run.h) through the same checks of its target: a job's
// filename= is a target like --target's.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "usecase/run.h"
#include "workload/fio_job.h"

namespace ssdlab::usecase {

struct JobFileRequest {
  std::string path;            // the job file
  std::string section;         // only the sections of this name ("" = every section)
  std::string default_target;  // --target: for the sections without filename= ("" = none)
  // With base.db: the stored runs' name; one section's run is named `run`, each of several
  // `run`-SECTION (-2, -3, ... for a section name given again); "" = generated per section
  // (usecase/run.h). Every name is refused when taken before the first section runs.
  std::string run;
  // What every section shares (console REQUIRED, stop, progress, destructive, outputs as
  // (what, path)); its target, size, workload and engine come from the job file.
  RunRequest base;
  // Called with each section's outcome once its document is built and before its target's use
  // ends (RunRequest::write_outputs): `index` of `count` sections.
  std::function<Status(const FioRun& run, size_t index, size_t count, RunOutcome& outcome)>
      write_section;
};

struct JobFileOutcome {
  std::vector<FioRun> runs;          // the sections, in order
  std::vector<RunOutcome> outcomes;  // of those that ran (fewer when interrupted)
};

// Reads and translates the job file: the sections to run. Invalid in one line naming the file
// (missing, unreadable) or the file, line, section and option (workload/fio_job.h).
Result<std::vector<FioRun>> PlanJobFile(const std::string& path, const std::string& section,
                                        const std::string& default_target);

// Plans the job file, checks every section's target and engine options and the job file against
// the targets (a job never writes its own job file) before the first section runs, then runs
// the sections in order; an interrupted section ends the file there. An error is a failure of
// the plan, a check or a section (those before it ran and said so through write_section).
Result<JobFileOutcome> RunJobFile(const JobFileRequest& request);

}  // namespace ssdlab::usecase
