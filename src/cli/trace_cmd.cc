// `ssdlab trace stats TRACE`: what a trace does, and the nearest synthetic workload;
// `ssdlab trace capture`: a blktrace of a device, where the kernel allows it.
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "base/output_file.h"
#include "base/secrets.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/output.h"
#include "cli/suite_cli.h"
#include "store/store.h"
#include "trace/stats.h"
#include "trace/trace.h"
#include "usecase/paths.h"

extern char** environ;

namespace ssdlab {
namespace {

struct StatsArgs {
  std::string trace;
  std::string format = "auto";
  std::string event = "queue";
  std::string device_id;
  std::string skip_bad = "0";
  std::string burst_gap = "1ms";
  std::string json;
  std::string db;
  std::string run;
};

nlohmann::json HistJson(const Histogram& h) {
  return {{"count", h.count()},      {"mean", h.Mean()},        {"min", h.min()},
          {"p50", h.Percentile(50)}, {"p90", h.Percentile(90)}, {"p99", h.Percentile(99)},
          {"max", h.max()}};
}

// The mean arrival rate in words that stay meaningful for a sparse trace: "1234 IOPS",
// "0.5 IOPS", "0.03333 IOPS (2 per minute)" below 1 IOPS, four significant digits.
std::string MeanRateText(double iops) {
  std::string text = FormatNumber(iops) + " IOPS";
  if (iops > 0 && iops < 1) text += " (" + FormatNumber(iops * 60) + " per minute)";
  return text;
}

int Stats(const StatsArgs& a) {
  PathRegistry paths = usecase::CommandPaths();
  usecase::AddTracePaths(paths, "TRACE", a.trace);
  usecase::AddDatabasePath(paths, "--db", a.db, true);
  paths.AddOutput("--json", a.json);
  if (Status s = paths.Check(); !s.ok()) return Fail(s);
  trace::TraceOptions o;
  trace::StatsOptions so;
  Status s = Status::Ok();
  if (auto f = trace::ParseTraceFormat(a.format); f.ok()) {
    o.format = f.value();
  } else {
    s = f.status();
  }
  if (a.event == "issue" || a.event == "D") {
    o.event = trace::BlkEvent::kIssue;
  } else if (a.event != "queue" && a.event != "Q" && s.ok()) {
    s = Status::Invalid("--event: unknown event '" + a.event + "' (queue, issue)");
  }
  o.device_id = a.device_id;
  if (s.ok()) s = usecase::CountFlag("--skip-bad", a.skip_bad, o.skip_bad, true);
  if (s.ok()) s = usecase::DurationFlag("--burst-gap", a.burst_gap, so.burst_gap_ns);
  if (!s.ok()) {
    PrintError(s.message());
    return kExitUsage;
  }
  if (!a.run.empty() && a.db.empty()) {
    PrintError("--run needs --db");
    return kExitUsage;
  }
  auto reader = trace::OpenTrace(a.trace, o);
  if (!reader.ok()) {
    return Fail(reader.status());
  }
  std::unique_ptr<Store> store;
  if (!a.db.empty()) {
    auto opened = Store::Open(a.db);
    if (!opened.ok()) {
      return Fail(opened.status());
    }
    store = std::move(opened.value());
  }
  trace::StatsBuilder b(so);
  trace::TraceRecord r;
  for (;;) {
    if (StopFlag().load()) {
      PrintError("interrupted");
      return kExitInterrupted;
    }
    auto more = (*reader)->Next(&r);
    if (!more.ok()) {
      return Fail(more.status());
    }
    if (!more.value()) break;
    b.Add(r);
  }
  const trace::TraceStats st = b.Finish();
  const std::string flags = trace::SuggestRunFlags(st);
  const uint64_t ios = st.records;
  const uint64_t all_bytes = st.bytes[0] + st.bytes[1] + st.bytes[2];
  auto pct = [](uint64_t x, uint64_t of) {
    return of ? 100.0 * static_cast<double>(x) / static_cast<double>(of) : 0.0;
  };

  nlohmann::json doc;
  doc["schema_version"] = 1;
  doc["trace"] = {{"path", a.trace},
                  {"files", (*reader)->files()},
                  {"format", trace::TraceFormatName((*reader)->format())},
                  {"device_id", a.device_id},
                  {"records", st.records},
                  {"skipped", (*reader)->skipped()},
                  {"filtered", (*reader)->filtered()},
                  {"ignored", (*reader)->ignored()},
                  {"devices", st.devices}};
  nlohmann::json dirs = nlohmann::json::object();
  for (int d = 0; d < kDirections; ++d) {
    dirs[DirectionName(static_cast<Direction>(d))] = {
        {"ios", st.ios[d]},
        {"bytes", st.bytes[d]},
        {"ios_pct", pct(st.ios[d], ios)},
        {"bytes_pct", pct(st.bytes[d], all_bytes)},
        {"recorded_lat_ns",
         st.recorded[d].count() ? HistJson(st.recorded[d]) : nlohmann::json(nullptr)}};
  }
  doc["directions"] = dirs;
  nlohmann::json bs = nlohmann::json::array();
  for (const auto& [bytes, n] : st.block_sizes)
    bs.push_back({{"bytes", bytes}, {"ios", n}, {"pct", pct(n, ios)}});
  doc["block_sizes"] = bs;
  doc["block_sizes_other_ios"] = st.block_sizes_other;
  doc["sequential_pct"] = pct(st.sequential, ios);
  doc["duration_ns"] = st.duration_ns;
  doc["mean_iops"] =
      st.duration_ns ? static_cast<double>(ios > 0 ? ios - 1 : 0) * 1e9 / st.duration_ns : 0.0;
  doc["interarrival_ns"] = HistJson(st.interarrival);
  doc["out_of_order"] = st.out_of_order;
  doc["bursts"] = {{"gap_ns", so.burst_gap_ns},
                   {"count", st.bursts},
                   {"mean_ios", st.burst_mean_ios},
                   {"max_ios", st.burst_max_ios}};
  doc["iops_per_s"] = HistJson(st.iops_per_s);
  doc["peak_iops_1s"] = st.peak_iops_1s;
  doc["working_set"] = {{"unit_bytes", st.unit_bytes},
                        {"units", st.working_set_units},
                        {"bytes", st.working_set_units * st.unit_bytes},
                        {"exact", st.working_set_exact},
                        {"sample_rate", 1.0 / static_cast<double>(uint64_t{1} << st.sample_level)}};
  doc["skew"] = {
      {"hottest_1pct_access_pct", st.hot_1pct},
      {"hottest_10pct_access_pct", st.hot_10pct},
      {"hottest_20pct_access_pct", st.hot_20pct},
      {"method", st.working_set_exact ? "exact per-unit counts"
                                      : "per-unit counts of a hash-sampled subset of units"}};
  doc["max_end_bytes"] = st.max_end_bytes;
  doc["suggested_run_flags"] = flags;

  int code = kExitOk;
  const std::string run_name = a.run.empty() ? usecase::DefaultRunName("trace-stats") : a.run;
  if (store) {
    // A run of kind "trace-stats": one test whose results are this document.
    nlohmann::json config = {{"trace_stats", a.trace},
                             {"format", trace::TraceFormatName((*reader)->format())},
                             {"device_id", a.device_id}};
    nlohmann::json context = usecase::PlatformJson();
    TargetInfo target;
    target.path = a.trace;
    target.kind = "trace";
    context["target"] = usecase::TargetJson(target);
    auto id = store->CreateRun(run_name, "trace-stats", config, context, target);
    if (!id.ok()) {
      return Fail(id.status());
    }
    auto t = store->BeginTest(id.value(), 0, "trace-stats", config);
    Status st = t.ok() ? store->FinishTest(t.value(), nlohmann::json::object(), doc) : t.status();
    if (st.ok()) st = store->SetRunStatus(id.value(), "done");
    if (!st.ok()) {
      PrintError("cannot store the statistics in " + a.db + ": " + st.message());
      code = kExitFailed;
    }
  }
  std::ostream& human = a.json == "-" ? std::cerr : std::cout;
  human << fmt::format("{} ({}): {} records over {}, mean {}, peak {} IOPS in 1 s\n", a.trace,
                       trace::TraceFormatName((*reader)->format()), ios,
                       FormatNs(static_cast<double>(st.duration_ns)),
                       MeanRateText(doc["mean_iops"].get<double>()), st.peak_iops_1s);
  for (int d = 0; d < kDirections; ++d) {
    if (!st.ios[d]) continue;
    human << fmt::format("  {:<5} {:>6.1f}% of I/Os  {:>6.1f}% of bytes  ({})\n",
                         DirectionName(static_cast<Direction>(d)), pct(st.ios[d], ios),
                         pct(st.bytes[d], all_bytes), FormatBytes(st.bytes[d]));
  }
  std::vector<std::pair<uint32_t, uint64_t>> top = st.block_sizes;
  std::sort(top.begin(), top.end(), [](auto& x, auto& y) { return x.second > y.second; });
  human << "  block sizes:";
  for (size_t i = 0; i < top.size() && i < 8; ++i)
    human << fmt::format(" {} {:.1f}%", FormatBytes(top[i].first), pct(top[i].second, ios));
  human << "\n";
  human << fmt::format(
      "  sequential {:.1f}%, inter-arrival p50 {} p99 {}, {} bursts (mean {:.1f} I/Os, max {})\n",
      pct(st.sequential, ios), FormatNs(st.interarrival.Percentile(50)),
      FormatNs(st.interarrival.Percentile(99)), st.bursts, st.burst_mean_ios, st.burst_max_ios);
  human << fmt::format(
      "  working set {} ({}), hottest 1/10/20% of it take {:.1f}/{:.1f}/{:.1f}% of accesses\n",
      FormatBytes(st.working_set_units * st.unit_bytes),
      st.working_set_exact ? "exact" : "estimated", st.hot_1pct, st.hot_10pct, st.hot_20pct);
  human << "  nearest run: ssdlab run " << flags << "\n";
  if ((*reader)->skipped())
    human << "note: " << (*reader)->skipped() << " malformed records skipped\n";
  if (store) human << fmt::format("stored as run '{}' in {}\n", run_name, MaskSecrets(a.db));
  if (!a.json.empty()) {
    if (Status w = WriteJsonOutput(a.json, doc); !w.ok()) {
      PrintError(w.message());
      return kExitFailed;
    }
  }
  return code;
}

struct CaptureArgs {
  std::string device;
  std::string time = "60s";
  std::string out;
};

// blktrace -d DEV -w SECONDS -D DIR -o NAME: per-CPU files DIR/NAME.blktrace.N.
int Capture(const CaptureArgs& a) {
  namespace fs = std::filesystem;
  uint64_t ns = 0;
  if (Status s = usecase::DurationFlag("--time", a.time, ns); !s.ok() || ns < kNsPerS) {
    PrintError(s.ok() ? "--time: at least 1s" : s.message());
    return kExitUsage;
  }
  struct stat st;
  if (stat(a.device.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) {
    PrintError("--device " + a.device + " is not a block device");
    return kExitUsage;
  }
  fs::path out(a.out);
  fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!fs::is_directory(dir)) {
    PrintError("-o: directory " + dir.string() + " does not exist");
    return kExitUsage;
  }
  if (!fs::exists("/sys/kernel/debug/block")) {
    PrintError(
        "blktrace needs debugfs: /sys/kernel/debug/block is missing (mount -t debugfs none "
        "/sys/kernel/debug, as root, on a kernel with CONFIG_BLK_DEV_IO_TRACE)");
    return kExitUsage;
  }
  std::string secs = std::to_string((ns + kNsPerS - 1) / kNsPerS);
  std::string name = out.filename().string();
  std::string d = dir.string();
  std::vector<std::string> args = {"blktrace", "-d", a.device, "-w", secs, "-D", d, "-o", name};
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, "blktrace", nullptr, nullptr, argv.data(), environ) != 0) {
    PrintError("blktrace is not installed (apt-get install blktrace)");
    return kExitUsage;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    PrintError("blktrace failed on " + a.device + " (exit " +
               std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
               "); its messages are above");
    return kExitFailed;
  }
  std::cout << "captured " << a.device << " for " << secs << " s into " << (dir / name).string()
            << ".blktrace.*\n";
  return kExitOk;
}

}  // namespace

void AddTraceCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("trace", "Block traces: statistics, capture");
  cmd->require_subcommand(1);
  auto a = std::make_shared<StatsArgs>();
  CLI::App* stats =
      cmd->add_subcommand("stats", "What a trace does, and the nearest `ssdlab run` workload");
  stats->add_option("TRACE", a->trace, "Trace file (plain, .gz or .zst)")->required();
  stats->add_option("--format", a->format, "Trace format: " + trace::TraceFormatNames())
      ->capture_default_str();
  stats->add_option("--event", a->event, "blktrace/blkparse: queue or issue events")
      ->capture_default_str();
  stats->add_option("--device-id", a->device_id, "Only this device/disk/volume/ASU");
  stats->add_option("--skip-bad", a->skip_bad, "Tolerate up to N malformed records")
      ->capture_default_str();
  stats->add_option("--burst-gap", a->burst_gap, "A gap above this ends a burst")
      ->capture_default_str();
  stats->add_option("--json", a->json, "Write the JSON statistics to FILE (- for stdout)");
  stats->add_option("--db", a->db, "Store the statistics in this results database");
  stats->add_option("--run", a->run, "Run name in --db (default trace-stats-YYYYMMDD-HHMMSS)");
  stats->callback([a, exit_code] { *exit_code = Stats(*a); });

  auto c = std::make_shared<CaptureArgs>();
  CLI::App* cap = cmd->add_subcommand("capture", "Capture a blktrace of a block device");
  cap->add_option("--device", c->device, "Block device")->required();
  cap->add_option("--time", c->time, "Capture time")->capture_default_str();
  cap->add_option("-o", c->out, "Output name (per-CPU files NAME.blktrace.N)")->required();
  cap->callback([c, exit_code] { *exit_code = Capture(*c); });
}

}  // namespace ssdlab
