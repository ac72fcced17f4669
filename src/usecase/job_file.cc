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

// The engine's options of a section (their syntax was checked by the translation, but for
// cpus_allowed's list).
Status EngineOptionsOf(const FioRun& run, EngineOptions& o) {
  SSDLAB_RETURN_IF_ERROR(CountFlag("iodepth_batch_submit", run.batch_submit, o.batch_submit));
  if (!run.batch_complete.empty())
    SSDLAB_RETURN_IF_ERROR(
        ParseBatchComplete(run.batch_complete, o.batch_complete_min, o.batch_complete_max));
  o.sqpoll = run.sqpoll;
  o.hipri = run.hipri;
  if (!run.sqpoll_cpu.empty()) {
    auto cpus = ParseCpuList(run.sqpoll_cpu);
    if (!cpus.ok()) return At(run, "sqthread_poll_cpu", cpus.status());
    o.sqpoll_cpu = static_cast<int32_t>(cpus->front());
  }
  if (!run.cpus_allowed.empty()) {
    auto cpus = ParseCpuList(run.cpus_allowed);
    if (!cpus.ok()) return At(run, "cpus_allowed", cpus.status());
    o.cpus_allowed = cpus.value();
  }
  return Status::Ok();
}

bool Writes(const FioRun& run) {
  return run.workload.rw != "read" && run.workload.rw != "randread";
}

// The run of one section: the shared parts of `base`, the rest from the job file.
Result<RunRequest> RequestOf(const FioRun& run, const RunRequest& base) {
  RunRequest q = base;
  q.target = run.target;
  q.size_bytes = run.size_bytes;
  q.workload = run.workload;
  q.workload.interval = base.workload.interval;
  SSDLAB_ASSIGN_OR_RETURN(q.engine, ParseEngineKind(run.engine));
  q.engine_name = run.engine;
  q.engine_options = EngineOptions{};
  SSDLAB_RETURN_IF_ERROR(EngineOptionsOf(run, q.engine_options));
  q.engine_flags_given = !run.batch_submit.empty() || !run.batch_complete.empty() || run.sqpoll ||
                         run.hipri || !run.sqpoll_cpu.empty() || !run.cpus_allowed.empty();
  q.buffered = run.buffered;
  q.prefill = false;
  q.argv = {"ssdlab", "run"};
  for (const std::string& f : FioRunFlags(run)) q.argv.push_back(f);
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
    SSDLAB_ASSIGN_OR_RETURN(RunRequest q, RequestOf(run, r.base));
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
