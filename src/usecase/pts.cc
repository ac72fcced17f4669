#include "usecase/pts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <sstream>

#include "base/strings.h"
#include "base/units.h"
#include "device/device_json.h"
#include "device/purge.h"
#include "device/safety.h"
#include "results/pts_tests.h"
#include "sim/params.h"
#include "usecase/documents.h"
#include "usecase/paths.h"
#include "usecase/runs.h"
#include "usecase/sim_spread.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {

using nlohmann::json;

Result<OpenedTarget> OpenPtsTarget(const std::string& target, bool destructive,
                                   const std::string& confirm) {
  TargetRequest req;
  req.target = target;
  req.writes = true;
  req.destructive = destructive;
  OpenedTarget out;
  SSDLAB_ASSIGN_OR_RETURN(out.backend, OpenTarget(req));
  if (IsSimTarget(target)) return out;
  SSDLAB_ASSIGN_OR_RETURN(DeviceIdentity id, IdentifyTarget(target));
  // Whole-device destruction needs the device's serial (or WWN) as confirmation too.
  if (id.kind == "block") SSDLAB_RETURN_IF_ERROR(CheckConfirmation(id, confirm));
  out.backend = WithDevicePurge(std::move(out.backend), id, destructive, confirm);
  out.identity = std::move(id);
  return out;
}

namespace {

// Parses a comma list with `one` into `out`, naming `flag` in errors. Empty text keeps `out`.
template <typename T, typename F>
Status ParseList(const std::string& flag, const std::string& text, std::vector<T>& out, F one) {
  if (text.empty()) return Status::Ok();
  out.clear();
  for (const std::string& item : SplitNonEmpty(text, ',')) {
    auto v = one(item);
    if (!v.ok()) return v.status().WithContext(flag + " '" + item + "'");
    out.push_back(static_cast<T>(v.value()));
  }
  if (out.empty()) return Status::Invalid(flag + " is empty");
  return Status::Ok();
}

Result<Mix> ParseMix(const std::string& s) {
  // "65/35" or "65" (percent reads)
  auto slash = s.find('/');
  auto p = ParsePercent(s.substr(0, slash));
  if (!p.ok()) return p.status();
  if (slash != std::string::npos) {
    auto w = ParsePercent(s.substr(slash + 1));
    if (!w.ok() || std::abs(p.value() + w.value() - 100) > 1e-9)
      return Status::Invalid("read/write shares must add up to 100");
  }
  return Mix{p.value()};
}

template <typename T>
Status SetCount(const std::string& flag, const std::string& text, T& out) {
  auto v = ParsePositiveCount(text);
  if (!v.ok()) return v.status().WithContext(flag);
  out = static_cast<T>(v.value());
  return Status::Ok();
}

// A multiple like "2x" (or "2") into `out`; `above_zero` refuses 0.
Status SetMultiple(const std::string& flag, const std::string& text, double& out, bool above_zero) {
  std::string w = text;
  if (w.back() == 'x') w.pop_back();
  auto v = ParseDouble(w);
  if (!v.ok() || v.value() < 0 || (above_zero && v.value() == 0))
    return Status::Invalid(flag + " '" + text + "' is not a multiple like " +
                           (above_zero ? "4x" : "2x"));
  out = v.value();
  return Status::Ok();
}

using S = const std::string&;

}  // namespace

