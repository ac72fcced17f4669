// `ssdlab app NAME --dir DIR --db results.db`: application tests on real database servers
// (apps/app.h), stored in the results database as a run of kind "app" with one test.
// `--target sim:PRESET` runs them on a served simulated drive (serve/served_fs.h) instead.
#include <fmt/format.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "apps/app.h"
#include "base/output_file.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/output.h"
#include "cli/suite_cli.h"
#include "device/device_json.h"
#include "serve/served_fs.h"
#include "store/store.h"
#include "suite/pts.h"
#include "usecase/paths.h"

namespace ssdlab {
namespace {

using nlohmann::json;

struct AppArgs {
  std::string name, dir, target, db, run, json_path, progress = "auto";
  std::string threads, time, warmup, tables, rows, scale, buffer, port, interval = "1s";
  std::string server_bin;
  bool any_dir = false, keep_data = false;
};

Result<AppOptions> Resolve(const AppArgs& a) {
  AppOptions o;
  o.name = a.name;
  o.dir = a.dir;
  o.server_bin = a.server_bin;
  o.keep_data = a.keep_data;
  SSDLAB_RETURN_IF_ERROR(usecase::CountFlag("--threads", a.threads, o.threads));
  SSDLAB_RETURN_IF_ERROR(usecase::DurationFlag("--time", a.time, o.time_ns));
  SSDLAB_RETURN_IF_ERROR(usecase::DurationFlag("--warmup", a.warmup, o.warmup_ns));
  SSDLAB_RETURN_IF_ERROR(usecase::CountFlag("--tables", a.tables, o.tables));
  SSDLAB_RETURN_IF_ERROR(usecase::CountFlag("--rows", a.rows, o.table_rows));
  SSDLAB_RETURN_IF_ERROR(usecase::CountFlag("--scale", a.scale, o.scale));
  SSDLAB_RETURN_IF_ERROR(usecase::CountFlag("--port", a.port, o.port));
  SSDLAB_RETURN_IF_ERROR(usecase::DurationFlag("--interval", a.interval, o.sample_interval_ns));
  SSDLAB_RETURN_IF_ERROR(usecase::BytesFlag("--buffer", a.buffer, o.buffer_bytes));
  if (a.progress != "auto" && a.progress != "json" && a.progress != "none")
    return Status::Invalid("--progress must be auto, json or none");
  if (a.dir.empty() == a.target.empty())
    return Status::Invalid("app: give either --dir DIR or --target sim:PRESET");
  if (!a.target.empty() && a.target.rfind("sim:", 0) != 0)
    return Status::Invalid("--target serves a simulated drive, sim:PRESET[?...], not " + a.target +
                           " (a real drive: --dir on its filesystem)");
  AppOptions check = o;
  if (!a.target.empty()) check.dir = "/";  // the served filesystem's, made later
  SSDLAB_RETURN_IF_ERROR(ValidateAppOptions(check));
  return o;
}

TargetInfo DirectoryTarget(const DeviceIdentity& id) {
  TargetInfo t;
  t.path = id.path;
  t.kind = "directory";
  struct statvfs v;
  if (statvfs(id.path.c_str(), &v) == 0)
    t.size_bytes = static_cast<uint64_t>(v.f_blocks) * v.f_frsize;
  if (id.disk) {
    t.model = id.disk->model;
    t.serial = id.disk->serial;
    t.firmware = id.disk->firmware;
    t.details.emplace_back("device", id.disk->dev_path);
  }
  t.details.emplace_back("filesystem", id.filesystem);
  t.details.emplace_back("mount_point", id.mount_point);
  return t;
}

void PrintSummary(const results::AppResults& r, std::ostream& out) {
  const results::AppLatencyMs& l = r.latency_ms;
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; };
  out << fmt::format("{}: {:.1f} TPS{}, latency mean {} ms, p95 {} ms, p99 {} ms, max {} ms\n",
                     r.app, r.tps, r.qps > 0 ? fmt::format(", {:.1f} QPS", r.qps) : "", num(l.mean),
                     num(l.p95), num(l.p99), num(l.max));
  if (r.device) {
    const results::DeviceSummary& d = r.device->summary;
    out << fmt::format(
        "device: {:.0f} read + {:.0f} write IOPS, {:.1f} + {:.1f} MB/s, service {:.2f} / {:.2f} "
        "ms, {:.0f}% busy\n",
        d.read_iops, d.write_iops, d.read_mb_s, d.write_mb_s, d.read_lat_ms, d.write_lat_ms,
        d.util_pct);
  }
  if (r.simulated_drive) {
    const results::AppSimulatedDrive& s = *r.simulated_drive;
    out << fmt::format(
        "simulated drive {} over the test: host writes {} pages, NAND writes {} pages, WA {:.3f}, "
        "GC copies {}, erases {} (4 KiB pages); {}\n",
        s.target, s.host_pages_written, s.nand_pages_written, s.write_amplification,
        s.gc_page_copies, s.erases,
        s.paced ? fmt::format("paced ({:.2f}% late)", 100 * s.late_share)
                : fmt::format("NOT PACED: {:.2f}% of the serve's requests answered late, or the "
                              "transport did not keep up with the model: the latencies the app "
                              "saw are partly the host's",
                              100 * s.late_share));
  }
}

// The simulated drive's part of the results: the counters' difference over the test and the
// serve's pacing.
results::AppSimulatedDrive SimulatedDriveOf(const serve::ServedFsReport& r) {
  results::AppSimulatedDrive d;
  d.target = r.serve.target;
  d.capacity_bytes = r.serve.capacity_bytes;
  d.host_pages_written = r.after.host_pages_written - r.before.host_pages_written;
  d.nand_pages_written = r.after.nand_pages_written - r.before.nand_pages_written;
  d.write_amplification = d.host_pages_written ? static_cast<double>(d.nand_pages_written) /
                                                     static_cast<double>(d.host_pages_written)
                                               : 0.0;
  d.gc_page_copies = r.after.gc_page_copies - r.before.gc_page_copies;
  d.erases = r.after.erases - r.before.erases;
  d.host_read_pages = r.after.host_read_pages - r.before.host_read_pages;
  d.nand_page_reads = r.after.nand_page_reads - r.before.nand_page_reads;
  d.paced = r.serve.paced();  // replies on time, and a transport that kept up
  d.late_share = r.serve.pacer.late_share();
  d.transport_round_trip_ns = r.serve.transport_ns;
  return d;
}

// The app on a served simulated drive: its filesystem made, mounted, used and undone
// (serve/served_fs.h); the drive's figures into `res`.
AppOutcome RunOnServedDrive(AppOptions o, const std::string& target, const AppProgress& progress,
                            std::optional<results::AppSimulatedDrive>* drive,
                            std::vector<std::string>* warnings) {
  AppOutcome outcome;
  serve::ServedFsOptions so;
  so.target = target;
  so.stop = &StopFlag();
  so.progress = progress;
  auto served = serve::WithServedFilesystem(so, [&](const std::string& mnt) {
    o.dir = mnt;
    auto id = IdentifyDirectory(mnt);
    DeviceIdentity none;
    none.path = mnt;
    outcome = RunApp(o, id.ok() ? *id : none, &StopFlag(), progress);
  });
  if (!served.ok()) {
    if (outcome.status.ok()) outcome.status = served.status();
    return outcome;
  }
  *drive = SimulatedDriveOf(*served);
  *warnings = served->warnings;
  return outcome;
}

// What is checked before anything starts: the options, then with --dir the directory (and the
// drive under it), with --target the programs (missing ones: exit 3, the host cannot proceed).
// The directory's identity (--dir only) into `identity`.
Status CheckBeforeStart(const AppArgs& a, const AppOptions& o, DeviceIdentity* identity) {
  if (!a.target.empty()) {
    SSDLAB_RETURN_IF_ERROR(serve::CheckServedFsTools());
    Status s = CheckAppPrograms(o);
    return s.ok() || s.code() != Code::kUnsupported ? s : Status::Io(s.message());
  }
  SSDLAB_RETURN_IF_ERROR(CheckApp(o));
  SSDLAB_ASSIGN_OR_RETURN(*identity, IdentifyDirectory(a.dir));
  if (!identity->disk && !a.any_dir) {
    return Status::Invalid("cannot tell which drive holds " + a.dir + " (" + identity->disk_note +
                           "); give a directory on the drive under test, or --any-dir to run "
                           "anyway");
  }
  return Status::Ok();
}

// The stored run's target: the directory's drive, or the simulated drive served.
TargetInfo StoredTarget(const AppArgs& a, const DeviceIdentity& identity) {
  if (a.target.empty()) return DirectoryTarget(identity);
  TargetInfo t;
  t.path = a.target;
  t.kind = "sim";
  t.details.emplace_back("served", "FUSE and a loop device, ext4 (docs/serve.md)");
  return t;
}

json ConfigJson(const AppArgs& a, const AppOptions& o) {
  return {{"app", a.name},
          {"dir", a.dir},
          {"target", a.target},
          {"threads", o.threads},
          {"time_s", o.time_ns / 1'000'000'000},
          {"warmup_s", o.warmup_ns / 1'000'000'000},
          {"tables", o.tables},
          {"table_rows", o.table_rows},
          {"scale", o.scale},
          {"buffer_bytes", o.buffer_bytes},
          {"port", o.port},
          {"any_dir", a.any_dir},
          {"keep_data", a.keep_data}};
}

AppProgress ProgressPrinter(const std::string& mode) {
  if (mode == "none") return {};
  const bool json_lines = mode == "json";
  return [json_lines](const std::string& line) {
    if (json_lines) {
      std::cerr << json{{"stage", "app"}, {"event", "app"}, {"message", line}}.dump(
                       -1, ' ', false, json::error_handler_t::replace)
                << "\n";
    } else {
      std::cerr << "  " << line << "\n";
    }
  };
}

int RunAppCommand(AppArgs a) {
  auto options = Resolve(a);
  if (!options.ok()) return Fail(options.status());
  DeviceIdentity identity;
  if (Status s = CheckBeforeStart(a, *options, &identity); !s.ok()) return Fail(s);
  PathRegistry paths = usecase::CommandPaths();
  usecase::AddDatabasePath(paths, "--db", a.db, true);
  paths.AddOutput("--json", a.json_path);
  if (Status s = paths.Check(); !s.ok()) return Fail(s);
  auto store = Store::Open(a.db);
  if (!store.ok()) return Fail(store.status());
  if (a.run.empty()) a.run = usecase::DefaultRunName("app-" + a.name);
  const TargetInfo target = StoredTarget(a, identity);
  const json config = ConfigJson(a, *options);
  json context = usecase::PlatformJson();
  context["target"] = usecase::TargetJson(target);
  context["device"] = a.target.empty() ? IdentityJson(identity) : json(nullptr);
  auto run_id = (*store)->CreateRun(a.run, "app", config, context, target);
  if (!run_id.ok()) return Fail(run_id.status());
  auto test_id = (*store)->BeginTest(run_id.value(), 0, a.name, config);
  if (!test_id.ok()) return Fail(test_id.status());
  std::cerr << fmt::format("ssdlab app: run '{}', {} {}\n", a.run, a.name,
                           a.target.empty()
                               ? fmt::format("in {} ({})", a.dir, DescribeTarget(identity))
                               : "on a served " + a.target);
  const AppProgress progress = ProgressPrinter(a.progress);
  std::optional<results::AppSimulatedDrive> drive;
  std::vector<std::string> warnings;
  AppOutcome outcome = a.target.empty()
                           ? RunApp(*options, identity, &StopFlag(), progress)
                           : RunOnServedDrive(*options, a.target, progress, &drive, &warnings);
  Status st = outcome.status;
  results::AppResults res = AppResultsOf(outcome, a.name);
  res.simulated_drive = drive;
  if (Status s = (*store)->FinishTest(test_id.value(), nullptr, ToJson(res)); !s.ok())
    PrintError("cannot store the results: " + s.message());
  for (const std::string& w : warnings) PrintError("warning: " + w);
  st = FinishStoredRun(**store, run_id.value(), a.run, a.db, st, a.json_path, [&](const json&) {
    PrintSummary(res, a.json_path == "-" ? std::cerr : std::cout);
  });
  if (!st.ok()) {
    PrintError(st.code() == Code::kInterrupted
                   ? "interrupted; what was measured is stored in run " + a.run
                   : st.message());
    return ExitCodeFor(st);
  }
  return kExitOk;
}

}  // namespace

void AddAppCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<AppArgs>();
  std::string names;
  for (const auto& [n, d] : AppNames()) names += (names.empty() ? "" : "; ") + n + ": " + d;
  CLI::App* cmd = app.add_subcommand(
      "app", "Application test on a real database server whose data lives on the drive under test");
  cmd->add_option("name", a->name, names)->required();
  cmd->add_option("--dir", a->dir, "Directory on a filesystem of the drive under test");
  cmd->add_option("--target", a->target,
                  "Instead of --dir: serve this simulated drive (sim:PRESET[?...&state=FILE]), "
                  "make ext4 on it and run there; the drive's counters are stored too "
                  "(docs/serve.md)");
  AddStoredRunOptions(cmd, &a->db, &a->run, "Name of the run (default app-NAME-DATE-TIME)",
                      &a->json_path, &a->progress);
  cmd->add_flag("--any-dir", a->any_dir,
                "Run even when the directory cannot be attributed to a block device (tmpfs, "
                "overlay): no device-side figures then");
  cmd->add_option("--threads", a->threads, "sysbench threads / pgbench clients (32)");
  cmd->add_option("--time", a->time, "Measured time (120s)");
  cmd->add_option("--warmup", a->warmup,
                  "Unmeasured run of the same load before it (30s; 0: none)");
  cmd->add_option("--tables", a->tables, "sysbench-oltp: tables (16)");
  cmd->add_option("--rows", a->rows, "sysbench-oltp: rows per table (100000)");
  cmd->add_option("--scale", a->scale, "pgbench: scale factor, ~16 MB each (50)");
  cmd->add_option("--buffer", a->buffer,
                  "innodb_buffer_pool_size / shared_buffers, smaller than the data (128MiB)");
  cmd->add_option("--port", a->port, "Loopback TCP port for the server (default: a free one)");
  cmd->add_option("--server-bin", a->server_bin,
                  "Server program (default: mariadbd, /usr/lib/postgresql/N/bin/postgres)");
  cmd->add_flag("--keep-data", a->keep_data, "Keep the server's data directory afterwards");
  cmd->add_option("--interval", a->interval, "Device sampling interval (1s)");
  cmd->callback([a, exit_code] {
    if (a->progress == "json") UseJsonLinesOnStderr();
    *exit_code = RunAppCommand(*a);
  });
}

}  // namespace ssdlab
