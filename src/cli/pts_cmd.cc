// `ssdlab pts`: the SNIA PTS battery, stored in a results database.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/output.h"
#include "cli/report_cmds.h"
#include "cli/suite_cli.h"
#include "cli/verdicts.h"
#include "lab/mpi.h"
#include "sim/sim.h"
#include "usecase/browse.h"
#include "usecase/fleet.h"
#include "usecase/pts.h"
#include "usecase/pts_mpi.h"
#include "usecase/targets.h"

namespace ssdlab {
namespace {

using nlohmann::json;

struct PtsArgs {
  std::string target, db, run, json_path, progress = "auto";
  usecase::OptionTexts options = {
      {"--spec", "pts-e"}};  // the battery's options (PtsOptionDefs) as text
  std::string resume, confirm, temp_interval = "1s";
  std::vector<std::string> targets;  // --target, composed into `target` (an array with --layout)
  std::string layout, chunk;
  bool destructive = false;
  std::vector<std::string> given;     // long names of the options on the command line
  std::string target_map;             // a fleet run (usecase/fleet.h)
  std::string fleet;                  // the fleet this run belongs to ("" alone)
  bool mpi = false;                   // --mpi: a multi-client battery (usecase/pts_mpi.h)
  bool range_per_rank = false;        // with --mpi: each rank its slice of the range
  std::string clients_log;            // with --mpi: every phase's per-rank results (JSON lines)
  std::string report;                 // --report FILE: the run's HTML report at the end
  bool require_steady_state = false;  // exit kExitNotSteady when a test missed steady state
  int sim_threads = 1;                // PtsRequest::sim_threads
};

// --time-scale: "auto" becomes the number (ApplyTimeScale: from the spec's round), and every
// simulated --target gets scale=N. A resumed run keeps its own.
Status ApplyPtsTimeScale(PtsArgs& a) {
  auto it = a.options.find("--time-scale");
  if (it == a.options.end() || it->second.empty() || !a.resume.empty()) return Status::Ok();
  SSDLAB_ASSIGN_OR_RETURN(PtsOptions spec,
                          usecase::ResolvePtsOptions({{"--spec", a.options["--spec"]}}));
  SSDLAB_ASSIGN_OR_RETURN(uint32_t n,
                          usecase::ApplyTimeScale(it->second, spec.round_ns, a.targets));
  it->second = std::to_string(n);
  return Status::Ok();
}

// The request of `pts` from its flags (a.target composed).
usecase::PtsRequest PtsRequestOf(const PtsArgs& a, uint64_t temp_interval_ns,
                                 usecase::PtsLaunch* launch) {
  usecase::PtsRequest r;
  r.target = a.target;
  r.db = a.db;
  r.run = a.run;
  r.fleet = a.fleet;
  r.given = {a.resume, a.run, a.target, a.options, a.given};
  r.mpi = a.mpi;
  r.destructive = a.destructive;
  r.confirm = a.confirm;
  r.temp_interval_ns = temp_interval_ns;
  r.inputs = {{"--target-map " + a.target_map, a.target_map}};
  r.outputs = {{"--json", a.json_path}, {"--report", a.report}, {"--clients-log", a.clients_log}};
  r.stop = &StopFlag();
  r.console = &CliConsole();
  r.launch = launch;
  r.sim_threads = a.sim_threads;
  return r;
}

// The battery's exit status from its outcome (its errors said).
int PtsExitCode(const PtsArgs& a, const usecase::PtsOutcome& o, const Status& st, int report_code,
                const std::vector<std::string>& missed) {
  if (!o.end.closed.ok()) PrintError(o.end.closed.message());
  if (!st.ok()) {
    PrintError(st.code() == Code::kInterrupted
                   ? "interrupted; finished rounds are stored, continue with --resume " + o.run
                   : st.message());
    return st.code() == Code::kInterrupted ? kExitInterrupted : kExitFailed;
  }
  if (report_code != kExitOk) return report_code;
  if (!o.end.closed.ok()) return kExitFailed;
  if (a.require_steady_state && !missed.empty()) {
    PrintError(fmt::format("--require-steady-state: {} did not reach steady state",
                           fmt::join(missed, ", ")));
    return kExitNotSteady;
  }
  return kExitOk;
}

int RunPtsCommand(PtsArgs a, usecase::PtsLaunch* launch = nullptr) {
  if (a.resume.empty() || !a.targets.empty()) {
    auto target = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
    if (!target.ok()) return Fail(target.status());
    a.target = target.value();
  }
  auto temp_interval = ParseDurationNs(a.temp_interval);
  if (!temp_interval.ok()) return Fail(temp_interval.status().WithContext("--temp-interval"));
  usecase::PtsRequest r = PtsRequestOf(a, temp_interval.value(), launch);
  std::unique_ptr<CliProgress> progress = MakeProgress(a.progress);
  r.progress = progress.get();
  Status st;
  int report_code = kExitOk;
  std::vector<std::string> missed;  // the tests that did not reach steady state
  r.write_outputs = [&](usecase::PtsOutcome& o) {
    st = PrintStoredRun(o.run, a.db, o.battery, o.doc, a.json_path, [&missed](const json& doc) {
      if (Status v = PrintVerdicts(doc, std::cerr, JsonLinesOnStderr()); !v.ok())
        PrintError(v.message());
      missed = usecase::TestsWithoutSteadyState(doc);
    });
    if (st.ok() && !a.report.empty())
      report_code = WriteRunsReport(a.db, {o.run}, a.report, "", "--report");
    return report_code == kExitOk ? st : Status::Io("--report was not written");
  };
  auto outcome = usecase::RunPts(std::move(r));
  if (!outcome.ok()) return Fail(outcome.status());
  return PtsExitCode(a, *outcome, st, report_code, missed);
}

// The request of `pts` under mpirun with one target (usecase/pts_mpi.h: --mpi, or a simulated
// drive spread over the ranks); rank 0 runs the battery as RunPtsCommand does.
void FillRanksRequest(const PtsArgs& a, usecase::PtsRanksRequest& q) {
  q.battery = PtsRequestOf(a, 0, nullptr);
  q.targets = a.targets;
  q.layout = a.layout;
  q.chunk = a.chunk;
  q.run = [a](const std::vector<std::string>& targets, usecase::PtsLaunch* launch) {
    PtsArgs mine = a;
    mine.targets = targets;
    return RunPtsCommand(mine, launch);
  };
}

}  // namespace

namespace {

// `pts` once its flags are parsed: a battery, resumed or new, on one process, under --mpi, spread
// over the ranks of mpirun, or a fleet (one drive per rank); its exit status.
int DispatchPts(PtsArgs* a, const CLI::App* cmd) {
  a->given = GivenOptions(cmd);
  if (a->progress == "json") UseJsonLinesOnStderr();
  if (Status s = ApplyPtsTimeScale(*a); !s.ok()) return Fail(s);
  usecase::FleetOptions f{a->db,         a->targets.size() == 1 ? a->targets[0] : "",
                          a->target_map, a->run,
                          a->resume,     a->report};
  f.write_report = [a](const std::vector<std::string>& runs, const std::string& title) {
    return WriteRunsReport(a->db, runs, a->report, title, "--report");
  };
  if (!a->mpi && (a->range_per_rank || !a->clients_log.empty())) {
    return Fail(Status::Invalid(
        std::string(a->range_per_rank ? "--range-per-rank" : "--clients-log") + " needs --mpi"));
  }
  if (a->mpi) {
    if (!a->target_map.empty()) {
      return Fail(Status::Invalid(
          "--mpi and --target-map: a fleet tests one drive per rank, --mpi one target with "
          "many clients; give one of them"));
    }
    usecase::MultiClientPtsRequest q;
    FillRanksRequest(*a, q);
    q.range_per_rank = a->range_per_rank;
    q.clients_log = a->clients_log;
    return usecase::RunMultiClientPts(q);
  }
  if (!usecase::IsFleetRun(f) && StartedByMpirun() && a->targets.size() == 1 &&
      IsSimTarget(a->targets[0])) {
    usecase::PtsRanksRequest q;
    FillRanksRequest(*a, q);
    return usecase::RunSpreadPts(q);
  }
  if (!usecase::IsFleetRun(f)) {
    if (!a->target_map.empty()) {
      return Fail(Status::Invalid("--target-map: a fleet run is started by mpirun"));
    }
    return RunPtsCommand(*a);
  }
  return usecase::RunFleet(
      f,
      [&](const usecase::FleetRank& me) {
        PtsArgs mine = *a;
        mine.targets = {me.target};
        mine.fleet = me.fleet;
        mine.run = me.resume ? "" : me.run;
        mine.resume = me.resume ? me.run : "";
        mine.progress = "none";  // rank 0 prints the fleet's table
        mine.report = "";        // rank 0 writes the fleet's report
        return RunPtsCommand(mine);
      },
      CliConsole());
}

}  // namespace

void AddPtsCommands(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<PtsArgs>();
  CLI::App* cmd =
      app.add_subcommand("pts", "Run the SNIA PTS battery (stored in a results database)");
  AddTargetOptions(cmd, &a->targets, &a->layout, &a->chunk,
                   "File, block device, or sim:PRESET[?key=value&...]");
  AddStoredRunOptions(cmd, &a->db, &a->run, "Name of the run (default pts-DATE-TIME)",
                      &a->json_path, &a->progress);
  cmd->add_option("--resume", a->resume,
                  "Continue the run of this name from its last finished round");
  cmd->add_flag("--destructive", a->destructive,
                "Allow writing to a block device (destroys its data)");
  cmd->add_option("--confirm", a->confirm,
                  "For a block device: its serial (or WWN) as confirmation");
  cmd->add_option("--temp-interval", a->temp_interval,
                  "Temperature sampling interval (1s; 0: only before and after each test)");
  AddOptionDefs(cmd, usecase::PtsOptionDefs(), a->options);
  cmd->add_option("--target-map", a->target_map,
                  "Fleet run under mpirun: file of 'RANK TARGET' lines, one drive per rank "
                  "(or %r and %h in --target)");
  cmd->add_flag("--mpi", a->mpi,
                "One battery of many clients under mpirun: every phase starts on all ranks "
                "together, the ranks' results are merged and judged as one device");
  cmd->add_flag("--range-per-rank", a->range_per_rank,
                "With --mpi: each rank loads its own slice of the range (default: the whole "
                "range, the seed offset by the rank)");
  cmd->add_option("--clients-log", a->clients_log,
                  "With --mpi: file of one JSON line per phase with every rank's own results");
  cmd->add_flag("--require-steady-state", a->require_steady_state,
                "Exit with status 4 when a test that judges steady state ended without it (the "
                "round limit came first); WSAT, ended by its own capacity or round limit, never "
                "fails it");
  cmd->add_option("--report", a->report,
                  "Write the run's HTML report to this file at the end (a fleet: rank 0 writes "
                  "the comparison report of every drive)");
  cmd->add_option("--sim-threads", a->sim_threads,
                  "A simulated drive: run the tests on this many threads at once, each on its "
                  "own copy of the drive (the stored results are the same); 0: the CPUs, as "
                  "memory allows; 1: one thread")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->callback([a, exit_code, cmd] { *exit_code = DispatchPts(a.get(), cmd); });
}

}  // namespace ssdlab
