// The `profile` use case (usecase/profile.h).
#include "usecase/profile.h"

#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "base/strings.h"
#include "base/units.h"
#include "device/device_backend.h"
#include "device/device_json.h"
#include "device/safety.h"
#include "engine/engine.h"
#include "lab/mpi.h"
#include "store/store.h"
#include "usecase/documents.h"
#include "usecase/paths.h"
#include "usecase/pts.h"
#include "usecase/runs.h"
#include "usecase/targets.h"
#include "workload/parse.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

// --prefill: one sequential pass of 1 MiB writes (or the largest block dividing the target)
// over the whole target, not measured or stored.
Status Prefill(Backend& backend, const std::atomic<bool>* stop, Console& console) {
  WorkloadArgs w;
  w.rw = "write";
  w.interval = "0";
  SSDLAB_ASSIGN_OR_RETURN(WorkloadSpec spec, ResolveWorkload(w, backend.info().size_bytes,
                                                             backend.info().logical_block_bytes));
  const WorkloadSpec fill = PrefillOf(spec);
  console.Note("ssdlab profile: --prefill writes " + FormatBytes(fill.io_bytes) +
               " sequentially (not measured)");
  RunControl quiet{stop, nullptr, nullptr};
  SSDLAB_ASSIGN_OR_RETURN(PhaseResult r, backend.RunPhase(fill, quiet));
  if (r.interrupted) return Status::Error(Code::kInterrupted, "interrupted");
  if (r.io_errors)
    return Status::Io("--prefill: " +
                      (r.errors.empty() ? std::string("I/O errors") : r.errors.front()));
  return Status::Ok();
}

Status Percents(const std::string& flag, const std::string& text, std::vector<double>& out) {
  if (text.empty()) return Status::Ok();
  out.clear();
  for (const std::string& s : SplitNonEmpty(text, ',')) {
    std::string t = s;
    auto v = ParseDouble(t.back() == '%' ? t.substr(0, t.size() - 1) : t);
    if (!v.ok()) return Status::Invalid(flag + ": '" + s + "' is not a percentage");
    out.push_back(v.value());
  }
  if (out.empty()) return Status::Invalid(flag + " is empty");
  return Status::Ok();
}

// "0:30:5" (from:to:step) or a list "0,10,20".
Status OpList(const std::string& text, std::vector<double>& out) {
  if (text.empty()) return Status::Ok();
  if (text.find(':') == std::string::npos) return Percents("--op", text, out);
  auto parts = SplitNonEmpty(text, ':');
  if (parts.size() != 3)
    return Status::Invalid("--op '" + text + "' is not FROM:TO:STEP (e.g. 0:30:5) or a list");
  double v[3];
  for (int i = 0; i < 3; ++i) {
    auto p = ParseDouble(parts[i]);
    if (!p.ok()) return Status::Invalid("--op '" + text + "': '" + parts[i] + "' is not a number");
    v[i] = p.value();
  }
  if (v[2] <= 0 || v[1] < v[0])
    return Status::Invalid("--op '" + text + "': needs FROM <= TO and STEP > 0");
  // Counted before the list is made: a tiny STEP would otherwise fill the memory.
  if ((v[1] - v[0]) / v[2] + 1 > static_cast<double>(kMaxOpPoints))
    return Status::Invalid("--op '" + text + "' gives more than " + std::to_string(kMaxOpPoints) +
                           " OP points; give a larger STEP");
  out.clear();
  for (double x = v[0]; x <= v[1] + 1e-9; x += v[2]) out.push_back(x);
  return Status::Ok();
}

Status Real(const std::string& flag, const std::string& text, double& out) {
  if (text.empty()) return Status::Ok();
  std::string t = text.back() == '%' ? text.substr(0, text.size() - 1) : text;
  auto v = ParseDouble(t);
  if (!v.ok()) return Status::Invalid(flag + " '" + text + "' is not a number");
  out = v.value();
  return Status::Ok();
}

using S = const std::string&;

}  // namespace

