// `ssdlab app NAME --dir DIR --db results.db`: application tests on real database servers
// (apps/app.h), stored in the results database as a run of kind "app" with one test.
// `--target sim:PRESET` runs them on a served simulated drive (serve/served_fs.h) instead.
#include <fmt/format.h>

#include <iostream>

#include "apps/app.h"
#include "cli/commands.h"
#include "cli/suite_cli.h"
#include "usecase/app.h"
#include "usecase/options.h"

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
  return o;
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

int RunAppCommand(const AppArgs& a) {
  auto options = Resolve(a);
  if (!options.ok()) return Fail(options.status());
  auto out = usecase::RunAppTest({.options = *options,
                                  .target = a.target,
                                  .any_dir = a.any_dir,
                                  .db = a.db,
                                  .run = a.run,
                                  .json_path = a.json_path,
                                  .stop = &StopFlag(),
                                  .progress = ProgressPrinter(a.progress),
                                  .console = &CliConsole()});
  if (!out.ok()) return Fail(out.status());
  for (const std::string& e : out->errors) PrintError(e);
  Status st = PrintStoredRun(out->run, a.db, out->status, out->doc, a.json_path, [&](const json&) {
    PrintSummary(out->results, a.json_path == "-" ? std::cerr : std::cout);
  });
  if (!st.ok()) {
    PrintError(st.code() == Code::kInterrupted
                   ? "interrupted; what was measured is stored in run " + out->run
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
