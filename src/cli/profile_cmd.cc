// `ssdlab profile NAME|FILE.toml`: the review-lab profiles (suite/profile.h), stored in the
// results database as a run of kind "profile".
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "base/clock.h"
#include "base/output_file.h"
#include "base/strings.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/output.h"
#include "cli/suite_cli.h"
#include "device/device_backend.h"
#include "device/device_json.h"
#include "device/safety.h"
#include "engine/engine.h"
#include "lab/mpi.h"
#include "results/profile.h"
#include "store/store.h"
#include "suite/profile.h"
#include "usecase/paths.h"
#include "usecase/sim_spread.h"
#include "usecase/targets.h"
#include "workload/parse.h"

namespace ssdlab {
namespace {

using nlohmann::json;

struct ProfileArgs {
  std::string name, target, db, run, json_path, progress = "auto";
  usecase::OptionTexts options = {
      {"--purge", "auto"}};  // the profile's options (ProfileOptionDefs)
  std::string target_size, files;
  std::string confirm, temp_interval = "1s";
  std::vector<std::string> targets;  // --target, composed into `target` (an array with --layout)
  std::string layout, chunk;
  bool destructive = false;
  bool prefill = false;
};

// --prefill: one sequential pass of 1 MiB writes (or the largest block dividing the target)
// over the whole target, not measured or stored.
Status Prefill(Backend& backend) {
  WorkloadArgs w;
  w.rw = "write";
  w.interval = "0";
  SSDLAB_ASSIGN_OR_RETURN(WorkloadSpec spec, ResolveWorkload(w, backend.info().size_bytes,
                                                             backend.info().logical_block_bytes));
  const WorkloadSpec fill = PrefillOf(spec);
  std::cerr << "ssdlab profile: --prefill writes " << FormatBytes(fill.io_bytes)
            << " sequentially (not measured)\n";
  RunControl quiet{&StopFlag(), nullptr, nullptr};
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

using ProfileOptionDef = usecase::OptionDef<ProfileOptions>;
using S = const std::string&;

// Every option of `ssdlab profile` that shapes what is measured, once.
const std::vector<ProfileOptionDef>& ProfileOptionDefs() {
  static const std::vector<ProfileOptionDef> defs = {
      {"--fill",
       "Run at each fill level, e.g. 0,90: purge, fill that share sequentially, then the profile",
       [](S f, S t, ProfileOptions& o) { return Percents(f, t, o.fill_pcts); }},
      {"--purge", "Purge method before fill levels and OP points (auto)",
       [](S f, S t, ProfileOptions& o) { return usecase::PurgeFlag(f, t, o.purge); }},
      {"--seed", "Seed of every phase (1)",
       [](S f, S t, ProfileOptions& o) { return usecase::CountFlag(f, t, o.seed, true); }},
      {"--size",
       "Test file (cdm, as-ssd: 1GiB), span (atto: 256MiB), total of the files (fileio: 2GiB)",
       [](S f, S t, ProfileOptions& o) { return usecase::BytesFlag(f, t, o.size_bytes); }},
      {"--time",
       "Measured time per phase (cdm pass 5s, as-ssd 5s, curve point 60s, op-advisor 600s, "
       "fileio 120s)",
       [](S f, S t, ProfileOptions& o) { return usecase::DurationFlag(f, t, o.time_ns); }},
      {"--ramp", "Warm-up before each curve point (10s) or fileio mode (0)",
       [](S f, S t, ProfileOptions& o) { return usecase::DurationFlag(f, t, o.ramp_ns); }},
      {"--passes", "cdm: passes per test (5; at most 100)",
       [](S f, S t, ProfileOptions& o) { return usecase::CountFlag(f, t, o.passes); }},
      {"--pause", "cdm: pause between passes (5s)",
       [](S f, S t, ProfileOptions& o) { return usecase::DurationFlag(f, t, o.pause_ns); }},
      {"--qd", "atto 4, surface 4, op-advisor 32 (per thread)",
       [](S f, S t, ProfileOptions& o) { return usecase::CountFlag(f, t, o.qd); }},
      {"--threads", "curve: outstanding I/Os (the mix's), fileio 192, op-advisor 4",
       [](S f, S t, ProfileOptions& o) { return usecase::CountFlag(f, t, o.threads); }},
      {"--min-bs", "atto: smallest block (512B; a multiple of 512B, at most 1GiB)",
       [](S f, S t, ProfileOptions& o) { return usecase::BytesFlag(f, t, o.min_bs); }},
      {"--max-bs", "atto: largest block (64MiB; a multiple of 512B, at most 1GiB)",
       [](S f, S t, ProfileOptions& o) { return usecase::BytesFlag(f, t, o.max_bs); }},
      {"--bs", "surface block (1MiB), fileio block (4KiB)",
       [](S f, S t, ProfileOptions& o) { return usecase::BytesFlag(f, t, o.bs); }},
      {"--segments", "surface: positions along the target (100; at most 1000)",
       [](S f, S t, ProfileOptions& o) { return usecase::CountFlag(f, t, o.segments); }},
      {"--cliff-ratio", "surface: a segment below this x the median before it is a cliff (0.6)",
       [](S f, S t, ProfileOptions& o) { return Real(f, t, o.cliff_ratio); }},
      {"--section", "curve: working section in percent of the target (25)",
       [](S f, S t, ProfileOptions& o) { return Real(f, t, o.section_pct); }},
      {"--curve-fill", "curve: percent of the target filled first (100; 0: none)",
       [](S f, S t, ProfileOptions& o) { return Real(f, t, o.curve_fill_pct); }},
      {"--points", "curve: paced points in percent of the maximum (10,20,...,120)",
       [](S f, S t, ProfileOptions& o) { return Percents(f, t, o.curve_pcts); }},
      {"--max-jobs", "curve: threads are spread over at most this many jobs (4)",
       [](S f, S t, ProfileOptions& o) { return usecase::CountFlag(f, t, o.max_jobs); }},
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
       [](S f, S t, ProfileOptions& o) { return usecase::CountFlag(f, t, o.time_scale); }},
      {"--rw-ratio", "fileio rndrw: reads per write (1.5)",
       [](S f, S t, ProfileOptions& o) {
         SSDLAB_RETURN_IF_ERROR(Real(f, t, o.fileio_rw_ratio));
         if (o.fileio_rw_ratio <= 0) return Status::Invalid("--rw-ratio must be above 0");
         return Status::Ok();
       }},
  };
  return defs;
}

json ArgsJson(const ProfileArgs& a) {
  json j = usecase::OptionTextsJson(ProfileOptionDefs(), a.options);
  j["name"] = a.name;
  j["target"] = a.target;
  j["target_size"] = a.target_size;
  j["files"] = a.files;
  j["prefill"] = a.prefill;
  return j;
}

bool LooksLikeFile(const std::string& name) {
  return name.find('/') != std::string::npos ||
         (name.size() > 5 && name.substr(name.size() - 5) == ".toml");
}

// The directory of a fileio run must be a writable directory on a real filesystem.
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

// The human summary: each fill level's figures, then the differences (nothing of a test whose
// stored results are damaged but the reason).
void PrintSummary(const json& doc, std::ostream& out) {
  for (const json& t : doc["tests"]) {
    const std::string name = t["name"];
    if (!t["results"].contains("levels")) continue;
    auto r = results::ProfileResultsFromJson(t["results"], name + ".results");
    if (!r.ok()) {
      out << name << ": damaged: " << r.status().message() << "\n";
      continue;
    }
    for (const results::ProfileLevel& lv : r->levels) {
      out << fmt::format("{}{}\n", name,
                         lv.fill_pct ? fmt::format(" at {:g}% full", *lv.fill_pct) : "");
      for (const std::string& n : lv.notes.value_or(std::vector<std::string>{}))
        out << "  note: " << n << "\n";
      for (const results::SummaryFigure& m : lv.summary) {
        // Small figures (access times in ms, ...) with three decimals, so 0.04 is not "0.0".
        const double v = m.value;
        out << (std::abs(v) < 10 && v != 0 ? fmt::format("  {:<40} {:>12.3f}\n", m.metric, v)
                                           : fmt::format("  {:<40} {:>12.1f}\n", m.metric, v));
      }
    }
    if (!r->differences.empty()) {
      out << "differences (last fill level against the first):\n";
      for (const results::ProfileDifference& d : r->differences)
        out << fmt::format("  {:<40} {:>+8.1f}%\n", d.metric, d.change_pct);
    }
    if (r->levels.empty()) continue;
    const results::ProfileKindResults& last = r->levels.back().results;
    if (const auto* op = std::get_if<results::OpAdvisorResults>(&last)) {
      const results::OpRecommendation& x = op->recommendation;
      out << fmt::format(
          "recommendation: OP {:g}% ({:.0f} sustained IOPS, {:+.1f}% over {:g}%), costs {} of "
          "capacity\n",
          x.op_pct, x.sustained_iops, x.gain_pct, x.baseline_op_pct,
          FormatBytes(x.capacity_cost_bytes));
    }
    const auto* surface = std::get_if<results::SurfaceResults>(&last);
    if (surface && surface->cliff.found) {
      const results::SurfaceCliff& x = surface->cliff;
      out << fmt::format("write cliff at {:.1f}% of the surface ({}): {:.0f} -> {:.0f} MB/s\n",
                         x.position_pct, FormatBytes(x.position_bytes), x.before_mb_s,
                         x.after_mb_s);
    }
  }
}

// `opened`: the backend to run on, opened already (pass 2 of a spread run, cli/sim_spread.h).
int RunProfileCommand(ProfileArgs a, std::unique_ptr<Backend> opened = nullptr) {
  Result<ProfileDef> def = LooksLikeFile(a.name) ? LoadProfileFile(a.name) : BuiltinProfile(a.name);
  if (!def.ok()) {
    return Fail(def.status());
  }
  auto target = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  if (!target.ok()) {
    return Fail(target.status());
  }
  a.target = target.value();
  ProfileOptions options;
  if (Status s = usecase::ApplyOptionDefs(ProfileOptionDefs(), a.options, options); !s.ok()) {
    return Fail(s);
  }
  if (Status s = ValidateProfileOptions(def.value(), options); !s.ok()) {
    return Fail(s);
  }
  PathRegistry paths = usecase::CommandPaths();
  if (LooksLikeFile(a.name)) paths.AddInput("the profile " + a.name, a.name);
  if (Status s = usecase::AddTargetPaths(paths, "--target", a.target, true); !s.ok())
    return Fail(s);
  usecase::AddDatabasePath(paths, "--db", a.db, true);
  paths.AddOutput("--json", a.json_path);
  if (Status s = paths.Check(); !s.ok()) return Fail(s);
  auto temp_interval = ParseDurationNs(a.temp_interval);
  if (!temp_interval.ok()) {
    PrintError("--temp-interval: " + temp_interval.status().message());
    return kExitUsage;
  }
  const bool sim = IsSimTarget(a.target);
  const bool fileio = def->kind == "fileio";
  uint64_t target_size = 0;
  if (Status s = usecase::BytesFlag("--target-size", a.target_size, target_size); !s.ok()) {
    return Fail(s);
  }
  if (a.prefill && (!options.fill_pcts.empty() || def->kind == "op-advisor")) {
    PrintError(std::string("--prefill: ") + (def->kind == "op-advisor" ? "op-advisor" : "--fill") +
               " purges the drive before it measures; a prefill would be erased");
    return kExitUsage;
  }
  Result<std::unique_ptr<Backend>> backend = Status::Invalid("no target");
  if (opened) {
    backend = std::move(opened);
  } else if (fileio && !sim) {
    // N files in a directory, addressed as one range (engine/engine.h RealTargetOptions::files).
    if (Status s = CheckFileioDir(a.target); !s.ok()) {
      return Fail(s);
    }
    uint32_t files = 64;
    if (Status s = usecase::CountFlag("--files", a.files, files); !s.ok()) {
      return Fail(s);
    }
    uint64_t total = options.size_bytes ? options.size_bytes : 2 * kGiB;  // sysbench's default
    uint64_t per = total / files / kMiB * kMiB;
    if (per == 0) {
      PrintError("fileio: --size " + FormatBytes(total) + " over " + std::to_string(files) +
                 " files leaves less than 1 MiB per file");
      return kExitUsage;
    }
    RealTargetOptions ro;
    ro.path = a.target;
    ro.writable = true;
    for (uint32_t i = 0; i < files; ++i)
      ro.files.push_back(
          (std::filesystem::path(a.target) / fmt::format("ssdlab_fileio.{}", i)).string());
    ro.size_bytes = per * files;
    backend = OpenRealBackend(ro);
  } else {
    if (!a.files.empty() || !a.options["--rw-ratio"].empty() || !a.options["--mode"].empty()) {
      if (!fileio) {
        PrintError("--files, --mode and --rw-ratio apply to the fileio profile only");
        return kExitUsage;
      }
    }
    usecase::TargetRequest req;
    req.target = a.target;
    req.size_bytes = target_size;
    req.writes = true;
    req.destructive = a.destructive;
    backend = usecase::OpenTarget(req);
  }
  if (!backend.ok()) {
    PrintError(backend.status().message());
    return backend.status().code() == Code::kIoError ? kExitFailed : kExitUsage;
  }
  if (Status s = CheckProfileTarget(def.value(), options, (*backend)->info()); !s.ok()) {
    return Fail(s);
  }
  std::optional<DeviceIdentity> identity;
  if (!sim && !(fileio && !sim)) {
    auto id = IdentifyTarget(a.target);
    if (!id.ok()) {
      return Fail(id.status());
    }
    identity = id.value();
    bool purges = !options.fill_pcts.empty() || def->kind == "op-advisor";
    if (identity->kind == "block" && purges) {
      if (Status s = CheckConfirmation(*identity, a.confirm); !s.ok()) {
        return Fail(s);
      }
    }
    backend = WithDevicePurge(std::move(backend.value()), *identity, a.destructive, a.confirm);
  }
  auto store = Store::Open(a.db);
  if (!store.ok()) {
    return Fail(store.status());
  }
  if (a.run.empty()) a.run = usecase::DefaultRunName("profile-" + def->name);
  json config = {{"args", ArgsJson(a)},
                 {"options", ProfileOptionsJson(options)},
                 {"profile", def->name},
                 {"kind", def->kind}};
  json context = usecase::PlatformJson();
  context["target"] = usecase::TargetJson((*backend)->info());
  context["device"] = identity ? IdentityJson(*identity) : json(nullptr);
  auto run_id = (*store)->CreateRun(a.run, "profile", config, context, (*backend)->info());
  if (!run_id.ok()) {
    return Fail(run_id.status());
  }
  bool tty = isatty(STDERR_FILENO);
  bool json_lines = a.progress == "json";
  std::unique_ptr<CliProgress> progress;
  if (a.progress != "none")
    progress = std::make_unique<CliProgress>(json_lines, tty && !json_lines);
  std::cerr << fmt::format(
      "ssdlab profile: run '{}', {} on {} ({}){}\n", a.run, def->name, a.target,
      FormatBytes((*backend)->info().size_bytes),
      a.options["--fill"].empty() ? "" : ", fill levels " + a.options["--fill"]);
  if (std::string n = usecase::SimStateNote(**backend); !n.empty())
    std::cerr << "ssdlab profile: " << n << "\n";
  usecase::HealthHooks hooks(identity ? &*identity : nullptr, temp_interval.value());
  Status st = Status::Ok();
  if (a.prefill) st = Prefill(**backend);
  if (st.ok())
    st = RunProfile(**backend, **store, run_id.value(), 0, def.value(), options, progress.get(),
                    &StopFlag(), &hooks);
  if (progress) progress->Done();
  st = FinishStoredRun(**store, run_id.value(), a.run, a.db, st, a.json_path, [&](const json& doc) {
    if (st.ok()) PrintSummary(doc, a.json_path == "-" ? std::cerr : std::cout);
  });
  // A simulated drive with state= saves it, also after an interruption, but not when the profile
  // or its outputs failed (EndTargetUse).
  if (Status closed = usecase::EndTargetUse(**backend, st, CliConsole()); !closed.ok()) {
    PrintError(closed.message());
    if (st.ok()) st = closed;
  }
  if (!st.ok()) {
    PrintError(st.code() == Code::kInterrupted
                   ? "interrupted; finished steps are stored in run " + a.run
                   : st.message());
    return st.code() == Code::kInterrupted ? kExitInterrupted : ExitCodeFor(st);
  }
  return kExitOk;
}

// --time-scale: "auto" becomes the number (ApplyTimeScale: from the phase time, --time or the
// profile kind's default), and every simulated --target gets scale=N.
Status ApplyProfileTimeScale(ProfileArgs& a) {
  auto it = a.options.find("--time-scale");
  if (it == a.options.end() || it->second.empty()) return Status::Ok();
  uint64_t phase_ns = 0;
  if (auto t = a.options.find("--time"); t != a.options.end())
    SSDLAB_RETURN_IF_ERROR(usecase::DurationFlag("--time", t->second, phase_ns));
  if (phase_ns == 0 && it->second == "auto") {
    SSDLAB_ASSIGN_OR_RETURN(
        ProfileDef def, LooksLikeFile(a.name) ? LoadProfileFile(a.name) : BuiltinProfile(a.name));
    phase_ns = DefaultPhaseNs(def.kind);
  }
  SSDLAB_ASSIGN_OR_RETURN(uint32_t n, usecase::ApplyTimeScale(it->second, phase_ns, a.targets));
  it->second = std::to_string(n);
  return Status::Ok();
}

// A profile on one simulated drive under mpirun: the op-advisor's points spread over the ranks
// (cli/sim_spread.h); any other profile runs on rank 0 alone.
int RunSpreadProfile(ProfileArgs a) {
  auto world = MpiWorld::Get();
  if (!world.ok()) return Fail(world.status());
  MpiWorld& w = **world;
  if (w.size() == 1) return RunProfileCommand(a);
  Result<ProfileDef> def = LooksLikeFile(a.name) ? LoadProfileFile(a.name) : BuiltinProfile(a.name);
  ProfileOptions options;
  Status ok = def.status();
  if (ok.ok()) ok = usecase::ApplyOptionDefs(ProfileOptionDefs(), a.options, options);
  if (ok.ok()) ok = ValidateProfileOptions(def.value(), options);
  auto target = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  if (ok.ok()) ok = target.status();
  usecase::SpreadCommand c;
  c.why_not = !ok.ok()                    ? "bad options"
              : def->kind != "op-advisor" ? "only the op-advisor's points are spread"
                                          : usecase::WhyNotSpread(*target, options.purge, false);
  if (c.why_not.empty())
    c.note = fmt::format("ssdlab profile: op-advisor points spread over {} ranks", w.size());
  else if (ok.ok())
    c.note = fmt::format("ssdlab profile: not spread over {} ranks ({}); rank 0 runs it", w.size(),
                         c.why_not);
  c.unit = usecase::SpreadUnit::kPurges;
  c.open = [&]() -> Result<std::unique_ptr<Backend>> {
    usecase::TargetRequest req;
    req.target = target.value();
    req.writes = true;
    SSDLAB_RETURN_IF_ERROR(usecase::BytesFlag("--target-size", a.target_size, req.size_bytes));
    if (a.prefill)
      return Status::Invalid("--prefill: op-advisor purges the drive before it measures");
    SSDLAB_ASSIGN_OR_RETURN(auto local, usecase::OpenTarget(req));
    SSDLAB_RETURN_IF_ERROR(CheckProfileTarget(def.value(), options, local->info()));
    return local;
  };
  c.pass = [&](Backend& b, RunJournal& j, TestHooks*) {
    return RunProfile(b, j, 1, 0, def.value(), options, nullptr, &StopFlag(), nullptr);
  };
  c.run = [&](std::unique_ptr<Backend> opened) { return RunProfileCommand(a, std::move(opened)); };
  return usecase::RunSpread(w, c, CliConsole());
}

}  // namespace

void AddProfileCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Run a review-lab profile (cdm, atto, surface, curves, op-advisor, ...) or a profile file");
  cmd->add_option("name", a->name,
                  "Profile name (cdm, cdm-nvme, atto, as-ssd, surface, fileio, fill, op-advisor, "
                  "4k-randread, sql, ...) or a .toml profile file")
      ->required();
  AddTargetOptions(cmd, &a->targets, &a->layout, &a->chunk,
                   "File, block device, sim:PRESET[?k=v], or (fileio) a directory");
  AddStoredRunOptions(cmd, &a->db, &a->run, "Name of the run (default profile-NAME-DATE-TIME)",
                      &a->json_path, &a->progress);
  cmd->add_flag("--destructive", a->destructive,
                "Allow writing to a block device (destroys its data)");
  cmd->add_option("--confirm", a->confirm, "For a block device: its serial (or WWN), for purges");
  cmd->add_option("--temp-interval", a->temp_interval, "Temperature sampling interval (1s)");
  cmd->add_flag("--prefill", a->prefill,
                "Write the whole target once sequentially before the profile (not measured; "
                "needs --destructive on a block device)");
  cmd->add_option("--target-size", a->target_size, "Size of a target file to create");
  AddOptionDefs(cmd, ProfileOptionDefs(), a->options);
  cmd->add_option("--files", a->files, "fileio: number of files (64)");
  cmd->callback([a, exit_code] {
    if (Status s = ApplyProfileTimeScale(*a); !s.ok()) {
      *exit_code = Fail(s);
      return;
    }
    if (StartedByMpirun() && a->targets.size() == 1 && IsSimTarget(a->targets[0])) {
      *exit_code = RunSpreadProfile(*a);
      return;
    }
    *exit_code = RunProfileCommand(*a);
  });
}

}  // namespace ssdlab
