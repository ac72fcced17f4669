// `ssdlab replay TRACE --target T`: a block trace replayed through the Backend seam (real
// targets in wall time, simulated drives in virtual time), as a run result plus a `replay`
// object: the trace, the timing, how late submissions were, recorded against replayed latency.
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "base/clock.h"
#include "base/output_file.h"
#include "base/secrets.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/lat_log.h"
#include "cli/output.h"
#include "cli/suite_cli.h"
#include "results/ids.h"
#include "store/store.h"
#include "trace/replay_source.h"
#include "trace/trace.h"
#include "usecase/paths.h"
#include "usecase/replay.h"
#include "usecase/targets.h"
#include "workload/parse.h"

namespace ssdlab {
namespace {

struct ReplayArgs {
  std::string trace;
  std::vector<std::string> targets;
  std::string layout, chunk;
  std::string size;
  std::string format = "auto";
  std::string event = "queue";
  std::string timing = "original";
  std::string remap = "none";
  std::string range = "0%-100%";
  std::string device_id;
  std::string max_bs = "1MiB";
  std::string lag_limit = "1ms";
  std::string qd = "32";
  std::string jobs = "1";
  std::string loop = "1";
  std::string skip_bad = "0";
  std::string interval = "1s";
  std::string engine = "io_uring";
  bool buffered = false;
  bool destructive = false;
  std::string json;
  std::string lat_log;
  std::string db;
  std::string run;
};

// The replay's flags into `q` (the target composed apart); Invalid naming the first bad one.
Status ParseReplayFlags(const ReplayArgs& a, usecase::ReplayRequest& q) {
  trace::TraceOptions& topt = q.trace_options;
  trace::ReplayOptions& ropt = q.replay_options;
  Status s = Status::Ok();
  auto check = [&](const Status& st) {
    if (s.ok() && !st.ok()) s = st;
  };
  if (auto f = trace::ParseTraceFormat(a.format); f.ok()) {
    topt.format = f.value();
  } else {
    check(f.status());
  }
  if (a.event == "queue" || a.event == "Q") {
    topt.event = trace::BlkEvent::kQueue;
  } else if (a.event == "issue" || a.event == "D") {
    topt.event = trace::BlkEvent::kIssue;
  } else {
    check(Status::Invalid("--event: unknown event '" + a.event + "' (queue, issue)"));
  }
  topt.device_id = a.device_id;
  check(usecase::CountFlag("--skip-bad", a.skip_bad, topt.skip_bad, true));
  check(trace::ParseTiming(a.timing, &ropt.timing, &ropt.speedup));
  if (auto r = trace::ParseRemap(a.remap); r.ok()) {
    ropt.remap = r.value();
  } else {
    check(r.status());
  }
  check(usecase::CountFlag("--qd", a.qd, q.qd));
  check(usecase::CountFlag("--jobs", a.jobs, q.jobs));
  check(usecase::CountFlag("--loop", a.loop, ropt.loops));
  check(usecase::BytesFlag("--max-bs", a.max_bs, q.max_bs));
  check(usecase::DurationFlag("--lag-limit", a.lag_limit, q.lag_limit_ns));
  if (auto iv = ParseIntervalNs(a.interval); iv.ok()) {
    q.interval_ns = iv.value();
  } else {
    check(iv.status());
  }
  if (s.ok() && q.max_bs > 64 * kMiB) check(Status::Invalid("--max-bs: at most 64MiB"));
  if (s.ok() && a.engine == "io_uring" && q.qd > kMaxUringDepth) {
    check(Status::Invalid(fmt::format("--qd {} is above io_uring's limit of {} entries per ring",
                                      q.qd, kMaxUringDepth)));
  }
  if (auto engine = ParseEngineKind(a.engine); engine.ok()) {
    q.engine = engine.value();
  } else {
    check(engine.status());
  }
  if (!s.ok()) return s;
  if (!a.size.empty()) {
    auto size = ParseBytes(a.size);
    if (!size.ok()) return size.status().WithContext("--size");
    q.size_bytes = size.value();
  }
  return Status::Ok();
}

// The replay's lines for people: what was replayed, the summary table, recorded against
// replayed latency, the notes, where it is stored.
void PrintReplay(const ReplayArgs& a, const std::string& target, const usecase::ReplayOutcome& o,
                 std::ostream& human) {
  const PhaseResult& r = o.result;
  const Histogram& lag = r.submit_lag;
  std::string lag_text =
      !o.timed
          ? "afap qd " + a.qd
          : fmt::format("{}, lag p50 {} p99 {} max {}{}", a.timing, FormatNs(lag.Percentile(50)),
                        FormatNs(lag.Percentile(99)), FormatNs(static_cast<double>(lag.max())),
                        o.behind ? " (COULD NOT KEEP UP)" : "");
  human << fmt::format(
      "replay of {} ({}, {} records) on {} ({}, {}), {}, {:.2f} s measured{}\n", a.trace, o.format,
      o.counts.records, target, o.target.kind, FormatBytes(o.target.size_bytes), lag_text,
      static_cast<double>(r.measured_ns) / 1e9, r.interrupted ? " (INTERRUPTED)" : "");
  human << SummaryTable(r);
  if (o.recorded.count()) {
    const Histogram& rep_total = r.Total().latency;
    human << fmt::format("latency recorded vs replayed: p50 {} / {}, p99 {} / {}, max {} / {}\n",
                         FormatNs(o.recorded.Percentile(50)), FormatNs(rep_total.Percentile(50)),
                         FormatNs(o.recorded.Percentile(99)), FormatNs(rep_total.Percentile(99)),
                         FormatNs(static_cast<double>(o.recorded.max())),
                         FormatNs(static_cast<double>(rep_total.max())));
  }
  for (const auto& n : r.notes) human << "note: " << n << "\n";
  if (!o.run.empty()) human << fmt::format("stored as run '{}' in {}\n", o.run, MaskSecrets(a.db));
}

int Replay(const ReplayArgs& a) {
  usecase::ReplayRequest q;
  auto composed = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  if (!composed.ok()) return Fail(Status::Invalid(composed.status().message()));
  q.target = composed.value();
  if (Status s = ParseReplayFlags(a, q); !s.ok()) return Fail(Status::Invalid(s.message()));
  q.trace = a.trace;
  q.range = a.range;
  q.timing_text = a.timing;
  q.event_text = a.event;
  q.remap_text = a.remap;
  q.max_bs_text = a.max_bs;
  q.engine_name = a.engine;
  q.buffered = a.buffered;
  q.destructive = a.destructive;
  q.db = a.db;
  q.run = a.run;
  q.outputs = {{"--json", a.json}, {"--lat-log", a.lat_log}};
  q.stop = &StopFlag();
  q.console = &CliConsole();
  std::unique_ptr<CsvIoLog> lat_log;
  int code = kExitOk;
  q.write_outputs = [&](usecase::ReplayOutcome& o) {
    if (lat_log) {
      if (Status st = lat_log->Close(); !st.ok()) {
        PrintError(st.message());
        code = kExitFailed;
      }
    }
    if (!o.stored.ok()) {
      PrintError("cannot store the replay in " + a.db + ": " + o.stored.message());
      code = kExitFailed;
    }
    PrintReplay(a, q.target, o, a.json == "-" || a.lat_log == "-" ? std::cerr : std::cout);
    if (!a.json.empty()) {
      if (Status st = WriteJsonOutput(a.json, results::ToJson(o.doc)); !st.ok()) {
        PrintError(st.message());
        code = kExitFailed;
      }
    }
    return code == kExitOk ? Status::Ok() : Status::Io("an output was not written");
  };
  if (!a.lat_log.empty()) {
    q.open_io_log = [&]() -> Result<IoLogSink*> {
      auto l = CsvIoLog::Open(a.lat_log);
      if (!l.ok()) return Status::Invalid(l.status().message());
      lat_log = std::move(l.value());
      return lat_log.get();
    };
  }
  auto outcome = usecase::Replay(q);
  if (!outcome.ok()) return Fail(outcome.status());
  if (!outcome->closed.ok()) {
    PrintError(outcome->closed.message());
    code = kExitFailed;
  }
  return PhaseExitCode(outcome->result, code);
}

}  // namespace

void AddReplayCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Replay a block trace against a target (file, block device, simulated drive)");
  cmd->add_option("TRACE", a->trace,
                  "Trace file (plain, .gz or .zst; blktrace: NAME or NAME.blktrace.N)")
      ->required();
  AddTargetOptions(cmd, &a->targets, &a->layout, &a->chunk,
                   "File, block device, or sim:PRESET[?key=value&...]");
  cmd->add_option("--size", a->size, "Size of the target region (creates a missing file)");
  cmd->add_option("--format", a->format, "Trace format: " + trace::TraceFormatNames())
      ->capture_default_str();
  cmd->add_option("--event", a->event, "blktrace/blkparse: queue (Q) or issue (D) events")
      ->capture_default_str();
  cmd->add_option("--timing", a->timing, "original | scale:X (X times faster) | afap")
      ->capture_default_str();
  cmd->add_option("--qd", a->qd, "Most I/Os in flight (afap: the queue depth)")
      ->capture_default_str();
  cmd->add_option("--jobs", a->jobs, "Submitting threads on real targets (one source)")
      ->capture_default_str();
  cmd->add_option("--remap", a->remap, "Offsets beyond the range: none (refuse) | modulo | scale")
      ->capture_default_str();
  cmd->add_option("--range", a->range, "Active range of the target, e.g. 0%-50% or 1GiB-2GiB")
      ->capture_default_str();
  cmd->add_option("--loop", a->loop, "Passes over the trace")->capture_default_str();
  cmd->add_option("--device-id", a->device_id,
                  "Only this device/disk/volume/ASU (blktrace: MAJ,MIN; fio: file name)");
  cmd->add_option("--skip-bad", a->skip_bad, "Tolerate up to N malformed records")
      ->capture_default_str();
  cmd->add_option("--max-bs", a->max_bs, "Larger records are split into pieces of this")
      ->capture_default_str();
  cmd->add_option("--lag-limit", a->lag_limit,
                  "p99 submission lag above which the replay did not keep up")
      ->capture_default_str();
  cmd->add_option("--interval", a->interval, "Time-series interval (0 for none)")
      ->capture_default_str();
  cmd->add_option("--engine", a->engine, "io_uring|libaio|psync")->capture_default_str();
  cmd->add_flag("--buffered", a->buffered, "Use the page cache (no O_DIRECT)");
  cmd->add_flag("--destructive", a->destructive,
                "Allow writing to a block device (destroys its data)");
  cmd->add_option("--json", a->json, "Write the JSON result to FILE (- for stdout)");
  cmd->add_option("--lat-log", a->lat_log, "Write every I/O as CSV to FILE (- for stdout)");
  cmd->add_option("--db", a->db, "Store the replay in this results database");
  cmd->add_option("--run", a->run, "Run name in --db (default replay-YYYYMMDD-HHMMSS)");
  cmd->callback([a, exit_code] { *exit_code = Replay(*a); });
}

}  // namespace ssdlab
