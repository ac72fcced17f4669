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
#include "cli/device_backend.h"
#include "cli/lat_log.h"
#include "cli/output.h"
#include "cli/targets.h"
#include "device/device_json.h"
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
  bool buffered = false;
  bool destructive = false;
  bool prefill = false;
  std::string json;
  std::string lat_log;
  std::string temp_interval = "1s";
  std::vector<std::string> argv;
};

bool RwWrites(const std::string& rw) { return rw != "read" && rw != "randread"; }

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

int Run(RunArgs a) {
  auto target = ComposeTarget(a.targets, a.layout, a.chunk);
  if (!target.ok()) {
    PrintError(target.status().message());
    return kExitUsage;
  }
  a.target = target.value();
  if (Status s = CheckOutputPaths({{"--json", a.json}, {"--lat-log", a.lat_log}},
                                  {{"--target", IsSimTarget(a.target) ? "" : a.target}});
      !s.ok()) {
    PrintError(s.message());
    return ExitCodeFor(s);
  }
  TargetRequest req;
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
    PrintError(engine.status().message());
    return kExitUsage;
  }
  req.engine = engine.value();
  // Syntax first, so that a typo never creates or touches the target.
  if (auto s = ResolveWorkload(a.w, uint64_t{1} << 50, 1); !s.ok()) {
    PrintError(s.status().message());
    return kExitUsage;
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
  auto info = ProbeTarget(req);
  if (!info.ok()) {
    PrintError(info.status().message());
    return ExitCodeFor(info.status());
  }
  auto spec = ResolveWorkload(a.w, info->size_bytes, info->logical_block_bytes);
  if (!spec.ok()) {
    PrintError(spec.status().message());
    return kExitUsage;
  }
  std::unique_ptr<CsvIoLog> lat_log;
  if (!a.lat_log.empty()) {
    auto l = CsvIoLog::Open(a.lat_log);
    if (!l.ok()) {
      PrintError(l.status().message());
      return kExitUsage;
    }
    lat_log = std::move(l.value());
  }
  auto temp_interval = ParseDurationNs(a.temp_interval);
  if (!temp_interval.ok()) {
    PrintError("--temp-interval: " + temp_interval.status().message());
    return kExitUsage;
  }
  auto backend = OpenTarget(req);
  if (!backend.ok()) {
    PrintError(backend.status().message());
    return ExitCodeFor(backend.status());
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
  if (std::string n = SimStateNote(**backend); !n.empty()) prefill_notes.push_back(n);
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
      if (Status cs = (*backend)->Close(); !cs.ok()) PrintError(cs.message());
      return ExitCodeFor(fs);
    }
    prefill_notes.push_back("--prefill wrote the range once sequentially (" +
                            FormatBytes(fill.io_bytes) + ", not measured)");
  }
  double start = UnixTimeS();
  auto result = (*backend)->RunPhase(spec.value(), control);
  if (result.ok())
    result->notes.insert(result->notes.begin(), prefill_notes.begin(), prefill_notes.end());
  double end = UnixTimeS();
  nlohmann::json health_json = health.Stop();
  if (tty && spec->interval_ns) std::cerr << "\r\x1b[K" << std::flush;
  // The command is done with the target: a simulated drive with state= saves it (also after
  // Ctrl-C, which ends the phase cleanly).
  Status closed = (*backend)->Close();
  if (!result.ok()) {
    PrintError(result.status().message());
    if (!closed.ok()) PrintError(closed.message());
    return ExitCodeFor(result.status());
  }
  const PhaseResult& r = result.value();

  int code = kExitOk;
  if (!closed.ok()) {
    PrintError(closed.message());
    code = kExitFailed;
  }
  if (lat_log) {
    if (Status s = lat_log->Close(); !s.ok()) {
      PrintError(s.message());
      code = kExitFailed;
    }
  }
  nlohmann::json doc;
  doc["schema_version"] = kRunSchemaVersion;
  nlohmann::json ctx = PlatformJson();
  ctx["command_line"] = a.argv;
  ctx["target"] = TargetJson((*backend)->info());
  ctx["device"] = identity ? IdentityJson(*identity) : nlohmann::json(nullptr);
  ctx["workload"] = WorkloadJson(spec.value());
  ctx["engine"] = IsSimTarget(a.target) ? "sim" : a.engine;
  ctx["direct"] = !a.buffered;
  ctx["seed"] = spec->seed;
  ctx["start_time"] = IsoTime(start);
  ctx["end_time"] = IsoTime(end);
  doc["context"] = ctx;
  doc.update(PhaseJson(r));
  doc["health"] = health_json;

  std::ostream& human = a.json == "-" || a.lat_log == "-" ? std::cerr : std::cout;
  human << fmt::format(
      "{} on {} ({}, {}), {}, {:.2f} s measured{}\n", DescribeWorkload(spec.value()), a.target,
      (*backend)->info().kind, FormatBytes((*backend)->info().size_bytes),
      IsSimTarget(a.target) ? "sim" : a.engine, static_cast<double>(r.measured_ns) / 1e9,
      r.interrupted ? " (INTERRUPTED)" : "");
  human << SummaryTable(r);
  for (const auto& n : r.notes) human << "note: " << n << "\n";
  const nlohmann::json& temp = health_json["temperature"];
  if (health_json["source"] == "simulated") {
    human << "temperature: simulated drive (the model has none; reported as 0 C)\n";
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
  if (r.io_errors) {
    PrintError(fmt::format("{} I/O errors; first: {}", r.io_errors,
                           r.errors.empty() ? "" : r.errors.front()));
    code = kExitFindings;
  }
  if (r.verify_failures) {
    const VerifyRecord& v = r.verify_records.front();
    PrintError(fmt::format("verify: {} blocks failed; first at offset {}: {}", r.verify_failures,
                           v.offset, v.problem));
    code = kExitFindings;
  }
  if (r.interrupted) {
    PrintError("interrupted; results measured so far were kept");
    code = kExitInterrupted;
  }
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
  cmd->callback([a, exit_code, &app] {
    a->argv.clear();
    *exit_code = Run(*a);
  });
}

}  // namespace ssdlab
