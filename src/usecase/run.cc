#include "usecase/run.h"

#include <fmt/format.h>

#include <optional>

#include "base/clock.h"
#include "base/units.h"
#include "device/device_backend.h"
#include "device/device_json.h"
#include "results/ids.h"
#include "sim/sim.h"
#include "stats/completed_io.h"
#include "usecase/documents.h"
#include "usecase/paths.h"
#include "usecase/stored_run.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

bool RwWrites(const std::string& rw) { return rw != "read" && rw != "randread"; }

// context.engine: the engine's name, what was asked for and what the kernel granted.
results::EngineContext EngineOf(const std::string& name, const EngineReport* r) {
  using Setting = results::EngineSetting;
  auto number = [](int64_t v) { return Setting{.number = v}; };
  auto word = [](std::string w) { return Setting{.word = std::move(w)}; };
  auto number_or = [&](int64_t v, bool set, const char* otherwise) {
    return set ? number(v) : word(otherwise);
  };
  auto cpus = [&](const std::vector<uint32_t>& list) {
    return list.empty() ? Setting{} : word(FormatCpuList(list));
  };
  results::EngineContext e{.name = name};
  if (!r) return e;
  const EngineOptions& q = r->requested;
  e.requested = results::EngineContext::Requested{
      .batch_submit = number_or(q.batch_submit, q.batch_submit != 0, "adaptive"),
      .batch_complete_min = q.batch_complete_min == kBatchCompleteAuto ? word("auto")
                            : q.batch_complete_min ? number(q.batch_complete_min)
                                                   : word("default"),
      .batch_complete_max = number_or(q.batch_complete_max, q.batch_complete_max != 0, "all"),
      .sqpoll = q.sqpoll,
      .sqpoll_cpu = q.sqpoll_cpu >= 0 ? number(q.sqpoll_cpu) : Setting{},
      .hipri = q.hipri,
      .register_ring_fd = q.register_ring_fd,
      .force_async = AutoOnOffName(q.force_async),
      .pin_workers = AutoOnOffName(q.pin_workers),
      .cpus_allowed = cpus(q.cpus_allowed)};
  e.granted = results::EngineContext::Granted{
      .batch_submit = r->batch_submit,
      .batch_complete_min =
          number_or(r->batch_complete_min, r->batch_complete_min != kBatchCompleteAuto,
                    "auto (a quarter of the depth, 1..32)"),
      .batch_complete_max = number_or(r->batch_complete_max, r->batch_complete_max != 0, "all"),
      .cpus = cpus(r->cpus),
      .cpus_source = r->cpus_source,
      .numa_node = r->numa_node >= 0 ? number(r->numa_node) : Setting{}};
  if (r->kind == EngineKind::kIoUring) {
    const EngineGrant& g = r->granted;
    e.granted->uring = results::EngineContext::Uring{
        .features = r->features,
        .single_issuer = g.single_issuer,
        .defer_taskrun = g.defer_taskrun,
        .sqpoll = g.sqpoll,
        .sqpoll_cpu = g.sqpoll_cpu >= 0 ? number(g.sqpoll_cpu) : Setting{},
        .hipri = g.hipri,
        .registered_ring_fd = g.registered_ring_fd,
        .fixed_buffers = g.fixed_buffers,
        .fixed_files = g.fixed_files,
        .nowait_target = r->nowait_target,
        .force_async = g.force_async,
        .async_workers = g.async_workers ? number(g.async_workers) : Setting{},
        .pin_workers = cpus(r->job_cpus),
        .iowq_affinity = !g.iowq_cpus.empty()};
  }
  return e;
}

std::vector<RunDef> EngineFlagDefs();

