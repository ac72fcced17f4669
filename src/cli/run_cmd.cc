// `ssdlab run`: one workload against one target, the fio-like primitive.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "base/clock.h"
#include "base/output_file.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/lat_log.h"
#include "cli/output.h"
#include "device/device_backend.h"
#include "device/device_json.h"
#include "results/ids.h"
#include "stats/completed_io.h"
#include "usecase/mpi_clients.h"
#include "usecase/paths.h"
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
  std::string batch_submit, batch_complete, sqpoll_cpu, cpus_allowed, force_async;
  bool sqpoll = false, hipri = false, no_ring_fd = false;
  bool buffered = false;
  bool destructive = false;
  bool prefill = false;
  std::string json;
  std::string lat_log;
  std::string temp_interval = "1s";
  bool mpi = false, range_per_rank = false;  // --mpi: a client of a multi-client load
  std::vector<std::string> argv;
};

bool RwWrites(const std::string& rw) { return rw != "read" && rw != "randread"; }

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
  if (!a.cpus_allowed.empty()) {
    auto cpus = ParseCpuList(a.cpus_allowed);
    if (!cpus.ok()) return cpus.status();
    o.cpus_allowed = cpus.value();
  }
  return Status::Ok();
}

// context.engine: the engine's name, what was asked for and what the kernel granted.
nlohmann::json EngineJson(const std::string& name, const EngineReport* r) {
  nlohmann::json j;
  j["name"] = name;
  if (!r) return j;
  const EngineOptions& q = r->requested;
  auto adaptive = [](uint32_t v) { return v ? nlohmann::json(v) : nlohmann::json("adaptive"); };
  j["requested"] = {
      {"batch_submit", adaptive(q.batch_submit)},
      {"batch_complete_min", q.batch_complete_min == kBatchCompleteAuto ? nlohmann::json("auto")
                             : q.batch_complete_min ? nlohmann::json(q.batch_complete_min)
                                                    : nlohmann::json("default")},
      {"batch_complete_max",
       q.batch_complete_max ? nlohmann::json(q.batch_complete_max) : nlohmann::json("all")},
      {"sqpoll", q.sqpoll},
      {"sqpoll_cpu", q.sqpoll_cpu >= 0 ? nlohmann::json(q.sqpoll_cpu) : nlohmann::json(nullptr)},
      {"hipri", q.hipri},
      {"register_ring_fd", q.register_ring_fd},
      {"force_async", ForceAsyncName(q.force_async)},
      {"cpus_allowed", q.cpus_allowed.empty() ? nlohmann::json(nullptr)
                                              : nlohmann::json(FormatCpuList(q.cpus_allowed))},
  };
  const EngineGrant& g = r->granted;
  nlohmann::json granted = {
      {"batch_submit", r->batch_submit},
      {"batch_complete_min", r->batch_complete_min == kBatchCompleteAuto
                                 ? nlohmann::json("auto (a quarter of the depth, 1..32)")
                                 : nlohmann::json(r->batch_complete_min)},
      {"batch_complete_max",
       r->batch_complete_max ? nlohmann::json(r->batch_complete_max) : nlohmann::json("all")},
      {"cpus", r->cpus.empty() ? nlohmann::json(nullptr) : nlohmann::json(FormatCpuList(r->cpus))},
      {"cpus_source", r->cpus_source},
      {"numa_node", r->numa_node >= 0 ? nlohmann::json(r->numa_node) : nlohmann::json(nullptr)},
  };
  if (r->kind == EngineKind::kIoUring) {
    granted.update({
        {"features", r->features},
        {"single_issuer", g.single_issuer},
        {"defer_taskrun", g.defer_taskrun},
        {"sqpoll", g.sqpoll},
        {"sqpoll_cpu", g.sqpoll_cpu >= 0 ? nlohmann::json(g.sqpoll_cpu) : nlohmann::json(nullptr)},
        {"hipri", g.hipri},
        {"registered_ring_fd", g.registered_ring_fd},
        {"fixed_buffers", g.fixed_buffers},
        {"fixed_files", g.fixed_files},
        {"nowait_target", r->nowait_target},
        {"force_async", g.force_async},
        {"async_workers",
         g.async_workers ? nlohmann::json(g.async_workers) : nlohmann::json(nullptr)},
    });
  }
  j["granted"] = granted;
  return j;
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

// One client's run; with `mpi`, one rank of a multi-client load (cli/mpi_clients.h): only
// rank 0 prints and writes the JSON, of the merged result.
int RunClient(RunArgs a, usecase::MpiClients* mpi) {
  if (mpi) mpi->ExpandTargets(a.targets);
  auto target = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  if (!target.ok()) {
    return Fail(target.status());
  }
  a.target = target.value();
  PathRegistry paths = usecase::CommandPaths();
  if (Status s =
          usecase::AddTargetPaths(paths, "--target", a.target, RwWrites(a.w.rw) || a.prefill);
      !s.ok())
    return Fail(s);
  paths.AddOutput("--json", a.json);
  paths.AddOutput("--lat-log", a.lat_log);
  if (Status s = paths.Check(); !s.ok()) return Fail(s);
  usecase::TargetRequest req;
  req.target = a.target;
  req.writes = RwWrites(a.w.rw) || a.prefill;
  req.destructive = a.destructive;
  req.direct = !a.buffered;
  if (!a.size.empty()) {
    auto size = ParseBytes(a.size);
    if (!size.ok()) {
      PrintError("--size: " + size.status().message());
      return kExitUsage;
    }
    req.size_bytes = size.value();
  }
  auto engine = ParseEngineKind(a.engine);
  if (!engine.ok()) {
    return Fail(engine.status());
  }
  req.engine = engine.value();
  if (Status s = ParseEngineArgs(a, req.engine_options); !s.ok()) {
    PrintError(s.message());
    return kExitUsage;
  }
  if (IsSimTarget(a.target) && (a.sqpoll || a.hipri || !a.cpus_allowed.empty() ||
                                !a.batch_submit.empty() || !a.batch_complete.empty() ||
                                !a.sqpoll_cpu.empty() || a.no_ring_fd || !a.force_async.empty())) {
    PrintError(
        "the engine flags (--batch-*, --sqpoll*, --hipri, --cpus-allowed, --no-ring-fd, "
        "--force-async) apply to real targets, not a simulated drive");
    return kExitUsage;
  }
  // Syntax first, so that a typo never creates or touches the target.
  if (auto s = ResolveWorkload(a.w, uint64_t{1} << 50, 1); !s.ok()) {
    return Fail(s.status());
  }
  if (IsSimTarget(a.target) && a.w.verify) {
    PrintError("--verify: a simulated drive stores no data to check");
    return kExitUsage;
  }
  if (a.engine == "io_uring" && a.w.qd > kMaxUringDepth) {
    PrintError(
        fmt::format("--qd {} is above io_uring's limit of {} entries per ring; use more --jobs",
                    a.w.qd, kMaxUringDepth));
    return kExitUsage;
  }
  auto info = usecase::ProbeTarget(req);
  if (!info.ok()) {
    return Fail(info.status());
  }
  auto spec = ResolveWorkload(a.w, info->size_bytes, info->logical_block_bytes);
  if (!spec.ok()) {
    return Fail(spec.status());
  }
  if (mpi) {
    // Before anything is written (--prefill): every rank's target is the size of rank 0's.
    if (Status s = mpi->AgreeOnTarget(Status::Ok(), a.target, info->size_bytes); !s.ok())
      return Fail(s);
    if (Status s = mpi->ShareWorkload(spec.value(), a.range_per_rank); !s.ok()) return Fail(s);
  }
  std::unique_ptr<CsvIoLog> lat_log;
  if (!a.lat_log.empty()) {
    auto l = CsvIoLog::Open(a.lat_log);
    if (!l.ok()) {
      return Fail(l.status());
    }
    lat_log = std::move(l.value());
  }
  auto temp_interval = ParseDurationNs(a.temp_interval);
  if (!temp_interval.ok()) {
    PrintError("--temp-interval: " + temp_interval.status().message());
    return kExitUsage;
  }
  auto backend = usecase::OpenTarget(req);
  if (!backend.ok()) {
    return Fail(backend.status());
  }
  std::optional<DeviceIdentity> identity;
  if (!IsSimTarget(a.target)) {
    auto id = IdentifyTarget(a.target);
    if (id.ok()) identity = id.value();
  }
  HealthMonitor health(identity ? &*identity : nullptr);
  health.Start(temp_interval.value());

  RunControl control;
  control.stop = &StopFlag();
  control.io_log = lat_log.get();
  bool tty = isatty(STDERR_FILENO);
  if (tty && spec->interval_ns) control.on_interval = PrintProgress;
  std::vector<std::string> prefill_notes;
  if (std::string n = usecase::SimStateNote(**backend); !n.empty()) prefill_notes.push_back(n);
  if (a.prefill) {  // one sequential pass over the range, not measured
    WorkloadSpec fill = PrefillOf(spec.value());
    RunControl quiet{control.stop, nullptr, nullptr};
    auto filled = (*backend)->RunPhase(fill, quiet);
    Status fs = !filled.ok()          ? filled.status()
                : filled->interrupted ? Status::Error(Code::kInterrupted, "interrupted")
                : filled->io_errors != 0
                    ? Status::Io(filled->errors.empty() ? "I/O errors" : filled->errors.front())
                    : Status::Ok();
    if (!fs.ok()) {
      PrintError(fs.WithContext("--prefill").message());
      if (Status cs = usecase::EndTargetUse(**backend, fs, CliConsole()); !cs.ok())
        PrintError(cs.message());
      return ExitCodeFor(fs);
    }
    prefill_notes.push_back("--prefill wrote the range once sequentially (" +
                            FormatBytes(fill.io_bytes) + ", not measured)");
  }
  if (mpi) {
    if (tty) control.on_interval = nullptr;  // one status line per terminal, not per rank
    if (Status s = mpi->StartTogether(Status::Ok()); !s.ok()) return Fail(s);  // nothing saved
  }
  double start = UnixTimeS();
  auto result = (*backend)->RunPhase(spec.value(), control);
  if (result.ok())
    result->notes.insert(result->notes.begin(), prefill_notes.begin(), prefill_notes.end());
  double end = UnixTimeS();
  nlohmann::json health_json = health.Stop();
  if (tty && spec->interval_ns) std::cerr << "\r\x1b[K" << std::flush;
  // How the command's work ended: a simulated drive with state= saves it when the command ends
  // well or is interrupted (Ctrl-C ends the phase cleanly), after every output is written, and
  // not when it fails (EndTargetUse).
  const Status outcome = !result.ok()          ? result.status()
                         : result->interrupted ? Status::Error(Code::kInterrupted, "interrupted")
                                               : Status::Ok();
  std::optional<usecase::MpiClients::Merged> merged;
  if (mpi) {
    nlohmann::json about = {{"target", a.target},
                            {"range_begin_bytes", spec->range_begin_bytes},
                            {"range_end_bytes", spec->range_end_bytes},
                            {"seed", results::IdJson(spec->seed)}};
    auto gathered = mpi->Gather(result, about);
    if (!gathered.ok()) return Fail(gathered.status());
    if (mpi->rank() != 0) {  // rank 0 reports for all
      if (!result.ok()) return ExitCodeFor(result.status());
      Status closed = usecase::EndTargetUse(**backend, outcome, CliConsole());
      if (!closed.ok()) PrintError(closed.message());
      return PhaseExitCode(result.value(), closed.ok() ? kExitOk : kExitFailed);
    }
    merged = std::move(gathered.value());
  }
  if (!result.ok()) return Fail(result.status());  // nothing saved
  const PhaseResult& r = merged ? merged->aggregate : result.value();
  // No I/O completed: no figure to give, so neither the JSON nor the latency log is written.
  // A failed command: the drive's state is not saved either.
  if (Status s = CheckCompletedIo(r, "run", "a longer --runtime"); !s.ok()) return Fail(s);

  int code = kExitOk;
  if (lat_log) {
    if (Status s = lat_log->Close(); !s.ok()) {
      PrintError(s.message());
      code = kExitFailed;
    }
  }
  nlohmann::json doc;
  doc["schema_version"] = usecase::kRunSchemaVersion;
  nlohmann::json ctx = usecase::PlatformJson();
  ctx["command_line"] = a.argv;
  ctx["target"] = usecase::TargetJson((*backend)->info());
  ctx["device"] = identity ? IdentityJson(*identity) : nlohmann::json(nullptr);
  ctx["workload"] = usecase::WorkloadJson(spec.value());
  ctx["engine"] = EngineJson(IsSimTarget(a.target) ? "sim" : a.engine, EngineReportOf(**backend));
  ctx["direct"] = !a.buffered;
  ctx["seed"] = results::IdJson(spec->seed);
  ctx["start_time"] = usecase::IsoTime(start);
  ctx["end_time"] = usecase::IsoTime(end);
  doc["context"] = ctx;
  doc.update(usecase::PhaseJson(r));
  doc["health"] = health_json;
  if (merged) {
    doc["mpi"] = merged->mpi;
    doc["mpi"]["range_per_rank"] = a.range_per_rank;
  }

  std::ostream& human = a.json == "-" || a.lat_log == "-" ? std::cerr : std::cout;
  human << fmt::format(
      "{} on {} ({}, {}), {}, {:.2f} s measured{}\n", DescribeWorkload(spec.value()), a.target,
      (*backend)->info().kind, FormatBytes((*backend)->info().size_bytes),
      IsSimTarget(a.target) ? "sim" : a.engine, static_cast<double>(r.measured_ns) / 1e9,
      r.interrupted ? " (INTERRUPTED)" : "");
  if (merged)
    human << fmt::format("{} clients (MPI ranks), start skew {}; the figures below are their sum\n",
                         mpi->size(), FormatNs(merged->mpi["start_skew_ns"].get<double>()));
  human << SummaryTable(r);
  for (const auto& n : r.notes) human << "note: " << n << "\n";
  const nlohmann::json& temp = health_json["temperature"];
  if (health_json["source"] == "simulated") {
    human << "temperature: none (a simulated drive models no temperature)\n";
  } else if (!temp["peak_c"].is_null()) {
    human << fmt::format("temperature ({}): idle {:.0f} C, peak {:.0f} C, mean {:.1f} C\n",
                         health_json["source"].get<std::string>(), temp["idle_c"].get<double>(),
                         temp["peak_c"].get<double>(), temp["mean_c"].get<double>());
  } else if (!health_json["reason"].get<std::string>().empty()) {
    human << "temperature: not available (" << health_json["reason"].get<std::string>() << ")\n";
  }
  if (!a.json.empty()) {
    if (Status s = WriteJsonOutput(a.json, doc); !s.ok()) {
      PrintError(s.message());
      code = kExitFailed;
    }
  }
  // An output that failed fails the command: then its drive's state is not saved either.
  if (Status closed = usecase::EndTargetUse(
          **backend, code == kExitOk ? outcome : Status::Io("an output was not written"),
          CliConsole());
      !closed.ok()) {
    PrintError(closed.message());
    code = kExitFailed;
  }
  return PhaseExitCode(r, code);
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
  cmd->add_option("--engine", a->engine, "io_uring|libaio|psync")->capture_default_str();
  cmd->add_flag("--buffered", a->buffered, "Use the page cache (no O_DIRECT)");
  cmd->add_option("--batch-submit", a->batch_submit,
                  "Refill once N slots are free (fio iodepth_batch_submit; default adaptive)");
  cmd->add_option("--batch-complete", a->batch_complete,
                  "auto|MIN[:MAX] completions waited for / reaped per system call (default "
                  "auto: a quarter of the depth; 1 = exact intervals)");
  cmd->add_flag("--sqpoll", a->sqpoll,
                "io_uring submission-queue polling thread (IORING_SETUP_SQPOLL)");
  cmd->add_option("--sqpoll-cpu", a->sqpoll_cpu, "CPU of the SQPOLL thread");
  cmd->add_flag("--hipri", a->hipri,
                "Polled completions (IORING_SETUP_IOPOLL); needs a device with poll queues");
  cmd->add_flag("--no-ring-fd", a->no_ring_fd,
                "Do not register the ring fd (io_uring_register_ring_fd)");
  cmd->add_option("--force-async", a->force_async,
                  "auto|on|off: IOSQE_ASYNC on every request, over one io-wq worker per CPU "
                  "(auto: where the target cannot take requests without blocking)");
  cmd->add_option("--cpus-allowed", a->cpus_allowed,
                  "CPUs of the job threads, e.g. 0,2-3 (default: the device's NUMA node)");
  cmd->add_option("--data", a->w.data, "random|zero|compressible:N|dedupe:N")
      ->capture_default_str();
  cmd->add_option("--seed", a->w.seed, "Seed of offsets and data")->capture_default_str();
  cmd->add_flag("--verify", a->w.verify, "Write verify headers and check them on reads");
  cmd->add_option("--json", a->json, "Write the JSON result to FILE (- for stdout)");
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
  cmd->callback([a, exit_code, &app] {
    a->argv.clear();
    *exit_code = Run(*a);
  });
}

}  // namespace ssdlab
