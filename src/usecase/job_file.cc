#include "usecase/job_file.h"

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>

#include "engine/options.h"
#include "usecase/options.h"
#include "usecase/paths.h"
#include "usecase/stored_run.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {
namespace {

// The message of `s` after "OPTION's place: " when the section gave OPTION.
Status At(const FioRun& run, const std::string& option, const Status& s) {
  auto it = run.where.find(option);
  return it == run.where.end() ? s : Status::Invalid(it->second + ": " + s.message());
}

bool Writes(const FioRun& run) {
  return run.workload.rw != "read" && run.workload.rw != "randread";
}

// The run of one section: the shared parts of `base`, the rest from the job file: the section's
// `ssdlab run` flags (FioRunFlags) applied by run's own declarations (RunOptionDefs).
Result<RunRequest> RequestOf(const std::string& path, const FioRun& run, const RunRequest& base) {
  const RunRequest defaults;
  RunRequest q = base;
  q.target = run.target;
  q.size_bytes = defaults.size_bytes;
  q.workload = defaults.workload;
  q.workload.interval = base.workload.interval;
  q.engine = defaults.engine;
  q.engine_name = defaults.engine_name;
  q.engine_options = defaults.engine_options;
  q.engine_flags_given = false;
  q.buffered = defaults.buffered;
  q.prefill = false;
  q.argv = {"ssdlab", "run"};
  OptionTexts texts;
  const std::vector<std::string> flags = FioRunFlags(run);
  for (size_t i = 0; i < flags.size(); ++i) {
    q.argv.push_back(flags[i]);
    const RunDef* def = FindOptionDef(RunOptionDefs(), flags[i]);
    if (def && def->is_switch) {
      texts[flags[i]] = "true";
    } else if (i + 1 < flags.size()) {  // a flag's value (--target's too)
      texts[flags[i]] = flags[i + 1];
      q.argv.push_back(flags[++i]);
    }
  }
  if (Status s = ApplyOptionDefs(RunOptionDefs(), texts, q); !s.ok())
    return Status::Invalid(path + ":" + std::to_string(run.line) + ": [" + run.section + "] " +
                           s.message());
  if (run.fill_device && !IsSimTarget(run.target)) {
    struct stat st;
    if (stat(run.target.c_str(), &st) != 0 || !S_ISBLK(st.st_mode))
      return At(run, "fill_device",
                Status::Invalid("'" + run.target +
                                "' is not a block device: fio would fill the filesystem it is "
                                "on; give size= instead"));
  }
  return q;
}

// Before anything runs: no section writes the job file (or a file another role of the command
// writes). Sections on one target register it once, written when any of them writes.
Status CheckPaths(const JobFileRequest& r, const std::vector<FioRun>& runs) {
  PathRegistry paths = CommandPaths();
  paths.AddInput("the job file " + r.path, r.path);
  std::map<std::string, std::pair<const FioRun*, bool>> targets;  // identity -> (first, writes)
  for (const FioRun& run : runs) {
    const std::string id = IsSimTarget(run.target) ? run.target : FileIdentity(run.target);
    auto [it, fresh] = targets.try_emplace(id, &run, false);
    it->second.second = it->second.second || Writes(run);
  }
  for (const auto& [id, first] : targets) {
    const std::string what = "filename= of [" + first.first->section + "]";
    SSDLAB_RETURN_IF_ERROR(AddTargetPaths(paths, what, first.first->target, first.second));
  }
  for (const auto& [what, path] : r.base.outputs) paths.AddOutput(what, path);
  return paths.Check();
}

}  // namespace

Result<std::vector<FioRun>> PlanJobFile(const std::string& path, const std::string& section,
                                        const std::string& default_target) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Status::NotFound("job file " + path + ": no such file");
  if (!S_ISREG(st.st_mode)) return Status::Invalid("job file " + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return Status::Invalid("job file " + path + ": cannot be read");
  SSDLAB_ASSIGN_OR_RETURN(FioJobFile file, ParseFioJobFile(path, text.str()));
  return TranslateFioJobs(file, section, default_target);
}

Result<JobFileOutcome> RunJobFile(const JobFileRequest& r) {
  JobFileOutcome out;
  SSDLAB_ASSIGN_OR_RETURN(out.runs, PlanJobFile(r.path, r.section, r.default_target));
  if (!r.run.empty() && r.base.db.empty()) return Status::Invalid("--run needs --db");
  std::vector<RunRequest> requests;
  std::map<std::string, int> seen;  // section -> how many times named so far
  for (const FioRun& run : out.runs) {
    SSDLAB_ASSIGN_OR_RETURN(RunRequest q, RequestOf(r.path, run, r.base));
    if (!r.run.empty()) {
      const int n = ++seen[run.section];
      q.run = out.runs.size() == 1 ? r.run : r.run + "-" + run.section;
      if (n > 1) q.run += "-" + std::to_string(n);
    }
    requests.push_back(std::move(q));
  }
  SSDLAB_RETURN_IF_ERROR(CheckPaths(r, out.runs));
  for (const RunRequest& q : requests)  // each name free before the first section runs
    if (!q.run.empty()) SSDLAB_RETURN_IF_ERROR(StoredPhaseRun::Open(q.db, q.run, "run").status());
  for (size_t i = 0; i < requests.size(); ++i) {
    RunRequest& q = requests[i];
    const FioRun& run = out.runs[i];
    if (r.write_section)
      q.write_outputs = [&, i](RunOutcome& o) {
        return r.write_section(run, i, requests.size(), o);
      };
    auto outcome = Run(q);
    if (!outcome.ok()) return outcome.status().WithContext(r.path + " [" + run.section + "]");
    out.outcomes.push_back(std::move(outcome.value()));
    if (out.outcomes.back().result.interrupted) break;
  }
  return out;
}

}  // namespace ssdlab::usecase