// Everything checked before the target is opened: its paths, the engine flags on a simulator,
// the workload's syntax, --verify and the ring's depth; returns the target's facts.
Result<TargetInfo> CheckRun(const RunRequest& q, const TargetRequest& req) {
  PathRegistry paths = CommandPaths();
  SSDLAB_RETURN_IF_ERROR(AddTargetPaths(paths, "--target", q.target, req.writes));
  for (const auto& [what, path] : q.outputs) paths.AddOutput(what, path);
  AddDatabasePath(paths, "--db", q.db, true);
  SSDLAB_RETURN_IF_ERROR(paths.Check());
  if (!q.run.empty() && q.db.empty()) return Status::Invalid("--run needs --db");
  const bool sim = IsSimTarget(q.target);
  if (sim && q.engine_flags_given) {
    std::string flags;
    for (const RunDef& d : EngineFlagDefs())
      flags += (flags.empty() ? "" : ", ") + std::string(d.flag);
    return Status::Invalid("the engine flags (" + flags +
                           ") apply to real targets, not a simulated drive");
  }
  // Syntax first, so that a typo never creates or touches the target.
  SSDLAB_RETURN_IF_ERROR(ResolveWorkload(q.workload, uint64_t{1} << 50, 1).status());
  if (sim && q.workload.verify)
    return Status::Invalid("--verify: a simulated drive stores no data to check");
  if (q.engine_name == "io_uring" && q.workload.qd > kMaxUringDepth)
    return Status::Invalid(
        fmt::format("--qd {} is above io_uring's limit of {} entries per ring; use more --jobs",
                    q.workload.qd, kMaxUringDepth));
  return ProbeTarget(req);
}

// --prefill: one sequential pass over the range, not measured; its note, or why it failed.
Result<std::string> Prefill(Backend& backend, const WorkloadSpec& spec,
                            const std::atomic<bool>* stop) {
  WorkloadSpec fill = PrefillOf(spec);
  RunControl quiet{stop, nullptr, nullptr};
  auto filled = backend.RunPhase(fill, quiet);
  Status fs = !filled.ok()          ? filled.status()
              : filled->interrupted ? Status::Error(Code::kInterrupted, "interrupted")
              : filled->io_errors != 0
                  ? Status::Io(filled->errors.empty() ? "I/O errors" : filled->errors.front())
                  : Status::Ok();
  if (!fs.ok()) return fs;
  return "--prefill wrote the range once sequentially (" + FormatBytes(fill.io_bytes) +
         ", not measured)";
}

// The `run` document's context but its times: platform, command line, target, device, workload,
// engine; also the stored run's context.
results::RunContextDoc RunContext(const RunRequest& q, const Backend& backend,
                                  const std::optional<DeviceIdentity>& identity,
                                  const WorkloadSpec& spec) {
  results::RunContextDoc ctx;
  ctx.phase = {.platform = PlatformOf(),
               .command_line = q.argv,
               .target = TargetOf(backend.info()),
               .device = identity ? IdentityJson(*identity) : json(nullptr),
               .workload = WorkloadOf(spec),
               .direct = !q.buffered,
               .seed = spec.seed};
  ctx.engine = EngineOf(IsSimTarget(q.target) ? "sim" : q.engine_name, EngineReportOf(backend));
  return ctx;
}

// The stored run's configuration: the workload as run, its seed, engine and command line.
json RunConfig(const RunRequest& q, const WorkloadSpec& spec) {
  return {{"run", DescribeWorkload(spec)},
          {"target", q.target},
          {"engine", IsSimTarget(q.target) ? "sim" : q.engine_name},
          {"workload", WorkloadJson(spec)},
          {"prefill", q.prefill},
          {"command_line", q.argv},
          {"options", {{"seed", results::IdJson(spec.seed)}}}};
}

// The `run` document: context (platform, target, device, workload, engine, times), the phase's
// results, health and, for a multi-client load, `mpi`.
results::RunDocument RunDocumentOf(const RunRequest& q, const Backend& backend,
                                   const std::optional<DeviceIdentity>& identity, double start,
                                   double end, const RunOutcome& o, const json* mpi) {
  results::RunDocument doc;
  doc.context = RunContext(q, backend, identity, o.spec);
  doc.context.phase.start_time = IsoTime(start);
  doc.context.phase.end_time = IsoTime(end);
  doc.phase = PhaseOf(o.result);
  doc.health = o.health;
  if (mpi) {
    doc.mpi = *mpi;
    (*doc.mpi)["range_per_rank"] = q.range_per_rank;
  }
  return doc;
}