// Every option of `ssdlab profile` that shapes what is measured, once.
const std::vector<ProfileOptionDef>& ProfileOptionDefs() {
  static const std::vector<ProfileOptionDef> defs = {
      {"--fill",
       "Run at each fill level, e.g. 0,90: purge, fill that share sequentially, then the profile",
       [](S f, S t, ProfileOptions& o) { return Percents(f, t, o.fill_pcts); }},
      {"--purge", "Purge method before fill levels and OP points (auto)",
       [](S f, S t, ProfileOptions& o) { return PurgeFlag(f, t, o.purge); }},
      {"--seed", "Seed of every phase (1)",
       [](S f, S t, ProfileOptions& o) { return CountFlag(f, t, o.seed, true); }},
      {"--size",
       "Test file (cdm, as-ssd: 1GiB), span (atto: 256MiB), total of the files (fileio: 2GiB)",
       [](S f, S t, ProfileOptions& o) { return BytesFlag(f, t, o.size_bytes); }},
      {"--time",
       "Measured time per phase (cdm pass 5s, as-ssd 5s, curve point 60s, op-advisor 600s, "
       "fileio 120s)",
       [](S f, S t, ProfileOptions& o) { return DurationFlag(f, t, o.time_ns); }},
      {"--ramp", "Warm-up before each curve point (10s) or fileio mode (0)",
       [](S f, S t, ProfileOptions& o) { return DurationFlag(f, t, o.ramp_ns); }},
      {"--passes", "cdm: passes per test (5; at most 100)",
       [](S f, S t, ProfileOptions& o) { return CountFlag(f, t, o.passes); }},
      {"--pause", "cdm: pause between passes (5s)",
       [](S f, S t, ProfileOptions& o) { return DurationFlag(f, t, o.pause_ns); }},
      {"--qd", "atto 4, surface 4, op-advisor 32 (per thread)",
       [](S f, S t, ProfileOptions& o) { return CountFlag(f, t, o.qd); }},
      {"--threads", "curve: outstanding I/Os (the mix's), fileio 192, op-advisor 4",
       [](S f, S t, ProfileOptions& o) { return CountFlag(f, t, o.threads); }},
      {"--min-bs", "atto: smallest block (512B; a multiple of 512B, at most 1GiB)",
       [](S f, S t, ProfileOptions& o) { return BytesFlag(f, t, o.min_bs); }},
      {"--max-bs", "atto: largest block (64MiB; a multiple of 512B, at most 1GiB)",
       [](S f, S t, ProfileOptions& o) { return BytesFlag(f, t, o.max_bs); }},
      {"--bs", "surface block (1MiB), fileio block (4KiB)",
       [](S f, S t, ProfileOptions& o) { return BytesFlag(f, t, o.bs); }},
      {"--segments", "surface: positions along the target (100; at most 1000)",
       [](S f, S t, ProfileOptions& o) { return CountFlag(f, t, o.segments); }},
      {"--cliff-ratio", "surface: a segment below this x the median before it is a cliff (0.6)",
       [](S f, S t, ProfileOptions& o) { return Real(f, t, o.cliff_ratio); }},
      {"--section", "curve: working section in percent of the target (25)",
       [](S f, S t, ProfileOptions& o) { return Real(f, t, o.section_pct); }},
      {"--curve-fill", "curve: percent of the target filled first (100; 0: none)",
       [](S f, S t, ProfileOptions& o) { return Real(f, t, o.curve_fill_pct); }},
      {"--points", "curve: paced points in percent of the maximum (10,20,...,120)",
       [](S f, S t, ProfileOptions& o) { return Percents(f, t, o.curve_pcts); }},
      {"--max-jobs", "curve: threads are spread over at most this many jobs (4)",
       [](S f, S t, ProfileOptions& o) { return CountFlag(f, t, o.max_jobs); }},
      {"--op", "op-advisor: over-provisioning points FROM:TO:STEP or a list, percent (0:30:5)",
       [](S, S t, ProfileOptions& o) { return OpList(t, o.op_pcts); }},
      {"--interval",
       "op-advisor: IOPS time-series resolution (1s; at most 100000 intervals a point)",
       [](S, S t, ProfileOptions& o) {
         SSDLAB_ASSIGN_OR_RETURN(o.interval_ns, ParseIntervalNs(t));
         return Status::Ok();
       }},
      {"--percent", "fill: percent of the target to fill (90)",
       [](S f, S t, ProfileOptions& o) { return Real(f, t, o.fill_percent); }},
      {"--mode", "fileio: rndrd,rndwr,rndrw,seqrd,seqwr (rndrd,rndwr,rndrw)",
       [](S, S t, ProfileOptions& o) {
         o.fileio_modes = SplitNonEmpty(t, ',');
         return Status::Ok();
       }},
      {"--time-scale",
       "N or auto: simulated drives at scale=N with the profile's default durations divided by "
       "N, so each phase writes the share of the drive it writes on the full drive (auto: the "
       "scale the target sets, else its preset's at most the phase time / 10s; 1: off)",
       [](S f, S t, ProfileOptions& o) { return CountFlag(f, t, o.time_scale); }},
      {"--rw-ratio", "fileio rndrw: reads per write (1.5)",
       [](S f, S t, ProfileOptions& o) {
         SSDLAB_RETURN_IF_ERROR(Real(f, t, o.fileio_rw_ratio));
         if (o.fileio_rw_ratio <= 0) return Status::Invalid("--rw-ratio must be above 0");
         return Status::Ok();
       }},
  };
  return defs;
}

