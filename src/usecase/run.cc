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
json EngineJson(const std::string& name, const EngineReport* r) {
  json j;
  j["name"] = name;
  if (!r) return j;
  const EngineOptions& q = r->requested;
  auto adaptive = [](uint32_t v) { return v ? json(v) : json("adaptive"); };
  j["requested"] = {
      {"batch_submit", adaptive(q.batch_submit)},
      {"batch_complete_min", q.batch_complete_min == kBatchCompleteAuto ? json("auto")
                             : q.batch_complete_min                     ? json(q.batch_complete_min)
                                                                        : json("default")},
      {"batch_complete_max", q.batch_complete_max ? json(q.batch_complete_max) : json("all")},
      {"sqpoll", q.sqpoll},
      {"sqpoll_cpu", q.sqpoll_cpu >= 0 ? json(q.sqpoll_cpu) : json(nullptr)},
      {"hipri", q.hipri},
      {"register_ring_fd", q.register_ring_fd},
      {"force_async", ForceAsyncName(q.force_async)},
      {"pin_workers", PinWorkersName(q.pin_workers)},
      {"cpus_allowed",
       q.cpus_allowed.empty() ? json(nullptr) : json(FormatCpuList(q.cpus_allowed))},
  };
  const EngineGrant& g = r->granted;
  json granted = {
      {"batch_submit", r->batch_submit},
      {"batch_complete_min", r->batch_complete_min == kBatchCompleteAuto
                                 ? json("auto (a quarter of the depth, 1..32)")
                                 : json(r->batch_complete_min)},
      {"batch_complete_max", r->batch_complete_max ? json(r->batch_complete_max) : json("all")},
      {"cpus", r->cpus.empty() ? json(nullptr) : json(FormatCpuList(r->cpus))},
      {"cpus_source", r->cpus_source},
      {"numa_node", r->numa_node >= 0 ? json(r->numa_node) : json(nullptr)},
  };
  if (r->kind == EngineKind::kIoUring) {
    granted.update({
        {"features", r->features},
        {"single_issuer", g.single_issuer},
        {"defer_taskrun", g.defer_taskrun},
        {"sqpoll", g.sqpoll},
        {"sqpoll_cpu", g.sqpoll_cpu >= 0 ? json(g.sqpoll_cpu) : json(nullptr)},
        {"hipri", g.hipri},
        {"registered_ring_fd", g.registered_ring_fd},
        {"fixed_buffers", g.fixed_buffers},
        {"fixed_files", g.fixed_files},
        {"nowait_target", r->nowait_target},
        {"force_async", g.force_async},
        {"async_workers", g.async_workers ? json(g.async_workers) : json(nullptr)},
        {"pin_workers", r->job_cpus.empty() ? json(nullptr) : json(FormatCpuList(r->job_cpus))},
        {"iowq_affinity", !g.iowq_cpus.empty()},
    });
  }
  j["granted"] = granted;
  return j;
}

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
  if (sim && q.engine_flags_given)
    return Status::Invalid(
        "the engine flags (--batch-*, --sqpoll*, --hipri, --cpus-allowed, --no-ring-fd, "
        "--force-async, --pin-workers) apply to real targets, not a simulated drive");
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

// The `run` document: context (platform, target, device, workload, engine, times), the phase's
// results, health and, for a multi-client load, `mpi`.
// The `run` document's context but its times: platform, command line, target, device, workload,
// engine; also the stored run's context.
json RunContext(const RunRequest& q, const Backend& backend,
                const std::optional<DeviceIdentity>& identity, const WorkloadSpec& spec) {
  json ctx = PlatformJson();
  ctx["command_line"] = q.argv;
  ctx["target"] = TargetJson(backend.info());
  ctx["device"] = identity ? IdentityJson(*identity) : json(nullptr);
  ctx["workload"] = WorkloadJson(spec);
  ctx["engine"] =
      EngineJson(IsSimTarget(q.target) ? "sim" : q.engine_name, EngineReportOf(backend));
  ctx["direct"] = !q.buffered;
  ctx["seed"] = results::IdJson(spec.seed);
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

json RunDocument(const RunRequest& q, const Backend& backend,
                 const std::optional<DeviceIdentity>& identity, double start, double end,
                 const RunOutcome& o, const json* mpi) {
  json doc;
  doc["schema_version"] = kRunSchemaVersion;
  json ctx = RunContext(q, backend, identity, o.spec);
  ctx["start_time"] = IsoTime(start);
  ctx["end_time"] = IsoTime(end);
  doc["context"] = ctx;
  doc.update(PhaseJson(o.result));
  doc["health"] = o.health;
  if (mpi) {
    doc["mpi"] = *mpi;
    doc["mpi"]["range_per_rank"] = q.range_per_rank;
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

}  // namespace

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
    SSDLAB_RETURN_IF_ERROR(stored->Begin(
        "run", RunConfig(q, o.spec), RunContext(q, *backend, identity, o.spec), backend->info()));
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
      o.closed = EndTargetUse(*backend, outcome, *q.console);
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
  o.doc = RunDocument(q, *backend, identity, start, end, o, merged ? &merged->mpi : nullptr);
  if (stored) {
    json extra = {{"health", o.health}};
    if (o.doc.contains("mpi")) extra["mpi"] = o.doc["mpi"];
    o.stored = stored->Finish(o.spec, o.result, extra);
  }
  if (q.write_outputs) o.outputs = q.write_outputs(o);
  // An output that failed fails the command: then its drive's state is not saved either.
  const bool written = o.outputs.ok() && o.stored.ok();
  o.closed = EndTargetUse(*backend, written ? outcome : Status::Io("an output was not written"),
                          *q.console);
  return o;
}

}  // namespace ssdlab::usecase
