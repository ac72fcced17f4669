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
#include "usecase/trace_stats.h"

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

// The mean arrival rate in words that stay meaningful for a sparse trace: "1234 IOPS",
// "0.5 IOPS", "0.03333 IOPS (2 per minute)" below 1 IOPS, four significant digits.
std::string MeanRateText(double iops) {
  std::string text = FormatNumber(iops) + " IOPS";
  if (iops > 0 && iops < 1) text += " (" + FormatNumber(iops * 60) + " per minute)";
  return text;
}

// The statistics in words (on stderr when the JSON goes to stdout).
void PrintStats(const StatsArgs& a, const usecase::TraceStatsOutcome& o) {
  const trace::TraceStats& st = o.stats;
  const std::string& flags = o.suggested_flags;
  const uint64_t ios = st.records;
  const uint64_t all_bytes = st.bytes[0] + st.bytes[1] + st.bytes[2];
  auto pct = [](uint64_t x, uint64_t of) {
    return of ? 100.0 * static_cast<double>(x) / static_cast<double>(of) : 0.0;
  };
  std::ostream& human = a.json == "-" ? std::cerr : std::cout;
  human << fmt::format("{} ({}): {} records over {}, mean {}, peak {} IOPS in 1 s\n", a.trace,
                       o.format, ios, FormatNs(static_cast<double>(st.duration_ns)),
                       MeanRateText(o.doc["mean_iops"].get<double>()), st.peak_iops_1s);
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
  if (o.skipped) human << "note: " << o.skipped << " malformed records skipped\n";
  if (!o.run.empty()) human << fmt::format("stored as run '{}' in {}\n", o.run, MaskSecrets(a.db));
}

int Stats(const StatsArgs& a) {
  usecase::TraceStatsRequest q;
  q.trace = a.trace;
  q.format = a.format;
  q.event = a.event;
  q.device_id = a.device_id;
  q.skip_bad = a.skip_bad;
  q.burst_gap = a.burst_gap;
  q.db = a.db;
  q.run = a.run;
  q.outputs = {{"--json", a.json}};
  q.stop = &StopFlag();
  auto outcome = usecase::TraceStats(q);
  if (!outcome.ok()) return Fail(outcome.status());
  int code = kExitOk;
  if (!outcome->stored.ok()) {
    PrintError(outcome->stored.message());
    code = kExitFailed;
  }
  PrintStats(a, *outcome);
  if (!a.json.empty()) {
    if (Status w = WriteJsonOutput(a.json, outcome->doc); !w.ok()) {
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
  argv.reserve(args.size() + 1);
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