bool LooksLikeProfileFile(const std::string& name) {
  return name.find('/') != std::string::npos ||
         (name.size() > 5 && name.substr(name.size() - 5) == ".toml");
}

Status CheckFileioDir(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0)
    return Status::NotFound("fileio: directory " + dir + " does not exist");
  if (!S_ISDIR(st.st_mode))
    return Status::Invalid(
        "fileio: --target " + dir +
        " is not a directory (fileio creates its files in a directory of a mounted filesystem)");
  struct statfs fs;
  if (statfs(dir.c_str(), &fs) != 0)
    return Status::Io("fileio: statfs " + dir + ": " + std::strerror(errno));
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEVPTS_SUPER_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case DEBUGFS_MAGIC:
    case SECURITYFS_MAGIC:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
      return Status::Invalid("fileio: " + dir +
                             " is not on a disk filesystem (procfs, sysfs, tmpfs or similar); give "
                             "a directory on the drive under test");
    default:
      break;
  }
  struct statvfs vfs;
  if (statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
    return Status::Refused("fileio: " + dir + " is on a read-only filesystem");
  if (access(dir.c_str(), W_OK) != 0)
    return Status::Refused("fileio: cannot write in " + dir + " (" + std::strerror(errno) + ")");
  return Status::Ok();
}

