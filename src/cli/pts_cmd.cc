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
#include "cli/fleet.h"
#include "cli/mpi_pts.h"
#include "cli/output.h"
#include "cli/paths.h"
#include "cli/report_cmds.h"
#include "cli/sim_spread.h"
#include "cli/suite_cli.h"
#include "cli/targets.h"
#include "cli/verdicts.h"
#include "device/device_backend.h"
#include "device/device_json.h"
#include "device/safety.h"
#include "sim/params.h"
#include "store/store.h"
#include "suite/pts.h"

namespace ssdlab {
namespace {

using nlohmann::json;

struct PtsArgs {
  std::string target, db, run, json_path, progress = "auto";
  OptionTexts options = {{"--spec", "pts-e"}};  // the battery's options (PtsOptionDefs) as text
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
};

// How a battery is launched besides the usual single process: a backend opened already (pass 2
// of a spread run, cli/sim_spread.h), and a wrapper of the opened target (rank 0 of --mpi),
// which may add to the run's context (`stored` is a resumed run's context).
struct PtsLaunch {
  std::unique_ptr<Backend> opened;
  std::function<Result<std::unique_ptr<Backend>>(std::unique_ptr<Backend>, const json& stored,
                                                 json& context)>
      wrap;
};

// A target opened for the battery with the usual safety checks (the device's identity, the
// --confirm of a whole-device purge, the device layer's purge methods).
struct OpenedTarget {
  std::unique_ptr<Backend> backend;
  std::optional<DeviceIdentity> identity;
};

Result<OpenedTarget> OpenPtsTarget(const PtsArgs& a) {
  TargetRequest req;
  req.target = a.target;
  req.writes = true;
  req.destructive = a.destructive;
  OpenedTarget out;
  SSDLAB_ASSIGN_OR_RETURN(out.backend, OpenTarget(req));
  if (IsSimTarget(a.target)) return out;
  SSDLAB_ASSIGN_OR_RETURN(DeviceIdentity id, IdentifyTarget(a.target));
  // Whole-device destruction needs the device's serial (or WWN) as confirmation too.
  if (id.kind == "block") SSDLAB_RETURN_IF_ERROR(CheckConfirmation(id, a.confirm));
  out.backend = WithDevicePurge(std::move(out.backend), id, a.destructive, a.confirm);
  out.identity = std::move(id);
  return out;
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Parses a comma list with `one` into `out`, naming `flag` in errors. Empty text keeps `out`.
template <typename T, typename F>
Status ParseList(const std::string& flag, const std::string& text, std::vector<T>& out, F one) {
  if (text.empty()) return Status::Ok();
  out.clear();
  for (const std::string& item : SplitList(text)) {
    auto v = one(item);
    if (!v.ok()) return v.status().WithContext(flag + " '" + item + "'");
    out.push_back(static_cast<T>(v.value()));
  }
  if (out.empty()) return Status::Invalid(flag + " is empty");
  return Status::Ok();
}

Result<uint64_t> PositiveCount(const std::string& s) {
  auto v = ParseCount(s);
  if (v.ok() && v.value() == 0) return Status::Invalid("must be at least 1");
  return v;
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
  auto v = PositiveCount(text);
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

using PtsDef = OptionDef<PtsOptions>;
using S = const std::string&;

// Every option of `ssdlab pts` that shapes the battery, once. --spec comes first: it sets the
// defaults the others override (ResolveOptions).
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
      {"--tests", "Comma list: iops,tp,lat,lvi,wsat,hir,xsr,dirth,ecw,op (default: all)",
       [](S, S t, PtsOptions& o) {
         o.tests = SplitList(t);
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
      {"--purge", "auto|secure-erase|format|sanitize|discard|none (auto)",
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
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lvi_threads, PositiveCount); }},
      {"--lvi-qds", "LVI queue depths (1,2,4,8,16,32)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.lvi_qds, PositiveCount); }},
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
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.dirth_threads, PositiveCount); }},
      {"--dirth-qds", "DIRTH/ECW queue depths (32,16,8,6,4,2,1)",
       [](S f, S t, PtsOptions& o) { return ParseList(f, t, o.dirth_qds, PositiveCount); }},
      {"--dirth-hist", "DIRTH/ECW measurement of the selected points (600s)",
       [](S f, S t, PtsOptions& o) { return DurationFlag(f, t, o.dirth_histogram_ns); }},
  };
  return defs;
}

