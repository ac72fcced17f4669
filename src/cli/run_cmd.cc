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
  WorkloadArgs w;
  std::string target;
  std::vector<std::string> targets;  // --target, composed into `target` (an array with --layout)
  std::string layout, chunk;
  std::string size;
  std::string engine = "io_uring";
  // Engine options as text (empty: the default), parsed by ParseEngineArgs.
  std::string batch_submit, batch_complete, sqpoll_cpu, cpus_allowed, force_async, pin_workers;
  bool sqpoll = false, hipri = false, no_ring_fd = false;
  bool buffered = false;
  bool destructive = false;
  bool prefill = false;
  std::string json;
  std::string db, run;  // --db, --run: stored as a run of kind "run"
  std::string lat_log;
  std::string temp_interval = "1s";
  bool mpi = false, range_per_rank = false;  // --mpi: a client of a multi-client load
  std::vector<std::string> argv;
  JobFileArgs job{
      .targets = &targets, .json = &json, .db = &db, .run = &run, .destructive = &destructive};
};

// The engine flags of `a` into options; Invalid naming the flag on a malformed value.
Status ParseEngineArgs(const RunArgs& a, EngineOptions& o) {
  SSDLAB_RETURN_IF_ERROR(usecase::CountFlag("--batch-submit", a.batch_submit, o.batch_submit));
  if (!a.batch_complete.empty()) {
    SSDLAB_RETURN_IF_ERROR(
        ParseBatchComplete(a.batch_complete, o.batch_complete_min, o.batch_complete_max));
  }
  o.sqpoll = a.sqpoll;
  if (!a.sqpoll_cpu.empty()) {
    auto cpus = ParseCpuList(a.sqpoll_cpu);
    if (!cpus.ok() || cpus->size() != 1)
      return Status::Invalid("--sqpoll-cpu '" + a.sqpoll_cpu + "' is not one CPU number");
    o.sqpoll_cpu = static_cast<int32_t>(cpus->front());
  }
  o.hipri = a.hipri;
  o.register_ring_fd = !a.no_ring_fd;
  if (!a.force_async.empty()) {
    auto fa = ParseForceAsync(a.force_async);
    if (!fa.ok()) return fa.status();
    o.force_async = fa.value();
  }
  if (!a.pin_workers.empty()) {
    auto pw = ParsePinWorkers(a.pin_workers);
    if (!pw.ok()) return pw.status();
    o.pin_workers = pw.value();
  }
  if (!a.cpus_allowed.empty()) {
    auto cpus = ParseCpuList(a.cpus_allowed);
    if (!cpus.ok()) return cpus.status();
    o.cpus_allowed = cpus.value();
  }
  return Status::Ok();
}

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
  if (!a.size.empty()) {
    auto size = ParseBytes(a.size);
    if (!size.ok()) return Status::Invalid("--size: " + size.status().message());
    q.size_bytes = size.value();
  }
  SSDLAB_ASSIGN_OR_RETURN(q.engine, ParseEngineKind(a.engine));
  if (Status s = ParseEngineArgs(a, q.engine_options); !s.ok()) return Status::Invalid(s.message());
  auto temp_interval = ParseDurationNs(a.temp_interval);
  if (!temp_interval.ok())
    return Status::Invalid("--temp-interval: " + temp_interval.status().message());
  q.temp_interval_ns = temp_interval.value();
  q.engine_flags_given = a.sqpoll || a.hipri || !a.cpus_allowed.empty() ||
                         !a.batch_submit.empty() || !a.batch_complete.empty() ||
                         !a.sqpoll_cpu.empty() || a.no_ring_fd || !a.force_async.empty() ||
                         !a.pin_workers.empty();
  q.workload = a.w;
  q.engine_name = a.engine;
  q.buffered = a.buffered;
  q.destructive = a.destructive;
  q.prefill = a.prefill;
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
  if (o.doc.contains("mpi"))
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
    if (!o.stored.ok()) {
      PrintError("cannot store the run in " + MaskSecrets(a.db) + ": " + o.stored.message());
      code = kExitFailed;
    }
    if (lat_log) {
      if (Status s = lat_log->Close(); !s.ok()) {
        PrintError(s.message());
        code = kExitFailed;
      }
    }
    std::ostream& human = a.json == "-" || a.lat_log == "-" ? std::cerr : std::cout;
    PrintRunSummary(a.target, a.engine, o, human);
    if (!o.run.empty() && o.stored.ok())
      human << fmt::format("stored as run '{}' in {}\n", o.run, MaskSecrets(a.db));
    if (!a.json.empty()) {
      if (Status s = WriteJsonOutput(a.json, o.doc); !s.ok()) {
        PrintError(s.message());
        code = kExitFailed;
      }
    }
    return code == kExitOk ? Status::Ok() : Status::Io("an output was not written");
  };
  auto outcome = usecase::Run(*q);
  if (!outcome.ok()) return Fail(outcome.status());
  if (!outcome->closed.ok()) {
    PrintError(outcome->closed.message());
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

// run's engine flags (--engine to --cpus-allowed).
void AddRunEngineOptions(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--engine", a.engine, "io_uring|libaio|psync")->capture_default_str();
  cmd->add_flag("--buffered", a.buffered, "Use the page cache (no O_DIRECT)");
  cmd->add_option("--batch-submit", a.batch_submit,
                  "Refill once N slots are free (fio iodepth_batch_submit; default adaptive)");
  cmd->add_option("--batch-complete", a.batch_complete,
                  "auto|MIN[:MAX] completions waited for / reaped per system call (default "
                  "auto: a quarter of the depth; 1 = exact intervals)");
  cmd->add_flag("--sqpoll", a.sqpoll,
                "io_uring submission-queue polling thread (IORING_SETUP_SQPOLL)");
  cmd->add_option("--sqpoll-cpu", a.sqpoll_cpu, "CPU of the SQPOLL thread");
  cmd->add_flag("--hipri", a.hipri,
                "Polled completions (IORING_SETUP_IOPOLL); needs a device with poll queues");
  cmd->add_flag("--no-ring-fd", a.no_ring_fd,
                "Do not register the ring fd (io_uring_register_ring_fd)");
  cmd->add_option("--force-async", a.force_async,
                  "auto|on|off: IOSQE_ASYNC on every request, over one io-wq worker per CPU "
                  "(auto: where the target cannot take requests without blocking)");
  cmd->add_option("--pin-workers", a.pin_workers,
                  "auto|on|off: each job thread on one CPU with the io-wq workers of its ring "
                  "(auto: where requests run in io-wq and a job has one CPU or less)");
  cmd->add_option("--cpus-allowed", a.cpus_allowed,
                  "CPUs of the job threads, e.g. 0,2-3 (default: the device's NUMA node)");
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* cmd =
      app.add_subcommand("run", "Run one workload against one target (the fio-like primitive)");
  AddTargetOptions(cmd, &a->targets, &a->layout, &a->chunk,
                   "File, block device, or sim:PRESET[?key=value&...]");
  cmd->add_option("--size", a->size,
                  "Size of the target region (creates a missing file), e.g. 4GiB");
  cmd->add_option("--rw", a->w.rw, "read|write|randread|randwrite|rw|randrw|trim|randtrim")
      ->capture_default_str();
  cmd->add_option("--rwmix-read", a->w.rwmix_read, "Percent of reads for rw/randrw (default 50)");
  cmd->add_option("--bs", a->w.bs, "Block size or mix, e.g. 4KiB or 4KiB:67,8KiB:10,64KiB:23")
      ->capture_default_str();
  cmd->add_option("--qd", a->w.qd, "Queue depth per job")->capture_default_str();
  cmd->add_option("--jobs", a->w.jobs, "Jobs (threads)")->capture_default_str();
  cmd->add_option("--runtime", a->w.runtime,
                  "Measured time, e.g. 10s (default 10s for random, one pass for sequential)");
  cmd->add_option("--io-size", a->w.io_size,
                  "Measured amount, e.g. 8GiB or 3x (times the active range)");
  cmd->add_option("--ramp", a->w.ramp, "Excluded from statistics: time (2s) or amount (2x, 1GiB)");
  cmd->add_option("--range", a->w.range, "Active range, e.g. 0%-25% or 1GiB-2GiB")
      ->capture_default_str();
  cmd->add_option("--dist", a->w.dist, "uniform|zipf:S|pareto:H|zoned:A/R:A/R...")
      ->capture_default_str();
  cmd->add_option("--rate-iops", a->w.rate_iops,
                  "Open-loop rate over all jobs; latency counts from the scheduled time");
  AddRunEngineOptions(cmd, *a);
  cmd->add_option("--data", a->w.data, "random|zero|compressible:N|dedupe:N")
      ->capture_default_str();
  cmd->add_option("--seed", a->w.seed, "Seed of offsets and data")->capture_default_str();
  cmd->add_flag("--verify", a->w.verify, "Write verify headers and check them on reads");
  cmd->add_option("--json", a->json, "Write the JSON result to FILE (- for stdout)");
  cmd->add_option("--db", a->db,
                  "Store the run in this results database (SQLite file or postgresql:// URL), "
                  "as a run of kind run that ls, show, report and export read");
  cmd->add_option(
      "--run", a->run,
      "Run name in --db, refused if taken (default run-YYYYMMDD-HHMMSS, then -2, -3...)");
  cmd->add_option("--interval", a->w.interval, "Time-series interval (0 for none)")
      ->capture_default_str();
  cmd->add_option("--lat-log", a->lat_log, "Write every I/O as CSV to FILE (- for stdout)");
  cmd->add_flag("--destructive", a->destructive,
                "Allow writing to a block device (destroys its data)");
  cmd->add_flag("--prefill", a->prefill,
                "Write the range once sequentially before the workload (not measured; needs "
                "--destructive on a block device)");
  cmd->add_option("--temp-interval", a->temp_interval,
                  "Temperature sampling interval (0: only before and after)")
      ->capture_default_str();
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