namespace {

json ArgsJson(const ProfileRequest& r, const std::string& target) {
  json j = OptionTextsJson(ProfileOptionDefs(), r.options);
  j["name"] = r.name;
  j["target"] = target;
  j["target_size"] = r.target_size;
  j["files"] = r.files;
  j["prefill"] = r.prefill;
  return j;
}

// fileio on a directory: N files in it, addressed as one range (engine/engine.h
// RealTargetOptions::files).
Result<std::unique_ptr<Backend>> OpenFileioTarget(const ProfileRequest& r,
                                                  const std::string& target,
                                                  const ProfileOptions& options) {
  SSDLAB_RETURN_IF_ERROR(CheckFileioDir(target));
  uint32_t files = 64;
  SSDLAB_RETURN_IF_ERROR(CountFlag("--files", r.files, files));
  uint64_t total = options.size_bytes ? options.size_bytes : 2 * kGiB;  // sysbench's default
  uint64_t per = total / files / kMiB * kMiB;
  if (per == 0)
    return Status::Invalid("fileio: --size " + FormatBytes(total) + " over " +
                           std::to_string(files) + " files leaves less than 1 MiB per file");
  RealTargetOptions ro;
  ro.path = target;
  ro.writable = true;
  for (uint32_t i = 0; i < files; ++i)
    ro.files.push_back(
        (std::filesystem::path(target) / fmt::format("ssdlab_fileio.{}", i)).string());
  ro.size_bytes = per * files;
  auto backend = OpenRealBackend(ro);
  // A target that cannot be opened is bad input unless the failure was one of I/O.
  if (!backend.ok() && backend.status().code() != Code::kIoError)
    return Status::Invalid(backend.status().message());
  return backend;
}

// The backend the profile runs on: the one opened already, the fileio files, or the target.
Result<std::unique_ptr<Backend>> OpenProfileBackend(ProfileRequest& r, const std::string& target,
                                                    const ProfileDef& def,
                                                    const ProfileOptions& options,
                                                    std::unique_ptr<Backend> opened) {
  const bool fileio = def.kind == "fileio";
  if (opened) return opened;
  if (fileio && !IsSimTarget(target)) return OpenFileioTarget(r, target, options);
  if (!r.files.empty() || !r.options["--rw-ratio"].empty() || !r.options["--mode"].empty()) {
    if (!fileio)
      return Status::Invalid("--files, --mode and --rw-ratio apply to the fileio profile only");
  }
  TargetRequest req;
  req.target = target;
  SSDLAB_RETURN_IF_ERROR(BytesFlag("--target-size", r.target_size, req.size_bytes));
  req.writes = true;
  req.destructive = r.destructive;
  auto backend = OpenTarget(req);
  if (!backend.ok() && backend.status().code() != Code::kIoError)
    return Status::Invalid(backend.status().message());
  return backend;
}

// A device (not a simulated drive, not fileio's directory): its identity, the --confirm of a
// purge on a block device, and the device layer's purges.
Result<std::optional<DeviceIdentity>> GuardDevice(const ProfileRequest& r,
                                                  const std::string& target, const ProfileDef& def,
                                                  const ProfileOptions& options,
                                                  std::unique_ptr<Backend>& backend) {
  if (IsSimTarget(target) || def.kind == "fileio") return std::optional<DeviceIdentity>();
  SSDLAB_ASSIGN_OR_RETURN(DeviceIdentity identity, IdentifyTarget(target));
  bool purges = !options.fill_pcts.empty() || def.kind == "op-advisor";
  if (identity.kind == "block" && purges)
    SSDLAB_RETURN_IF_ERROR(CheckConfirmation(identity, r.confirm));
  backend = WithDevicePurge(std::move(backend), identity, r.destructive, r.confirm);
  return std::optional<DeviceIdentity>(identity);
}

// The checks before any target is opened, in the order the user meets them.
Status CheckProfileRequest(const ProfileRequest& r, const std::string& target,
                           const ProfileDef& def, const ProfileOptions& options,
                           uint64_t& temp_interval_ns) {
  PathRegistry paths = CommandPaths();
  if (LooksLikeProfileFile(r.name)) paths.AddInput("the profile " + r.name, r.name);
  SSDLAB_RETURN_IF_ERROR(AddTargetPaths(paths, "--target", target, true));
  AddDatabasePath(paths, "--db", r.db, true);
  for (const auto& [what, path] : r.outputs) paths.AddOutput(what, path);
  SSDLAB_RETURN_IF_ERROR(paths.Check());
  auto temp_interval = ParseDurationNs(r.temp_interval);
  if (!temp_interval.ok())
    return Status::Invalid("--temp-interval: " + temp_interval.status().message());
  temp_interval_ns = temp_interval.value();
  uint64_t target_size = 0;
  SSDLAB_RETURN_IF_ERROR(BytesFlag("--target-size", r.target_size, target_size));
  if (r.prefill && (!options.fill_pcts.empty() || def.kind == "op-advisor"))
    return Status::Invalid(std::string("--prefill: ") +
                           (def.kind == "op-advisor" ? "op-advisor" : "--fill") +
                           " purges the drive before it measures; a prefill would be erased");
  return Status::Ok();
}

}  // namespace

Result<ProfileDef> LoadProfileDef(const std::string& name) {
  return LooksLikeProfileFile(name) ? LoadProfileFile(name) : BuiltinProfile(name);
}

