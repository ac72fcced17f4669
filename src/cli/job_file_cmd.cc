#include "cli/job_file_cmd.h"

#include <iostream>
#include <set>

#include "base/secrets.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "usecase/job_file.h"

namespace ssdlab {
namespace {

// The flags that combine with a job file; any other of run's is refused.
const std::set<std::string>& JobFileFlags() {
  static const std::set<std::string> flags = {"JOB",    "--section", "--explain", "--target",
                                              "--json", "--db",      "--run",     "--destructive"};
  return flags;
}

Status CheckJobFileFlags(const CLI::App& cmd, const JobFileArgs& a) {
  if (a.job.empty())
    return Status::Invalid((a.explain ? std::string("--explain") : "--section") +
                           " needs a job file: ssdlab run JOB.fio");
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || JobFileFlags().count(opt->get_name())) continue;
    return Status::Invalid(opt->get_name() + " does not combine with a job file: " + a.job +
                           " sets the workload (--explain shows the flags it becomes)");
  }
  if (a.targets->size() > 1)
    return Status::Invalid("--target: one target with a job file (its sections' default)");
  return Status::Ok();
}

// --explain: one `ssdlab run` command line per section, with how fio's options were carried
// over as comments.
int Explain(const JobFileArgs& a) {
  auto plan = usecase::PlanJobFile(a.job, a.section, a.targets->empty() ? "" : a.targets->front());
  if (!plan.ok()) return Fail(plan.status());
  for (const FioRun& run : plan.value()) {
    std::cout << "# [" << run.section << "] " << a.job << ":" << run.line << "\n"
              << FioRunCommandLine(run) << (*a.destructive ? " --destructive" : "") << "\n";
    for (const std::string& n : run.notes) std::cout << "#   " << n << "\n";
  }
  return kExitOk;
}

int RunJobs(const JobFileArgs& a) {
  usecase::JobFileRequest q;
  q.path = a.job;
  q.section = a.section;
  q.default_target = a.targets->empty() ? "" : a.targets->front();
  q.base.console = &CliConsole();
  q.base.stop = &StopFlag();
  q.base.destructive = *a.destructive;
  q.base.db = *a.db;
  q.run = *a.run;
  q.base.outputs = {{"--json", *a.json}};
  std::ostream& human = *a.json == "-" ? std::cerr : std::cout;
  nlohmann::json docs = nlohmann::json::array();
  // Each section's summary as it ends; the JSON (one run document per section, in order) with
  // the last, before its target's use ends.
  q.write_section = [&](const FioRun& run, size_t i, size_t count, usecase::RunOutcome& o) {
    human << "[" << run.section << "] " << FioRunCommandLine(run) << "\n";
    PrintRunSummary(run.target, run.engine, o, human);
    if (!o.run.empty() && o.end.stored.ok())
      human << "stored as run '" << o.run << "' in " << MaskSecrets(*a.db) << "\n";
    docs.push_back(results::ToJson(o.doc));
    if (a.json->empty() || (i + 1 < count && !o.result.interrupted)) return Status::Ok();
    Status written = WriteJsonOutput(*a.json, docs);
    if (!written.ok()) PrintError(written.message());
    return written;
  };
  auto out = usecase::RunJobFile(q);
  if (!out.ok()) return Fail(out.status());
  int code = kExitOk;
  for (const usecase::RunOutcome& o : out->outcomes) {
    if (!o.end.outputs.ok()) code = kExitFailed;
    if (!o.end.closed.ok()) {
      PrintError(o.end.closed.message());
      code = kExitFailed;
    }
    code = PhaseExitCode(o.result, code);
  }
  return code;
}

}  // namespace

void AddJobFileOptions(CLI::App* cmd, JobFileArgs* a) {
  cmd->add_option("JOB", a->job,
                  "An fio job file to run (its [sections] one after another) instead of the "
                  "workload flags; docs/run.md, \"fio job files\"");
  cmd->add_option("--section", a->section, "With a job file: only the sections of this name");
  cmd->add_flag("--explain", a->explain,
                "With a job file: print the equivalent `ssdlab run` command line of each section "
                "(and how fio's options were carried over) without running");
}

std::optional<int> RunJobFileCommand(const CLI::App& cmd, const JobFileArgs& a) {
  if (a.job.empty() && a.section.empty() && !a.explain) return std::nullopt;
  if (Status s = CheckJobFileFlags(cmd, a); !s.ok()) return Fail(s);
  return a.explain ? Explain(a) : RunJobs(a);
}

}  // namespace ssdlab