// The phase on `backend` (after --prefill), with the health monitor around it and, with MPI,
// started on every rank together.
Result<PhaseResult> RunMeasuredPhase(const RunRequest& q, Backend& backend, IoLogSink* io_log,
                                     const std::optional<DeviceIdentity>& identity, RunOutcome& o,
                                     double& start, double& end) {
  HealthMonitor health(identity ? &*identity : nullptr);
  health.Start(q.temp_interval_ns);
  RunControl control;
  control.stop = q.stop;
  control.io_log = io_log;
  if (q.progress && o.spec.interval_ns && !q.mpi)  // one status line per terminal, not per rank
    control.on_interval = [p = q.progress](const IntervalSample& s) { p->OnInterval(s); };
  std::vector<std::string> notes;
  if (std::string n = SimStateNote(backend); !n.empty()) notes.push_back(n);
  if (q.prefill) {
    auto note = Prefill(backend, o.spec, q.stop);
    if (!note.ok()) {
      if (Status cs = EndTargetUse(backend, note.status(), *q.console); !cs.ok())
        q.console->Fail(cs);
      return note.status().WithContext("--prefill");
    }
    notes.push_back(note.value());
  }
  if (q.mpi) SSDLAB_RETURN_IF_ERROR(q.mpi->StartTogether(Status::Ok()));  // nothing saved
  start = UnixTimeS();
  auto result = backend.RunPhase(o.spec, control);
  if (result.ok()) result->notes.insert(result->notes.begin(), notes.begin(), notes.end());
  end = UnixTimeS();
  o.health = health.Stop();
  if (q.progress && o.spec.interval_ns) q.progress->PhaseEnded();
  return result;
}

using RunText = const std::string&;

// A text of the workload, kept as given (ResolveWorkload reads it once the target is known).
RunDef WorkloadText(const char* flag, std::string help, std::string WorkloadArgs::*member,
                    bool show = true) {
  RunDef d{flag, std::move(help), [member](RunText, RunText t, RunRequest& q) {
             q.workload.*member = t;
             return Status::Ok();
           }};
  if (show) d.shown = [member](const RunRequest& q) { return q.workload.*member; };
  return d;
}

// A count of the workload; 0 is left to ResolveWorkload's check.
RunDef WorkloadCount(const char* flag, std::string help, uint32_t WorkloadArgs::*member) {
  return {flag, std::move(help),
          [member](RunText f, RunText t, RunRequest& q) {
            return CountFlag(f, t, q.workload.*member, true);
          },
          [member](const RunRequest& q) { return std::to_string(q.workload.*member); }};
}

// An engine flag: sets its option and marks the engine's flags as given (refused on a
// simulator, CheckRun).
RunDef EngineFlag(const char* flag, std::string help,
                  std::function<Status(RunText f, RunText t, EngineOptions& o)> set,
                  bool is_switch = false) {
  return {flag,
          std::move(help),
          [set = std::move(set)](RunText f, RunText t, RunRequest& q) {
            q.engine_flags_given = true;
            return set(f, t, q.engine_options);
          },
          {},
          is_switch};
}

// The workload's own defaults where the flag has none: rwmix of an rw/randrw workload, the
// runtime of a random one.
WorkloadSpec DefaultWorkload(const std::string& rw) {
  WorkloadArgs a;
  a.rw = rw;
  auto spec = ResolveWorkload(a, uint64_t{1} << 30, 1);
  return spec.ok() ? spec.value() : WorkloadSpec{};
}