json ArgsJson(const PtsArgs& a) {
  json j = OptionTextsJson(PtsOptionDefs(), a.options);
  j["target"] = a.target;
  return j;
}

// The spec's defaults, then every option given, in declaration order; then the cross checks.
Result<PtsOptions> ResolveOptions(const OptionTexts& texts) {
  auto spec = texts.find("--spec");
  SSDLAB_ASSIGN_OR_RETURN(
      PtsSpec s,
      ParsePtsSpec(spec == texts.end() || spec->second.empty() ? "pts-e" : spec->second));
  PtsOptions o = SpecDefaults(s);
  SSDLAB_RETURN_IF_ERROR(ApplyOptionDefs(PtsOptionDefs(), texts, o));
  SSDLAB_RETURN_IF_ERROR(ValidatePtsOptions(o));
  return o;
}

// With --resume, options that only say how to run it this time; every other option given must
// equal the stored run's.
// (--mpi must match the stored run, which keeps its --range-per-rank: both are checked apart.)
const std::vector<std::string> kResumeOptions = {
    "--db",          "--resume",  "--progress",      "--json",
    "--destructive", "--confirm", "--temp-interval", "--report",
    "--clients-log", "--mpi",     "--range-per-rank"};

// A stored run's arguments as given (config.args: a flag's key -> its text); Invalid naming the
// key when the document holds something else there.
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

