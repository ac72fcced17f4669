// `ssdlab pts`: the SNIA PTS battery, stored in a results database.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "base/clock.h"
#include "base/output_file.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/output.h"
#include "cli/report_cmds.h"
#include "cli/suite_cli.h"
#include "cli/verdicts.h"
#include "device/device_backend.h"
#include "device/device_json.h"
#include "device/safety.h"
#include "sim/params.h"
#include "store/store.h"
#include "suite/pts.h"
#include "usecase/browse.h"
#include "usecase/fleet.h"
#include "usecase/mpi_pts.h"
#include "usecase/paths.h"
#include "usecase/pts.h"
#include "usecase/sim_spread.h"
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
  std::string target_map;             // a fleet run (cli/fleet.h)
  std::string fleet;                  // the fleet this run belongs to ("" alone)
  bool mpi = false;                   // --mpi: a multi-client battery (cli/mpi_pts.h)
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
  if (!o.closed.ok()) PrintError(o.closed.message());
  if (!st.ok()) {
    PrintError(st.code() == Code::kInterrupted
                   ? "interrupted; finished rounds are stored, continue with --resume " + o.run
                   : st.message());
    return st.code() == Code::kInterrupted ? kExitInterrupted : kExitFailed;
  }
  if (report_code != kExitOk) return report_code;
  if (!o.closed.ok()) return kExitFailed;
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

// `pts --mpi`: rank 0 runs the battery on a MultiClientBackend, the other ranks follow.
int RunMultiClientPts(PtsArgs a) {
  auto clients = usecase::MpiClients::Start();
  if (!clients.ok()) return Fail(clients.status());
  usecase::MpiClients& c = clients.value();
  const std::vector<std::string> patterns = a.targets;
  auto pattern = usecase::ComposeTarget(patterns, a.layout, a.chunk);
  if (c.rank() != 0) {
    auto open = [&](const std::string& from_rank0,
                    uint64_t min_size) -> Result<std::unique_ptr<Backend>> {
      PtsArgs mine = a;
      mine.target = ExpandRankPattern(from_rank0, c.rank(), c.world().host());
      SSDLAB_ASSIGN_OR_RETURN(usecase::OpenedTarget t,
                              usecase::OpenPtsTarget(mine.target, mine.destructive, mine.confirm));
      if (t.backend->info().size_bytes < min_size)
        return Status::Invalid(fmt::format("{} ({}) is smaller than rank 0's target ({})",
                                           mine.target, FormatBytes(t.backend->info().size_bytes),
                                           FormatBytes(min_size)));
      return std::move(t.backend);
    };
    return usecase::FollowPhases(c, open, &StopFlag(), CliConsole());
  }
  std::unique_ptr<std::ofstream> log;
  int code = kExitOk;
  c.ExpandTargets(a.targets);
  if (!a.targets.empty()) {  // before --clients-log is opened
    PtsArgs expanded = a;
    auto target = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
    expanded.target = target.ok() ? target.value() : "";
    if (Status s = usecase::CheckPtsPaths(PtsRequestOf(expanded, 0, nullptr)); !s.ok())
      code = Fail(s);
  }
  if (code == kExitOk && !a.clients_log.empty()) {
    log = std::make_unique<std::ofstream>(a.clients_log);
    if (!*log) code = Fail(Status::Io("--clients-log " + a.clients_log + ": cannot write it"));
  }
  if (code == kExitOk) {
    usecase::PtsLaunch launch;
    launch.wrap = [&](std::unique_ptr<Backend> local, const json& stored,
                      json& context) -> Result<std::unique_ptr<Backend>> {
      usecase::MultiClientOptions o{a.range_per_rank, log.get()};
      std::string p = pattern.ok() ? pattern.value() : a.target;
      if (stored.contains("mpi")) {  // a resumed run keeps its targets and shares
        p = stored["mpi"].value("target_pattern", p);
        o.range_per_rank = stored["mpi"].value("range_per_rank", false);
      }
      SSDLAB_ASSIGN_OR_RETURN(auto b,
                              usecase::MultiClientBackend::Connect(c, std::move(local), p, o));
      context["mpi"] = b->mpi();
      std::cerr << fmt::format("ssdlab pts: {} clients (MPI ranks) on {}{}\n", c.size(), p,
                               o.range_per_rank ? ", a slice of the range each" : "");
      return std::unique_ptr<Backend>(std::move(b));
    };
    code = RunPtsCommand(a, &launch);
  }
  usecase::EndFollowers(c, code);
  return code;
}

// pts on one simulated drive under mpirun: its tests spread over the ranks (cli/sim_spread.h).
int RunSpreadPts(PtsArgs a) {
  auto world = MpiWorld::Get();
  if (!world.ok()) return Fail(world.status());
  MpiWorld& w = **world;
  if (w.size() == 1) return RunPtsCommand(a);
  auto options = usecase::ResolvePtsOptions(a.options);
  auto target = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  usecase::SpreadCommand c;
  // Bad options: rank 0 alone says what is wrong, as one process would.
  c.why_not = !options.ok() || !target.ok()
                  ? "bad options"
                  : usecase::WhyNotSpread(*target, options->purge, !a.resume.empty());
  if (c.why_not.empty())
    c.note = fmt::format("ssdlab pts: {} tests spread over {} ranks ({} simulated drives)",
                         options->tests.size(), w.size(), w.size());
  else if (options.ok() && target.ok())
    c.note = fmt::format("ssdlab pts: not spread over {} ranks ({}); rank 0 runs it", w.size(),
                         c.why_not);
  c.unit = usecase::SpreadUnit::kTests;
  if (options.ok()) c.tests = options->tests;
  c.open = [&]() -> Result<std::unique_ptr<Backend>> {
    PtsArgs mine = a;
    mine.target = target.value();
    SSDLAB_ASSIGN_OR_RETURN(usecase::OpenedTarget t,
                            usecase::OpenPtsTarget(mine.target, mine.destructive, mine.confirm));
    SSDLAB_RETURN_IF_ERROR(CheckPtsTarget(*options, t.backend->info()));
    return std::move(t.backend);
  };
  c.pass = [&](Backend& b, RunJournal& j, TestHooks* h) {
    return RunPts(b, j, 1, options.value(), nullptr, &StopFlag(), h);
  };
  c.run = [&](std::unique_ptr<Backend> opened) {
    usecase::PtsLaunch launch;
    launch.opened = std::move(opened);
    return RunPtsCommand(a, &launch);
  };
  return usecase::RunSpread(w, c, CliConsole());
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
    return RunMultiClientPts(*a);
  }
  if (!usecase::IsFleetRun(f) && StartedByMpirun() && a->targets.size() == 1 &&
      IsSimTarget(a->targets[0])) {
    return RunSpreadPts(*a);
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