std::vector<RunDef> WorkloadDefs() {
  return {
      {"--size", "Size of the target region (creates a missing file), e.g. 4GiB",
       [](RunText, RunText t, RunRequest& q) -> Status {
         auto size = ParseBytes(t);
         if (!size.ok()) return Status::Invalid("--size: " + size.status().message());
         q.size_bytes = size.value();
         return Status::Ok();
       }},
      WorkloadText("--rw", "read|write|randread|randwrite|rw|randrw|trim|randtrim",
                   &WorkloadArgs::rw),
      {"--rwmix-read", "Percent of reads for rw/randrw",
       [](RunText, RunText t, RunRequest& q) {
         q.workload.rwmix_read = t;
         return Status::Ok();
       },
       [](const RunRequest&) { return FormatNumber(DefaultWorkload("randrw").read_pct); }},
      WorkloadText("--bs", "Block size or mix, e.g. 4KiB or 4KiB:67,8KiB:10,64KiB:23",
                   &WorkloadArgs::bs),
      WorkloadCount("--qd", "Queue depth per job", &WorkloadArgs::qd),
      WorkloadCount("--jobs", "Jobs (threads)", &WorkloadArgs::jobs),
      WorkloadText("--runtime",
                   "Measured time, e.g. 10s (default " +
                       DurationText(DefaultWorkload("randread").runtime_ns) +
                       " for random, one pass for sequential)",
                   &WorkloadArgs::runtime, false),
      WorkloadText("--io-size", "Measured amount, e.g. 8GiB or 3x (times the active range)",
                   &WorkloadArgs::io_size, false),
      WorkloadText("--ramp", "Excluded from statistics: time (2s) or amount (2x, 1GiB)",
                   &WorkloadArgs::ramp, false),
      WorkloadText("--range", "Active range, e.g. 0%-25% or 1GiB-2GiB", &WorkloadArgs::range),
      WorkloadText("--dist", "uniform|zipf:S|pareto:H|zoned:A/R:A/R...", &WorkloadArgs::dist),
      WorkloadText("--rate-iops",
                   "Open-loop rate over all jobs; latency counts from the scheduled time",
                   &WorkloadArgs::rate_iops, false),
  };
}

std::vector<RunDef> EngineDefs() {
  return {
      EngineKindDef<RunRequest>(),
      SwitchDef<RunRequest>("--buffered", "Use the page cache (no O_DIRECT)",
                            &RunRequest::buffered),
  };
}

// The real engine's flags, which a simulated drive refuses (CheckRun).
std::vector<RunDef> EngineFlagDefs() {
  return {
      EngineFlag(
          "--batch-submit",
          "Refill once N slots are free (fio iodepth_batch_submit; default adaptive)",
          [](RunText f, RunText t, EngineOptions& o) { return CountFlag(f, t, o.batch_submit); }),
      EngineFlag("--batch-complete",
                 "auto|MIN[:MAX] completions waited for / reaped per system call (default "
                 "auto: a quarter of the depth; 1 = exact intervals)",
                 [](RunText, RunText t, EngineOptions& o) {
                   return ParseBatchComplete(t, o.batch_complete_min, o.batch_complete_max);
                 }),
      EngineFlag(
          "--sqpoll", "io_uring submission-queue polling thread (IORING_SETUP_SQPOLL)",
          [](RunText, RunText, EngineOptions& o) {
            o.sqpoll = true;
            return Status::Ok();
          },
          true),
      EngineFlag("--sqpoll-cpu", "CPU of the SQPOLL thread",
                 [](RunText, RunText t, EngineOptions& o) -> Status {
                   auto cpus = ParseCpuList(t);
                   if (!cpus.ok() || cpus->size() != 1)
                     return Status::Invalid("--sqpoll-cpu '" + t + "' is not one CPU number");
                   o.sqpoll_cpu = static_cast<int32_t>(cpus->front());
                   return Status::Ok();
                 }),
      EngineFlag(
          "--hipri", "Polled completions (IORING_SETUP_IOPOLL); needs a device with poll queues",
          [](RunText, RunText, EngineOptions& o) {
            o.hipri = true;
            return Status::Ok();
          },
          true),
      EngineFlag(
          "--no-ring-fd", "Do not register the ring fd (io_uring_register_ring_fd)",
          [](RunText, RunText, EngineOptions& o) {
            o.register_ring_fd = false;
            return Status::Ok();
          },
          true),
      EngineFlag("--force-async",
                 "auto|on|off: IOSQE_ASYNC on every request, over one io-wq worker per CPU "
                 "(auto: where the target cannot take requests without blocking)",
                 [](RunText, RunText t, EngineOptions& o) -> Status {
                   SSDLAB_ASSIGN_OR_RETURN(o.force_async, ParseAutoOnOff("--force-async", t));
                   return Status::Ok();
                 }),
      EngineFlag("--pin-workers",
                 "auto|on|off: each job thread on one CPU with the io-wq workers of its ring, "
                 "the pair SCHED_BATCH (auto: where requests run in io-wq and a job has one CPU "
                 "or less)",
                 [](RunText, RunText t, EngineOptions& o) -> Status {
                   SSDLAB_ASSIGN_OR_RETURN(o.pin_workers, ParseAutoOnOff("--pin-workers", t));
                   return Status::Ok();
                 }),
      EngineFlag("--cpus-allowed",
                 "CPUs of the job threads, e.g. 0,2-3 (default: the device's NUMA node)",
                 [](RunText, RunText t, EngineOptions& o) -> Status {
                   SSDLAB_ASSIGN_OR_RETURN(o.cpus_allowed, ParseCpuList(t));
                   return Status::Ok();
                 }),
  };
}