// Refuses options given with --resume that would change the stored run's resolved options
// (`stored`; `stored_args`: its arguments as text, for the message). Values that are spelled
// differently but mean the same ("500ms" and "0.5s") are the same.
Status CheckResumeOptions(const PtsArgs& a, const OptionTexts& stored_args,
                          const PtsOptions& stored) {
  const json stored_json = PtsOptionsJson(stored);
  for (const std::string& flag : a.given) {
    if (std::find(kResumeOptions.begin(), kResumeOptions.end(), flag) != kResumeOptions.end())
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
      now = a.options.at(flag);
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

// The stored identity of a resumed run's target against the one found now: a device node that
// points at another disk must never merge two disks' rounds into one run.
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

// --time-scale: "auto" becomes the number (ApplyTimeScale: from the spec's round), and every
// simulated --target gets scale=N. A resumed run keeps its own.
Status ApplyPtsTimeScale(PtsArgs& a) {
  auto it = a.options.find("--time-scale");
  if (it == a.options.end() || it->second.empty() || !a.resume.empty()) return Status::Ok();
  SSDLAB_ASSIGN_OR_RETURN(PtsOptions spec, ResolveOptions({{"--spec", a.options["--spec"]}}));
  SSDLAB_ASSIGN_OR_RETURN(uint32_t n, ApplyTimeScale(it->second, spec.round_ns, a.targets));
  it->second = std::to_string(n);
  return Status::Ok();
}

// Every path of the battery (cli/paths.h): its target's files, the database, the outputs and
// the target map; checked before the database is created or the target opened.
Status CheckPtsPaths(const PtsArgs& a) {
  PathRegistry paths = CommandPaths();
  if (!a.target.empty()) SSDLAB_RETURN_IF_ERROR(AddTargetPaths(paths, "--target", a.target, true));
  paths.AddInput("--target-map " + a.target_map, a.target_map);
  AddDatabasePath(paths, "--db", a.db, true);
  paths.AddOutput("--json", a.json_path);
  paths.AddOutput("--report", a.report);
  paths.AddOutput("--clients-log", a.clients_log);
  return paths.Check();
}

int RunPtsCommand(PtsArgs a, PtsLaunch* launch = nullptr) {
  bool resume = !a.resume.empty();
  if (!resume || !a.targets.empty()) {
    auto target = ComposeTarget(a.targets, a.layout, a.chunk);
    if (!target.ok()) {
      return Fail(target.status());
    }
    a.target = target.value();
  }
  if (Status s = CheckPtsPaths(a); !s.ok()) return Fail(s);
  auto store = Store::Open(a.db, resume ? Store::Mode::kExisting : Store::Mode::kCreate);
  if (!store.ok()) {
    return Fail(store.status());
  }
  RunRecord run;
  std::optional<RunLock> lock;
  std::optional<PtsOptions> options;
  if (resume) {
    auto found = (*store)->FindRun(a.resume);
    if (!found.ok()) {
      PrintError("--resume: " + found.status().message());
      return ExitCodeFor(found.status());
    }
    run = found.value();
    if (run.kind != "pts") {
      PrintError("--resume " + run.name + ": it is a " + run.kind +
                 " run, not a PTS run; ssdlab pts resumes PTS runs only");
      return kExitUsage;
    }
    if (run.status == "done") {
      PrintError("--resume " + run.name + ": the run is already done; nothing to continue");
      return kExitUsage;
    }
    if (run.context.contains("mpi") != a.mpi)
      return Fail(Status::Invalid(
          "--resume " + run.name +
          (a.mpi ? ": it is a single-client run; resume it without --mpi"
                 : ": it is a multi-client run; resume it under mpirun with --mpi")));
    auto stored_args = StoredArgs(run);
    if (!stored_args.ok()) return Fail(stored_args.status());
    // The stored resolved options, not a new parse of the stored texts (defaults may change).
    auto stored = PtsOptionsFromJson(
        run.config.is_object() && run.config.contains("options") ? run.config["options"] : json());
    if (!stored.ok()) return Fail(stored.status().WithContext("--resume " + run.name));
    if (Status s = CheckResumeOptions(a, *stored_args, stored.value()); !s.ok()) {
      return Fail(s);
    }
    auto locked = (*store)->LockRun(run.id, run.name);
    if (!locked.ok()) {
      return Fail(locked.status());
    }
    lock.emplace(std::move(locked.value()));
    a.target = (*stored_args)["target"];
    if (Status s = CheckPtsPaths(a); !s.ok()) return Fail(s.WithContext("--resume " + run.name));
    a.run = run.name;
    options = stored.value();
    if (Status s = ValidatePtsOptions(*options); !s.ok())
      return Fail(s.WithContext("--resume " + run.name + ": the stored options"));
  } else {
    auto resolved = ResolveOptions(a.options);
    if (!resolved.ok()) {
      return Fail(resolved.status());
    }
    options = resolved.value();
  }
  auto temp_interval = ParseDurationNs(a.temp_interval);
  if (!temp_interval.ok()) {
    PrintError("--temp-interval: " + temp_interval.status().message());
    return kExitUsage;
  }
  Result<std::unique_ptr<Backend>> backend = Status::Invalid("no target");
  std::optional<DeviceIdentity> identity;
  if (launch && launch->opened) {
    backend = std::move(launch->opened);
  } else {
    auto opened = OpenPtsTarget(a);
    if (!opened.ok()) return Fail(opened.status());
    backend = std::move(opened->backend);
    identity = std::move(opened->identity);
  }
  if (resume) {
    if (Status s = CheckResumeIdentity(run, (*backend)->info(), identity); !s.ok()) {
      return Fail(s);
    }
  }
  if (Status s = CheckPtsTarget(options.value(), (*backend)->info()); !s.ok()) {
    return Fail(s);
  }
  json launched = json::object();
  if (launch && launch->wrap) {
    auto wrapped = launch->wrap(std::move(backend.value()), run.context, launched);
    if (!wrapped.ok()) return Fail(wrapped.status());
    backend = std::move(wrapped.value());
  }
  if (!resume) {
    if (a.run.empty()) a.run = DefaultRunName("pts");
    json config = {{"args", ArgsJson(a)}, {"options", PtsOptionsJson(options.value())}};
    json context = PlatformJson();
    context.update(launched);
    context["target"] = TargetJson((*backend)->info());
    context["device"] = identity ? IdentityJson(*identity) : json(nullptr);
    auto id = (*store)->CreateRun(a.run, "pts", config, context, (*backend)->info());
    if (!id.ok()) {
      return Fail(id.status());
    }
    run.id = id.value();
    run.name = a.run;
    if (!a.fleet.empty()) {
      if (Status s = (*store)->SetRunFleet(run.id, a.fleet); !s.ok()) return Fail(s);
    }
    auto locked = (*store)->LockRun(run.id, run.name);
    if (!locked.ok()) {
      return Fail(locked.status());
    }
    lock.emplace(std::move(locked.value()));
  } else {
    if (!(*store)->SetRunStatus(run.id, "running").ok()) {
      PrintError("cannot update the run's status in " + a.db);
      return kExitFailed;
    }
  }
  bool tty = isatty(STDERR_FILENO);
  bool json_lines = a.progress == "json";
  std::unique_ptr<CliProgress> progress;
  if (a.progress != "none")
    progress = std::make_unique<CliProgress>(json_lines, tty && !json_lines);
  std::cerr << fmt::format("ssdlab pts: run '{}' on {} ({}), spec {}, tests {}{}\n", run.name,
                           a.target, FormatBytes((*backend)->info().size_bytes),
                           PtsSpecName(options->spec), fmt::join(options->tests, ","),
                           resume ? " (resumed)" : "");
  HealthHooks hooks(identity ? &*identity : nullptr, temp_interval.value());
  Status st =
      RunPts(**backend, **store, run.id, options.value(), progress.get(), &StopFlag(), &hooks);
  std::vector<std::string> missed;  // the tests that did not reach steady state
  st = FinishStoredRun(**store, run.id, run.name, a.db, st, a.json_path,
                       [&missed](const nlohmann::json& doc) {
                         if (Status v = PrintVerdicts(doc, std::cerr); !v.ok())
                           PrintError(v.message());
                         missed = TestsWithoutSteadyState(doc);
                       });
  int report_code = kExitOk;
  if (st.ok() && !a.report.empty())
    report_code = WriteRunsReport(a.db, {run.name}, a.report, "", "--report");
  // A simulated drive with state= saves it, also after an interruption, but not when the
  // battery or one of its outputs failed (EndTargetUse).
  Status closed =
      EndTargetUse(**backend, report_code == kExitOk ? st : Status::Io("--report was not written"));
  if (!closed.ok()) PrintError(closed.message());
  if (!st.ok()) {
    PrintError(st.code() == Code::kInterrupted
                   ? "interrupted; finished rounds are stored, continue with --resume " + run.name
                   : st.message());
    return st.code() == Code::kInterrupted ? kExitInterrupted : kExitFailed;
  }
  if (report_code != kExitOk) return report_code;
  if (!closed.ok()) return kExitFailed;
  if (a.require_steady_state && !missed.empty()) {
    PrintError(fmt::format("--require-steady-state: {} did not reach steady state",
                           fmt::join(missed, ", ")));
    return kExitNotSteady;
  }
  return kExitOk;
}

// `pts --mpi`: rank 0 runs the battery on a MultiClientBackend, the other ranks follow.
int RunMultiClientPts(PtsArgs a) {
  auto clients = MpiClients::Start();
  if (!clients.ok()) return Fail(clients.status());
  MpiClients& c = clients.value();
  const std::vector<std::string> patterns = a.targets;
  auto pattern = ComposeTarget(patterns, a.layout, a.chunk);
  if (c.rank() != 0) {
    auto open = [&](const std::string& from_rank0,
                    uint64_t min_size) -> Result<std::unique_ptr<Backend>> {
      PtsArgs mine = a;
      mine.target = ExpandRankPattern(from_rank0, c.rank(), c.world().host());
      SSDLAB_ASSIGN_OR_RETURN(OpenedTarget t, OpenPtsTarget(mine));
      if (t.backend->info().size_bytes < min_size)
        return Status::Invalid(fmt::format("{} ({}) is smaller than rank 0's target ({})",
                                           mine.target, FormatBytes(t.backend->info().size_bytes),
                                           FormatBytes(min_size)));
      return std::move(t.backend);
    };
    return FollowPhases(c, open, &StopFlag());
  }
  std::unique_ptr<std::ofstream> log;
  int code = kExitOk;
  c.ExpandTargets(a.targets);
  if (!a.targets.empty()) {  // before --clients-log is opened
    PtsArgs expanded = a;
    auto target = ComposeTarget(a.targets, a.layout, a.chunk);
    expanded.target = target.ok() ? target.value() : "";
    if (Status s = CheckPtsPaths(expanded); !s.ok()) code = Fail(s);
  }
  if (code == kExitOk && !a.clients_log.empty()) {
    log = std::make_unique<std::ofstream>(a.clients_log);
    if (!*log) code = Fail(Status::Io("--clients-log " + a.clients_log + ": cannot write it"));
  }
  if (code == kExitOk) {
    PtsLaunch launch;
    launch.wrap = [&](std::unique_ptr<Backend> local, const json& stored,
                      json& context) -> Result<std::unique_ptr<Backend>> {
      MultiClientOptions o{a.range_per_rank, log.get()};
      std::string p = pattern.ok() ? pattern.value() : a.target;
      if (stored.contains("mpi")) {  // a resumed run keeps its targets and shares
        p = stored["mpi"].value("target_pattern", p);
        o.range_per_rank = stored["mpi"].value("range_per_rank", false);
      }
      SSDLAB_ASSIGN_OR_RETURN(auto b, MultiClientBackend::Connect(c, std::move(local), p, o));
      context["mpi"] = b->mpi();
      std::cerr << fmt::format("ssdlab pts: {} clients (MPI ranks) on {}{}\n", c.size(), p,
                               o.range_per_rank ? ", a slice of the range each" : "");
      return std::unique_ptr<Backend>(std::move(b));
    };
    code = RunPtsCommand(a, &launch);
  }
  EndFollowers(c, code);
  return code;
}

// pts on one simulated drive under mpirun: its tests spread over the ranks (cli/sim_spread.h).
int RunSpreadPts(PtsArgs a) {
  auto world = MpiWorld::Get();
  if (!world.ok()) return Fail(world.status());
  MpiWorld& w = **world;
  if (w.size() == 1) return RunPtsCommand(a);
  auto options = ResolveOptions(a.options);
  auto target = ComposeTarget(a.targets, a.layout, a.chunk);
  SpreadCommand c;
  // Bad options: rank 0 alone says what is wrong, as one process would.
  c.why_not = !options.ok() || !target.ok()
                  ? "bad options"
                  : WhyNotSpread(*target, options->purge, !a.resume.empty());
  if (c.why_not.empty())
    c.note = fmt::format("ssdlab pts: {} tests spread over {} ranks ({} simulated drives)",
                         options->tests.size(), w.size(), w.size());
  else if (options.ok() && target.ok())
    c.note = fmt::format("ssdlab pts: not spread over {} ranks ({}); rank 0 runs it", w.size(),
                         c.why_not);
  c.unit = SpreadUnit::kTests;
  if (options.ok()) c.tests = options->tests;
  c.open = [&]() -> Result<std::unique_ptr<Backend>> {
    PtsArgs mine = a;
    mine.target = target.value();
    SSDLAB_ASSIGN_OR_RETURN(OpenedTarget t, OpenPtsTarget(mine));
    SSDLAB_RETURN_IF_ERROR(CheckPtsTarget(*options, t.backend->info()));
    return std::move(t.backend);
  };
  c.pass = [&](Backend& b, RunJournal& j, TestHooks* h) {
    return RunPts(b, j, 1, options.value(), nullptr, &StopFlag(), h);
  };
  c.run = [&](std::unique_ptr<Backend> opened) {
    PtsLaunch launch;
    launch.opened = std::move(opened);
    return RunPtsCommand(a, &launch);
  };
  return RunSpread(w, c);
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
  AddOptionDefs(cmd, PtsOptionDefs(), a->options);
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
  cmd->callback([a, exit_code, cmd] {
    a->given = GivenOptions(cmd);
    if (Status s = ApplyPtsTimeScale(*a); !s.ok()) {
      *exit_code = Fail(s);
      return;
    }
    FleetOptions f{a->db,         a->targets.size() == 1 ? a->targets[0] : "",
                   a->target_map, a->run,
                   a->resume,     a->report};
    if (!a->mpi && (a->range_per_rank || !a->clients_log.empty())) {
      *exit_code = Fail(Status::Invalid(
          std::string(a->range_per_rank ? "--range-per-rank" : "--clients-log") + " needs --mpi"));
      return;
    }
    if (a->mpi) {
      if (!a->target_map.empty()) {
        *exit_code = Fail(Status::Invalid(
            "--mpi and --target-map: a fleet tests one drive per rank, --mpi one target with "
            "many clients; give one of them"));
        return;
      }
      *exit_code = RunMultiClientPts(*a);
      return;
    }
    if (!IsFleetRun(f) && StartedByMpirun() && a->targets.size() == 1 &&
        IsSimTarget(a->targets[0])) {
      *exit_code = RunSpreadPts(*a);
      return;
    }
    if (!IsFleetRun(f)) {
      if (!a->target_map.empty()) {
        *exit_code = Fail(Status::Invalid("--target-map: a fleet run is started by mpirun"));
        return;
      }
      *exit_code = RunPtsCommand(*a);
      return;
    }
    *exit_code = RunFleet(f, [&](const FleetRank& me) {
      PtsArgs mine = *a;
      mine.targets = {me.target};
      mine.fleet = me.fleet;
      mine.run = me.resume ? "" : me.run;
      mine.resume = me.resume ? me.run : "";
      mine.progress = "none";  // rank 0 prints the fleet's table
      mine.report = "";        // rank 0 writes the fleet's report
      return RunPtsCommand(mine);
    });
  });
}

}  // namespace ssdlab