Result<ProfileOutcome> RunProfile(ProfileRequest r, std::unique_ptr<Backend> opened) {
  Console& console = *r.console;
  SSDLAB_ASSIGN_OR_RETURN(ProfileDef def, LoadProfileDef(r.name));
  SSDLAB_ASSIGN_OR_RETURN(std::string target, ComposeTarget(r.targets, r.layout, r.chunk));
  ProfileOptions options;
  SSDLAB_RETURN_IF_ERROR(ApplyOptionDefs(ProfileOptionDefs(), r.options, options));
  SSDLAB_RETURN_IF_ERROR(ValidateProfileOptions(def, options));
  uint64_t temp_interval_ns = 0;
  SSDLAB_RETURN_IF_ERROR(CheckProfileRequest(r, target, def, options, temp_interval_ns));
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend,
                          OpenProfileBackend(r, target, def, options, std::move(opened)));
  SSDLAB_RETURN_IF_ERROR(CheckProfileTarget(def, options, backend->info()));
  SSDLAB_ASSIGN_OR_RETURN(std::optional<DeviceIdentity> identity,
                          GuardDevice(r, target, def, options, backend));
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(r.db));
  ProfileOutcome out;
  out.run = r.run.empty() ? DefaultRunName("profile-" + def.name) : r.run;
  out.target = target;
  json config = {{"args", ArgsJson(r, target)},
                 {"options", ProfileOptionsJson(options)},
                 {"profile", def.name},
                 {"kind", def.kind}};
  json context = PlatformJson();
  context["target"] = TargetJson(backend->info());
  context["device"] = identity ? IdentityJson(*identity) : json(nullptr);
  SSDLAB_ASSIGN_OR_RETURN(out.run_id,
                          store->CreateRun(out.run, "profile", config, context, backend->info()));
  console.Note(
      fmt::format("ssdlab profile: run '{}', {} on {} ({}){}", out.run, def.name, target,
                  FormatBytes(backend->info().size_bytes),
                  r.options["--fill"].empty() ? "" : ", fill levels " + r.options["--fill"]));
  if (std::string n = SimStateNote(*backend); !n.empty()) console.Note("ssdlab profile: " + n);
  HealthHooks hooks(identity ? &*identity : nullptr, temp_interval_ns);
  out.measured = Status::Ok();
  if (r.prefill) out.measured = Prefill(*backend, r.stop, console);
  if (out.measured.ok())
    out.measured = ssdlab::RunProfile(*backend, *store, out.run_id, 0, def, options, r.progress,
                                      r.stop, &hooks);
  if (r.ended) r.ended();
  out.doc = EndStoredRun(*store, out.run_id, out.run, out.measured, console);
  if (r.write_outputs) out.end.outputs = r.write_outputs(out);
  // A simulated drive with state= saves it, also after an interruption, but not when the profile
  // or its outputs failed (EndTargetUse).
  EndUseAfterOutputs(*backend, out.measured, out.end, console);
  return out;
}

SpreadCommand ProfileSpreadCommand(const ProfileRequest& r, int ranks, RunProfileOn run) {
  auto def = std::make_shared<Result<ProfileDef>>(LoadProfileDef(r.name));
  auto options = std::make_shared<ProfileOptions>();
  Status ok = def->status();
  if (ok.ok()) ok = ApplyOptionDefs(ProfileOptionDefs(), r.options, *options);
  if (ok.ok()) ok = ValidateProfileOptions(def->value(), *options);
  auto target = ComposeTarget(r.targets, r.layout, r.chunk);
  if (ok.ok()) ok = target.status();
  SpreadCommand c;
  c.why_not = !ok.ok()                       ? "bad options"
              : (*def)->kind != "op-advisor" ? "only the op-advisor's points are spread"
                                             : WhyNotSpread(*target, options->purge, false);
  if (c.why_not.empty())
    c.note = fmt::format("ssdlab profile: op-advisor points spread over {} ranks", ranks);
  else if (ok.ok())
    c.note = fmt::format("ssdlab profile: not spread over {} ranks ({}); rank 0 runs it", ranks,
                         c.why_not);
  c.unit = SpreadUnit::kPurges;
  c.open = [def, options, target, size = r.target_size,
            prefill = r.prefill]() -> Result<std::unique_ptr<Backend>> {
    TargetRequest req;
    req.target = target.value();
    req.writes = true;
    SSDLAB_RETURN_IF_ERROR(BytesFlag("--target-size", size, req.size_bytes));
    if (prefill)
      return Status::Invalid("--prefill: op-advisor purges the drive before it measures");
    SSDLAB_ASSIGN_OR_RETURN(auto local, OpenTarget(req));
    SSDLAB_RETURN_IF_ERROR(CheckProfileTarget(def->value(), *options, local->info()));
    return local;
  };
  c.pass = [def, options, stop = r.stop](Backend& b, RunJournal& j, TestHooks*) {
    return ssdlab::RunProfile(b, j, 1, 0, def->value(), *options, nullptr, stop, nullptr);
  };
  c.run = std::move(run);
  return c;
}

int RunSpreadProfile(const ProfileRequest& r, const RunProfileOn& run) {
  auto world = MpiWorld::Get();
  if (!world.ok()) return r.console->Fail(world.status());
  MpiWorld& w = **world;
  if (w.size() == 1) return run(nullptr);
  return RunSpread(w, ProfileSpreadCommand(r, w.size(), run), *r.console);
}

}  // namespace ssdlab::usecase