std::vector<RunDef> PhaseDefs() {
  return {
      WorkloadText("--data", "random|zero|compressible:N|dedupe:N", &WorkloadArgs::data),
      {"--seed", "Seed of offsets and data",
       [](RunText f, RunText t, RunRequest& q) { return CountFlag(f, t, q.workload.seed, true); },
       [](const RunRequest& q) { return std::to_string(q.workload.seed); }},
      {"--verify",
       "Write verify headers and check them on reads",
       [](RunText, RunText, RunRequest& q) {
         q.workload.verify = true;
         return Status::Ok();
       },
       {},
       true},
      WorkloadText("--interval", "Time-series interval (0 for none)", &WorkloadArgs::interval),
      SwitchDef<RunRequest>(
          "--prefill",
          "Write the range once sequentially before the workload (not measured; needs "
          "--destructive on a block device)",
          &RunRequest::prefill),
      {"--temp-interval", "Temperature sampling interval (0: only before and after)",
       [](RunText, RunText t, RunRequest& q) -> Status {
         auto ns = ParseDurationNs(t);
         if (!ns.ok()) return Status::Invalid("--temp-interval: " + ns.status().message());
         q.temp_interval_ns = ns.value();
         return Status::Ok();
       },
       [](const RunRequest& q) { return DurationText(q.temp_interval_ns); }},
  };
}

}  // namespace

