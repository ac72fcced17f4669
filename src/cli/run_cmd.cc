// `ssdlab run`: one workload against one target, the fio-like primitive.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "base/clock.h"
#include "base/output_file.h"
#include "base/secrets.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/job_file_cmd.h"
#include "cli/lat_log.h"
#include "cli/output.h"
#include "device/device_backend.h"
#include "device/device_json.h"
#include "results/ids.h"
#include "stats/completed_io.h"
#include "usecase/mpi_clients.h"
#include "usecase/paths.h"
#include "usecase/run.h"
#include "usecase/targets.h"
#include "workload/parse.h"

namespace ssdlab {
namespace {

struct RunArgs {
  // The request's options as text (usecase::RunOptionDefs: workload, engine, --prefill, ...).
  usecase::OptionTexts options;
  std::string target;
  std::vector<std::string> targets;  // --target, composed into `target` (an array with --layout)
  std::string layout, chunk;
  bool destructive = false;
  std::string json;
  std::string db, run;  // --db, --run: stored as a run of kind "run"
  std::string lat_log;
  bool mpi = false, range_per_rank = false;  // --mpi: a client of a multi-client load
  std::vector<std::string> argv;
  JobFileArgs job{
      .targets = &targets, .json = &json, .db = &db, .run = &run, .destructive = &destructive};
};

// A live status line on a terminal.
void PrintProgress(const IntervalSample& s) {
  double secs = static_cast<double>(s.t_end_ns - s.t_begin_ns) / 1e9;
  std::string line = fmt::format("\r[{:7.1f}s]", static_cast<double>(s.t_end_ns) / 1e9);
  for (int d = 0; d < kDirections; ++d) {
    const auto& x = s.dirs[d];
    if (!x.ios) continue;
    line +=
        fmt::format("  {} {:.0f} IOPS {:.1f} MB/s mean {}",
                    DirectionName(static_cast<Direction>(d)), x.ios / secs, x.bytes / secs / 1e6,
                    FormatNs(static_cast<double>(x.lat_sum_ns) / static_cast<double>(x.ios)));
  }
  std::cerr << line << "\x1b[K" << std::flush;
}

// The status line on a terminal.
class StatusLine : public usecase::RunProgress {
 public:
  void OnInterval(const IntervalSample& s) override { PrintProgress(s); }
  void PhaseEnded() override { std::cerr << "\r\x1b[K" << std::flush; }
};

// The request of one client's run from its flags (the target composed apart).
Result<usecase::RunRequest> RunRequestOf(const RunArgs& a) {
  usecase::RunRequest q;
  q.target = a.target;
  if (Status s = usecase::ApplyOptionDefs(usecase::RunOptionDefs(), a.options, q); !s.ok())
    return Status::Invalid(s.message());
  q.destructive = a.destructive;
  q.argv = a.argv;
  q.outputs = {{"--json", a.json}, {"--lat-log", a.lat_log}};
  q.db = a.db;
  q.run = a.run;
  q.range_per_rank = a.range_per_rank;
  q.stop = &StopFlag();
  q.console = &CliConsole();
  return q;
}

}  // namespace

// The run's lines for people: the workload, the clients, the summary table, the notes and the
// temperature.
void PrintRunSummary(const std::string& target, const std::string& engine,
                     const usecase::RunOutcome& o, std::ostream& human) {
  const PhaseResult& r = o.result;
  human << fmt::format(
      "{} on {} ({}, {}), {}, {:.2f} s measured{}\n", DescribeWorkload(o.spec), target,
      o.target.kind, FormatBytes(o.target.size_bytes), IsSimTarget(target) ? "sim" : engine,
      static_cast<double>(r.measured_ns) / 1e9, r.interrupted ? " (INTERRUPTED)" : "");
  if (o.doc.mpi)
    human << fmt::format("{} clients (MPI ranks), start skew {}; the figures below are their sum\n",
                         o.clients, FormatNs(o.start_skew_ns));
  human << SummaryTable(r);
  for (const auto& n : r.notes) human << "note: " << n << "\n";
  const nlohmann::json& health = o.health;
  const nlohmann::json& temp = health["temperature"];
  if (health["source"] == "simulated") {
    human << "temperature: none (a simulated drive models no temperature)\n";
  } else if (!temp["peak_c"].is_null()) {
    human << fmt::format("temperature ({}): idle {:.0f} C, peak {:.0f} C, mean {:.1f} C\n",
                         health["source"].get<std::string>(), temp["idle_c"].get<double>(),
                         temp["peak_c"].get<double>(), temp["mean_c"].get<double>());
  } else if (!health["reason"].get<std::string>().empty()) {
    human << "temperature: not available (" << health["reason"].get<std::string>() << ")\n";
  }
}

namespace {

// One client's run; with `mpi`, one rank of a multi-client load (usecase/mpi_clients.h): only
// rank 0 prints and writes the JSON, of the merged result.
int RunClient(RunArgs a, usecase::MpiClients* mpi) {
  if (mpi) mpi->ExpandTargets(a.targets);
  auto target = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  if (!target.ok()) return Fail(target.status());
  a.target = target.value();
  auto q = RunRequestOf(a);
  if (!q.ok()) return Fail(q.status());
  q->mpi = mpi;
  StatusLine line;
  if (isatty(STDERR_FILENO)) q->progress = &line;
  std::unique_ptr<CsvIoLog> lat_log;
  if (!a.lat_log.empty()) {
    q->open_io_log = [&]() -> Result<IoLogSink*> {
      SSDLAB_ASSIGN_OR_RETURN(lat_log, CsvIoLog::Open(a.lat_log));
      return lat_log.get();
    };
  }
  int code = kExitOk;
  q->write_outputs = [&](usecase::RunOutcome& o) {
    if (!o.end.stored.ok()) {
      PrintError("cannot store the run in " + MaskSecrets(a.db) + ": " + o.end.stored.message());
      code = kExitFailed;
    }
    if (lat_log) {
      if (Status s = lat_log->Close(); !s.ok()) {
        PrintError(s.message());
        code = kExitFailed;
      }
    }
    std::ostream& human = a.json == "-" || a.lat_log == "-" ? std::cerr : std::cout;
    PrintRunSummary(a.target, q->engine_name, o, human);
    if (!o.run.empty() && o.end.stored.ok())
      human << fmt::format("stored as run '{}' in {}\n", o.run, MaskSecrets(a.db));
    if (!a.json.empty()) {
      if (Status s = WriteJsonOutput(a.json, results::ToJson(o.doc)); !s.ok()) {
        PrintError(s.message());
        code = kExitFailed;
      }
    }
    return code == kExitOk ? Status::Ok() : Status::Io("an output was not written");
  };
  auto outcome = usecase::Run(*q);
  if (!outcome.ok()) return Fail(outcome.status());
  if (!outcome->end.closed.ok()) {
    PrintError(outcome->end.closed.message());
    code = kExitFailed;
  }
  return PhaseExitCode(outcome->result, code);
}

int Run(const RunArgs& a) {
  if (!a.mpi) {
    if (a.range_per_rank) return Fail(Status::Invalid("--range-per-rank needs --mpi"));
    return RunClient(a, nullptr);
  }
  auto mpi = usecase::MpiClients::Start();
  if (!mpi.ok()) return Fail(mpi.status());
  int code = RunClient(a, &mpi.value());
  // A rank that failed before the start tells the others, which wait for it at the start.
  const Status early = Status::Io("failed before the start");
  if (!mpi->agreed()) mpi->AgreeOnTarget(early, "", 0).ok();
  if (!mpi->started()) mpi->StartTogether(early).ok();
  return code;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* cmd =
      app.add_subcommand("run", "Run one workload against one target (the fio-like primitive)");
  AddTargetOptions(cmd, &a->targets, &a->layout, &a->chunk,
                   "File, block device, or sim:PRESET[?key=value&...]");
  AddOptionDefs(cmd, usecase::RunOptionDefs(), a->options);
  cmd->add_option("--json", a->json, "Write the JSON result to FILE (- for stdout)");
  cmd->add_option("--db", a->db,
                  "Store the run in this results database (SQLite file or postgresql:// URL), "
                  "as a run of kind run that ls, show, report and export read");
  cmd->add_option(
      "--run", a->run,
      "Run name in --db, refused if taken (default run-YYYYMMDD-HHMMSS, then -2, -3...)");
  cmd->add_option("--lat-log", a->lat_log, "Write every I/O as CSV to FILE (- for stdout)");
  cmd->add_flag("--destructive", a->destructive,
                "Allow writing to a block device (destroys its data)");
  cmd->add_flag("--mpi", a->mpi,
                "One client of a multi-client load started by mpirun: all ranks start together, "
                "rank 0 writes the merged result (%r and %h in --target: rank and host)");
  cmd->add_flag("--range-per-rank", a->range_per_rank,
                "With --mpi: each rank loads its own slice of the range (default: the whole "
                "range, with the seed offset by the rank)");
  AddJobFileOptions(cmd, &a->job);
  cmd->callback([a, exit_code, cmd] {
    a->argv.clear();
    if (std::optional<int> code = RunJobFileCommand(*cmd, a->job)) {
      *exit_code = *code;
      return;
    }
    *exit_code = Run(*a);
  });
}

}  // namespace ssdlab
