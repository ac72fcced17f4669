// `ssdlab trace stats TRACE`: what a trace does, and the nearest synthetic workload;
// `ssdlab trace capture`: a blktrace of a device, where the kernel allows it.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "base/secrets.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "trace/stats.h"
#include "trace/trace.h"
#include "usecase/trace_capture.h"
#include "usecase/trace_stats.h"
#include "workload/spec.h"

namespace ssdlab {
namespace {

struct StatsArgs {
  usecase::TraceStatsRequest q;  // the flags but --json, bound into the request
  std::string json;
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
  human << fmt::format("{} ({}): {} records over {}, mean {}, peak {} IOPS in 1 s\n", a.q.trace,
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
  if (!o.run.empty())
    human << fmt::format("stored as run '{}' in {}\n", o.run, MaskSecrets(a.q.db));
}

int Stats(StatsArgs& a) {
  a.q.outputs = {{"--json", a.json}};
  a.q.stop = &StopFlag();
  auto outcome = usecase::TraceStats(a.q);
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

int Capture(const usecase::CaptureRequest& a) {
  auto o = usecase::CaptureTrace(a);
  if (!o.ok()) return Fail(o.status());
  std::cout << "captured " << a.device << " for " << o->seconds << " s into " << o->prefix
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
  stats->add_option("TRACE", a->q.trace, "Trace file (plain, .gz or .zst)")->required();
  stats->add_option("--format", a->q.format, "Trace format: " + trace::TraceFormatNames())
      ->capture_default_str();
  stats->add_option("--event", a->q.event, "blktrace/blkparse: queue or issue events")
      ->capture_default_str();
  stats->add_option("--device-id", a->q.device_id, "Only this device/disk/volume/ASU");
  stats->add_option("--skip-bad", a->q.skip_bad, "Tolerate up to N malformed records")
      ->capture_default_str();
  stats->add_option("--burst-gap", a->q.burst_gap, "A gap above this ends a burst")
      ->capture_default_str();
  stats->add_option("--json", a->json, "Write the JSON statistics to FILE (- for stdout)");
  stats->add_option("--db", a->q.db, "Store the statistics in this results database");
  stats->add_option("--run", a->q.run, "Run name in --db (default trace-stats-YYYYMMDD-HHMMSS)");
  stats->callback([a, exit_code] { *exit_code = Stats(*a); });

  auto c = std::make_shared<usecase::CaptureRequest>();
  CLI::App* cap = cmd->add_subcommand("capture", "Capture a blktrace of a block device");
  cap->add_option("--device", c->device, "Block device")->required();
  cap->add_option("--time", c->time, "Capture time")->capture_default_str();
  cap->add_option("-o", c->out, "Output name (per-CPU files NAME.blktrace.N)")->required();
  cap->callback([c, exit_code] { *exit_code = Capture(*c); });
}

}  // namespace ssdlab