const std::vector<RunDef>& RunOptionDefs() {
  static const std::vector<RunDef> defs = [] {
    std::vector<RunDef> all = WorkloadDefs();
    for (auto part : {EngineDefs(), EngineFlagDefs(), PhaseDefs()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return defs;
}

Result<RunOutcome> Run(const RunRequest& q) {
  TargetRequest req{.target = q.target,
                    .size_bytes = q.size_bytes,
                    .writes = RwWrites(q.workload.rw) || q.prefill,
                    .destructive = q.destructive,
                    .direct = !q.buffered,
                    .engine = q.engine,
                    .engine_options = q.engine_options};
  SSDLAB_ASSIGN_OR_RETURN(TargetInfo info, CheckRun(q, req));
  RunOutcome o;
  SSDLAB_ASSIGN_OR_RETURN(o.spec,
                          ResolveWorkload(q.workload, info.size_bytes, info.logical_block_bytes));
  if (q.mpi) {
    // Before anything is written (--prefill): every rank's target is the size of rank 0's.
    SSDLAB_RETURN_IF_ERROR(q.mpi->AgreeOnTarget(Status::Ok(), q.target, info.size_bytes));
    SSDLAB_RETURN_IF_ERROR(q.mpi->ShareWorkload(o.spec, q.range_per_rank));
  }
  // --db: the database opened and the run's name settled before the target is (rank 0 stores).
  std::optional<StoredPhaseRun> stored;
  if (!q.db.empty() && (!q.mpi || q.mpi->rank() == 0)) {
    SSDLAB_ASSIGN_OR_RETURN(stored, StoredPhaseRun::Open(q.db, q.run, "run"));
  }
  IoLogSink* io_log = nullptr;
  if (q.open_io_log) {
    SSDLAB_ASSIGN_OR_RETURN(io_log, q.open_io_log());
  }
  SSDLAB_ASSIGN_OR_RETURN(auto backend, OpenTarget(req));
  std::optional<DeviceIdentity> identity;
  if (!IsSimTarget(q.target)) {
    auto id = IdentifyTarget(q.target);
    if (id.ok()) identity = id.value();
  }
  if (stored) {
    SSDLAB_RETURN_IF_ERROR(stored->Begin("run", RunConfig(q, o.spec),
                                         results::ToJson(RunContext(q, *backend, identity, o.spec)),
                                         backend->info()));
    o.run = stored->name();
  }
  double start = 0, end = 0;
  auto result = RunMeasuredPhase(q, *backend, io_log, identity, o, start, end);
  if (stored && !result.ok()) stored->Fail();
  // How the command's work ended: a simulated drive with state= saves it when the command ends
  // well or is interrupted (Ctrl-C ends the phase cleanly), after every output is written, and
  // not when it fails (EndTargetUse).
  const Status outcome = !result.ok()          ? result.status()
                         : result->interrupted ? Status::Error(Code::kInterrupted, "interrupted")
                                               : Status::Ok();
  std::optional<MpiClients::Merged> merged;
  if (q.mpi && !q.mpi->ran_together()) return result.status();  // failed before the start
  if (q.mpi) {
    json about = {{"target", q.target},
                  {"range_begin_bytes", o.spec.range_begin_bytes},
                  {"range_end_bytes", o.spec.range_end_bytes},
                  {"seed", results::IdJson(o.spec.seed)}};
    SSDLAB_ASSIGN_OR_RETURN(merged, q.mpi->Gather(result, about));
    if (q.mpi->rank() != 0) {  // rank 0 reports for all
      SSDLAB_RETURN_IF_ERROR(result.status());
      o.reports = false;
      o.result = std::move(result.value());
      o.end.closed = EndTargetUse(*backend, outcome, *q.console);
      return o;
    }
  }
  SSDLAB_RETURN_IF_ERROR(result.status());  // nothing saved
  o.result = merged ? std::move(merged->aggregate) : std::move(result.value());
  // No I/O completed: no figure to give, so neither the JSON nor the latency log is written.
  // A failed command: the drive's state is not saved either.
  if (Status io = CheckCompletedIo(o.result, "run", "a longer --runtime"); !io.ok()) {
    if (stored) stored->Fail();
    return io;
  }
  o.target = backend->info();
  if (merged) {
    o.clients = q.mpi->size();
    o.start_skew_ns = merged->mpi["start_skew_ns"].get<double>();
  }
  o.doc = RunDocumentOf(q, *backend, identity, start, end, o, merged ? &merged->mpi : nullptr);
  if (stored) {
    json extra = {{"health", o.health}};
    if (o.doc.mpi) extra["mpi"] = *o.doc.mpi;
    o.end.stored = stored->Finish(o.spec, o.result, extra);
  }
  if (q.write_outputs) o.end.outputs = q.write_outputs(o);
  EndUseAfterOutputs(*backend, outcome, o.end, *q.console);
  return o;
}

}  // namespace ssdlab::usecase