const std::vector<PtsDef>& PtsOptionDefs() {
  static const std::vector<PtsDef> defs = {
      {"--spec", "pts-e | pts-c | review",
       [](S, S t, PtsOptions& o) -> Status {
         SSDLAB_ASSIGN_OR_RETURN(o.spec, ParsePtsSpec(t));
         return Status::Ok();
       }},
      {"--time-scale",
       "N or auto: simulated drives at scale=N with every duration of the spec divided by N, so "
       "a round writes the share of the drive the spec's round writes on the full drive (auto: "
       "the scale the target sets, else its preset's at most the spec's round / 10s; 1: off)",
       [](S f, S t, PtsOptions& o) {
         uint32_t n = 1;
         SSDLAB_RETURN_IF_ERROR(SetCount(f, t, n));
         DivideDurations(o, n);
         return Status::Ok();
       }},
      {"--tests", "Comma list: " + results::JoinedPtsTestNames(",") + " (default: all)",
       [](S, S t, PtsOptions& o) {
         o.tests = SplitNonEmpty(t, ',');
         return Status::Ok();
       }},
      {"--round", "Duration of each cell of a round (60s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.round_ns); }},
      {"--iops-round",
       "Duration of each cell of an IOPS round (default: --round's; a round of the whole "
       "matrix in one minute is 60s / its cells)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.iops_round_ns); }},
      {"--max-rounds", "Rounds before giving up on steady state (25)",
       [](S f, S t, PtsOptions& o) { return SetCount(f, t, o.max_rounds); }},
      {"--window", "Steady-state window in rounds (5; review: 4)",
       [](S f, S t, PtsOptions& o) { return SetCount(f, t, o.steady.window_rounds); }},
      {"--purge", PurgeFlagNames("|") + " (auto)",
       [](S f, S t, PtsOptions& o) { return PurgeFlag(f, t, o.purge); }},
      {"--wipc", "Workload-independent preconditioning amount (2x)",
       [](S f, S t, PtsOptions& o) { return SetMultiple(f, t, o.wipc_multiple, false); }},
      {"--wdpc-capacity",
       "LVI, HIR, OP study: random-write preconditioning writes at least this many times the "
       "range before steady state counts, up to --wsat-max-rounds rounds (0x: steady state "
       "alone)",
       [](S f, S t, PtsOptions& o) { return SetMultiple(f, t, o.wdpc_capacity_multiple, false); }},
      {"--threads", "Threads of the load tests (spec default)",
       [](S f, S t, PtsOptions& o) { return SetCount(f, t, o.threads); }},
      {"--qd", "Queue depth per thread of the load tests (spec default)",
       [](S f, S t, PtsOptions& o) { return SetCount(f, t, o.qd); }},
      {"--op", "Over-provisioning study: percent of capacity left unused (15,30,50)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.op_pcts, ParsePercent); }},
      {"--range", "Active range in percent of the capacity (100; pts-c 75)",
       [](S, S t, PtsOptions& o) {
         auto v = ParsePercent(t);
         if (!v.ok()) return v.status().WithContext("--range (percent of the capacity)");
         if (v.value() <= 0) return Status::Invalid("--range '" + t + "' must be above 0%");
         o.active_range_pct = v.value();
         return Status::Ok();
       }},
      {"--seed", "Seed of every phase's offsets (1)",
       [](S f, S t, PtsOptions& o) -> Status {
         auto v = ParseCount(t);
         if (!v.ok()) return v.status().WithContext(f);
         o.seed = v.value();
         return Status::Ok();
       }},
      {"--iops-bs", "IOPS block sizes, e.g. 1024KiB,128KiB,...,4KiB",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.iops_block_bytes, ParseBytes); }},
      {"--iops-mixes", "IOPS read/write mixes, e.g. 100/0,65/35,0/100",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.iops_mixes, ParseMix); }},
      {"--tp-bs", "Throughput block sizes (1024KiB,128KiB)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.tp_block_bytes, ParseBytes); }},
      {"--lat-bs", "Latency block sizes",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lat_block_bytes, ParseBytes); }},
      {"--lat-mixes", "Latency mixes",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lat_mixes, ParseMix); }},
      {"--lvi-threads", "LVI thread counts (1,2,4)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lvi_threads, ParsePositiveCount); }},
      {"--lvi-qds", "LVI queue depths (1,2,4,8,16,32)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lvi_qds, ParsePositiveCount); }},
      {"--lvi-bs", "LVI block sizes (4KiB,8KiB)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lvi_block_bytes, ParseBytes); }},
      {"--lvi-mixes", "LVI mixes",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lvi_mixes, ParseMix); }},
      {"--lvi-warmup", "LVI warm-up per point (5s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.lvi_warmup_ns); }},
      {"--lvi-measure", "LVI measured time per point (30s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.lvi_measure_ns); }},
      {"--wsat-round", "WSAT round length (60s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.wsat_round_ns); }},
      {"--wsat-max-rounds", "WSAT round limit (1200)",
       [](S f, S t, PtsOptions& o) { return SetCount(f, t, o.wsat_max_rounds); }},
      {"--wsat-capacity", "WSAT stops after this many capacities written (4x)",
       [](S f, S t, PtsOptions& o) { return SetMultiple(f, t, o.wsat_capacity_multiple, true); }},
      {"--hir-waits", "HIR wait states (5s,10s,15s,25s,50s)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.hir_wait_ns, ParseDurationNs); }},
      {"--hir-cycles", "HIR cycles per wait state (360)",
       [](S f, S t, PtsOptions& o) { return SetCount(f, t, o.hir_cycles); }},
      {"--hir-write", "HIR write time per cycle (5s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.hir_write_ns); }},
      {"--hir-baseline", "HIR return-to-baseline write (1800s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.hir_baseline_ns); }},
      {"--xsr", "XSR durations: SEQ write, RND write, SEQ write (8h,6h,8h)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.xsr_ns, ParseDurationNs); }},
      {"--dirth-threads", "DIRTH/ECW thread counts (32,16,8,6,4,2,1)",
       [](S f, S t, PtsOptions& o) {
         return ParseList(f, t, o.dirth_threads, ParsePositiveCount);
       }},
      {"--dirth-qds", "DIRTH/ECW queue depths (32,16,8,6,4,2,1)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.dirth_qds, ParsePositiveCount); }},
      {"--dirth-hist", "DIRTH/ECW measurement of the selected points (600s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.dirth_histogram_ns); }},
  };
  return defs;
}

Result<PtsOptions> ResolvePtsOptions(const OptionTexts& texts) {
  auto spec = texts.find("--spec");
  SSDLAB_ASSIGN_OR_RETURN(
      PtsSpec s,
      ParsePtsSpec(spec == texts.end() || spec->second.empty() ? "pts-e" : spec->second));
  PtsOptions o = SpecDefaults(s);
  SSDLAB_RETURN_IF_ERROR(ApplyOptionDefs(PtsOptionDefs(), texts, o));
  SSDLAB_RETURN_IF_ERROR(ValidatePtsOptions(o));
  return o;
}

const std::vector<std::string>& ResumeOnlyOptions() {
  // (--mpi must match the stored run, which keeps its --range-per-rank: both are checked apart.)
  static const std::vector<std::string> options = {
      "--db",          "--resume",  "--progress",      "--json",
      "--destructive", "--confirm", "--temp-interval", "--report",
      "--clients-log", "--mpi",     "--range-per-rank"};
  return options;
}

Result<OptionTexts> StoredArgs(const RunRecord& run) {
  const std::string where = "run '" + run.name + "': config.args";
  if (!run.config.is_object() || !run.config.contains("args")) return OptionTexts{};
  const json& args = run.config["args"];
  if (!args.is_object()) return Status::Invalid(where + " is not an object");
  OptionTexts out;
  for (const auto& [key, text] : args.items()) {
    if (!text.is_string()) return Status::Invalid(where + "." + key + " is not a text");
    out[key] = text.get<std::string>();
  }
  return out;
}

Status CheckResumeOptions(const ResumeGiven& a, const OptionTexts& stored_args,
                          const PtsOptions& stored) {
  const json stored_json = PtsOptionsJson(stored);
  for (const std::string& flag : a.flags) {
    if (std::find(ResumeOnlyOptions().begin(), ResumeOnlyOptions().end(), flag) !=
        ResumeOnlyOptions().end())
      continue;
    if (flag == "--run") {
      if (a.run != a.resume)
        return Status::Invalid("--run " + a.run + " conflicts with --resume " + a.resume);
      continue;
    }
    const bool target = flag == "--target" || flag == "--layout" || flag == "--chunk";
    const std::string key = target ? "target" : StoredKey(flag);
    const auto stored_text = stored_args.find(key);
    const std::string was = stored_text == stored_args.end() ? "" : stored_text->second;
    std::string now;
    if (target) {
      now = a.target;
      if (was == now) continue;
    } else {
      const PtsDef* def = FindOptionDef(PtsOptionDefs(), flag);
      if (!def) return Status::Invalid(flag + " cannot be given with --resume");
      auto text = a.options.find(flag);
      now = text == a.options.end() ? "" : text->second;
      PtsOptions changed = stored;
      if (!now.empty()) SSDLAB_RETURN_IF_ERROR(def->set(flag, now, changed));
      if (PtsOptionsJson(changed) == stored_json) continue;
    }
    return Status::Invalid(flag + " " + now + " conflicts with the stored run's " +
                           (was.empty() ? "default" : flag + " " + was) +
                           "; a resumed run keeps its settings (start a new run to change them)");
  }
  return Status::Ok();
}

Status CheckResumeIdentity(const RunRecord& run, const TargetInfo& now,
                           const std::optional<DeviceIdentity>& id) {
  const json& target = run.context.contains("target") ? run.context["target"] : json::object();
  auto differs = [&](const std::string& what, const std::string& was, const std::string& is) {
    return Status::Refused("--resume " + run.name + ": the target's " + what + " was " +
                           (was.empty() ? "(none)" : was) + " and is now " +
                           (is.empty() ? "(none)" : is) +
                           "; this is not the drive the run started on (start a new run)");
  };
  if (target.is_object()) {
    auto num = [&](const char* k) {
      return target.contains(k) && target[k].is_number() ? target[k].get<uint64_t>() : 0;
    };
    if (num("size_bytes") && num("size_bytes") != now.size_bytes)
      return differs("size", std::to_string(num("size_bytes")) + " bytes",
                     std::to_string(now.size_bytes) + " bytes");
    // A simulated drive is its parameters: the first stored one that differs (an edited
    // sim:FILE.toml) is another drive, whatever its size.
    const json& was = target.contains("details") ? target["details"] : json();
    if (now.kind == "sim" && was.is_object()) {
      for (const auto& [k, v] : now.details) {
        if (!IsSimIdentityDetail(k) || !was.contains(k)) continue;  // older runs stored fewer
        const std::string stored = was[k].is_string() ? was[k].get<std::string>() : was[k].dump();
        if (stored != v) return differs("parameter " + k, stored, v);
      }
    }
  }
  const json& device = run.context.contains("device") ? run.context["device"] : json();
  if (id && id->kind == "block" && id->disk) {
    const json& disk = device.is_object() && device.contains("disk") ? device["disk"] : json();
    auto str = [&](const char* k) {
      return disk.is_object() && disk.contains(k) && disk[k].is_string()
                 ? disk[k].get<std::string>()
                 : std::string();
    };
    if (!disk.is_object()) return differs("identity", "not a block device", id->disk->model);
    if (str("serial") != id->disk->serial)
      return differs("serial", str("serial"), id->disk->serial);
    if (str("wwn") != id->disk->wwn) return differs("WWN", str("wwn"), id->disk->wwn);
    if (str("model") != id->disk->model) return differs("model", str("model"), id->disk->model);
    if (str("loop_backing_file") != id->disk->loop_backing_file)
      return differs("loop backing file", str("loop_backing_file"), id->disk->loop_backing_file);
  }
  return Status::Ok();
}

Status CheckPtsPaths(const PtsRequest& r) {
  PathRegistry paths = CommandPaths();
  if (!r.target.empty()) SSDLAB_RETURN_IF_ERROR(AddTargetPaths(paths, "--target", r.target, true));
  for (const auto& [what, path] : r.inputs) paths.AddInput(what, path);
  AddDatabasePath(paths, "--db", r.db, true);
  for (const auto& [what, path] : r.outputs) paths.AddOutput(what, path);
  return paths.Check();
}

namespace {

// The stored run to continue: found, a PTS run not done, of the same kind (--mpi or not), given
// no option that would change it, locked; r.target becomes its target.
Result<PtsOptions> ResumeRun(PtsRequest& r, Store& store, RunRecord& run,
                             std::optional<RunLock>& lock) {
  const std::string& name = r.given.resume;
  auto found = store.FindRun(name);
  if (!found.ok()) return found.status().WithContext("--resume");
  run = found.value();
  if (run.kind != "pts")
    return Status::Invalid("--resume " + run.name + ": it is a " + run.kind +
                           " run, not a PTS run; ssdlab pts resumes PTS runs only");
  if (run.status == "done")
    return Status::Invalid("--resume " + run.name +
                           ": the run is already done; nothing to continue");
  if (run.context.contains("mpi") != r.mpi)
    return Status::Invalid("--resume " + run.name +
                           (r.mpi
                                ? ": it is a single-client run; resume it without --mpi"
                                : ": it is a multi-client run; resume it under mpirun with --mpi"));
  SSDLAB_ASSIGN_OR_RETURN(OptionTexts stored_args, StoredArgs(run));
  // The stored resolved options, not a new parse of the stored texts (defaults may change).
  auto stored = PtsOptionsFromJson(
      run.config.is_object() && run.config.contains("options") ? run.config["options"] : json());
  if (!stored.ok()) return stored.status().WithContext("--resume " + run.name);
  r.given.target = r.target;
  SSDLAB_RETURN_IF_ERROR(CheckResumeOptions(r.given, stored_args, stored.value()));
  SSDLAB_ASSIGN_OR_RETURN(RunLock locked, store.LockRun(run.id, run.name));
  lock.emplace(std::move(locked));
  r.target = stored_args["target"];
  SSDLAB_RETURN_IF_ERROR(CheckPtsPaths(r).WithContext("--resume " + run.name));
  SSDLAB_RETURN_IF_ERROR(
      ValidatePtsOptions(*stored).WithContext("--resume " + run.name + ": the stored options"));
  return stored.value();
}

// A new run of the battery in `store`, named r.run (or pts-DATE-TIME), locked.
Status CreatePtsRun(const PtsRequest& r, Store& store, const PtsOptions& options,
                    const Backend& backend, const std::optional<DeviceIdentity>& identity,
                    const json& launched, RunRecord& run, std::optional<RunLock>& lock) {
  json args = OptionTextsJson(PtsOptionDefs(), r.given.options);
  args["target"] = r.target;
  json config = {{"args", args}, {"options", PtsOptionsJson(options)}};
  json context = PlatformJson();
  context.update(launched);
  context["target"] = TargetJson(backend.info());
  context["device"] = identity ? IdentityJson(*identity) : json(nullptr);
  run.name = r.run.empty() ? DefaultRunName("pts") : r.run;
  SSDLAB_ASSIGN_OR_RETURN(run.id,
                          store.CreateRun(run.name, "pts", config, context, backend.info()));
  if (!r.fleet.empty()) SSDLAB_RETURN_IF_ERROR(store.SetRunFleet(run.id, r.fleet));
  SSDLAB_ASSIGN_OR_RETURN(RunLock locked, store.LockRun(run.id, run.name));
  lock.emplace(std::move(locked));
  return Status::Ok();
}

// The other threads' simulators when r asks for its tests on several threads and they may be
// spread (a new run, no launch of its own, WhyNotSpread), else none.
Result<std::vector<std::unique_ptr<Backend>>> DriveCopies(const PtsRequest& r,
                                                          const PtsOptions& options,
                                                          const TargetInfo& info) {
  std::vector<std::unique_ptr<Backend>> copies;
  const bool resume = !r.given.resume.empty();
  if (r.sim_threads == 1 || r.launch || !WhyNotSpread(r.target, options.purge, resume).empty())
    return copies;
  const int threads = r.sim_threads > 0
                          ? std::min<int>(r.sim_threads, static_cast<int>(options.tests.size()))
                          : SpreadThreadsFor(info.size_bytes, options.tests.size());
  for (int k = 1; k < threads; ++k) {
    SSDLAB_ASSIGN_OR_RETURN(OpenedTarget t, OpenPtsTarget(r.target, r.destructive, r.confirm));
    copies.push_back(std::move(t.backend));
  }
  return copies;
}

}  // namespace

Result<json> EndStoredRun(Store& store, int64_t run_id, const std::string& run, const Status& st,
                          Console& console) {
  if (!store.SetRunStatus(run_id, RunStatusName(st)).ok())
    console.Fail(Status::Io("cannot record the run's status"));
  return store.RunJson(run);
}

Result<PtsOutcome> RunPts(PtsRequest r) {
  Console& console = *r.console;
  const bool resume = !r.given.resume.empty();
  SSDLAB_RETURN_IF_ERROR(CheckPtsPaths(r));
  SSDLAB_ASSIGN_OR_RETURN(
      auto store, Store::Open(r.db, resume ? Store::Mode::kExisting : Store::Mode::kCreate));
  RunRecord run;
  std::optional<RunLock> lock;
  PtsOptions options;
  if (resume) {
    SSDLAB_ASSIGN_OR_RETURN(options, ResumeRun(r, *store, run, lock));
  } else {
    SSDLAB_ASSIGN_OR_RETURN(options, ResolvePtsOptions(r.given.options));
  }
  std::unique_ptr<Backend> backend;
  std::optional<DeviceIdentity> identity;
  if (r.launch && r.launch->opened) {
    backend = std::move(r.launch->opened);
  } else {
    SSDLAB_ASSIGN_OR_RETURN(OpenedTarget opened, OpenPtsTarget(r.target, r.destructive, r.confirm));
    backend = std::move(opened.backend);
    identity = std::move(opened.identity);
  }
  if (resume) SSDLAB_RETURN_IF_ERROR(CheckResumeIdentity(run, backend->info(), identity));
  SSDLAB_RETURN_IF_ERROR(CheckPtsTarget(options, backend->info()));
  json launched = json::object();
  if (r.launch && r.launch->wrap) {
    SSDLAB_ASSIGN_OR_RETURN(backend, r.launch->wrap(std::move(backend), run.context, launched));
  }
  SSDLAB_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Backend>> copies,
                          DriveCopies(r, options, backend->info()));
  if (!resume) {
    SSDLAB_RETURN_IF_ERROR(
        CreatePtsRun(r, *store, options, *backend, identity, launched, run, lock));
  } else if (!store->SetRunStatus(run.id, "running").ok()) {
    return Status::Io("cannot update the run's status in " + r.db);
  }
  console.Note(fmt::format("ssdlab pts: run '{}' on {} ({}), spec {}, tests {}{}", run.name,
                           r.target, FormatBytes(backend->info().size_bytes),
                           PtsSpecName(options.spec), fmt::join(options.tests, ","),
                           resume ? " (resumed)" : ""));
  std::atomic<bool> replay_stop{false};
  const std::atomic<bool>* battery_stop = r.stop;
  if (!copies.empty()) {
    console.Note(fmt::format(
        "ssdlab pts: {} tests on {} threads at once, each on its own copy of the simulated "
        "drive; progress follows when they are done, the results are what one thread gives",
        options.tests.size(), copies.size() + 1));
    auto pass = [&](Backend& b, RunJournal& j, TestHooks* h) {
      return ssdlab::RunPts(b, j, 1, options, nullptr, r.stop, h);
    };
    backend = SpreadOverThreads(std::move(backend), std::move(copies), SpreadUnit::kTests,
                                options.tests, pass, r.stop);
    battery_stop = &replay_stop;  // pass 1 took any Ctrl-C; the replay stores what it measured
  }
  HealthHooks hooks(identity ? &*identity : nullptr, r.temp_interval_ns);
  PtsOutcome out;
  out.run = run.name;
  out.run_id = run.id;
  out.target = r.target;
  out.resumed = resume;
  out.battery = ssdlab::RunPts(*backend, *store, run.id, options, r.progress, battery_stop, &hooks);
  out.doc = EndStoredRun(*store, run.id, run.name, out.battery, console);
  if (r.write_outputs) out.end.outputs = r.write_outputs(out);
  // A simulated drive with state= saves it, also after an interruption, but not when the
  // battery or one of its outputs failed (EndTargetUse).
  EndUseAfterOutputs(*backend, out.battery, out.end, console);
  return out;
}

}  // namespace ssdlab::usecase
