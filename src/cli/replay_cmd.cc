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

nlohmann::json LatJson(const Histogram& h) {
  return {{"ios", h.count()},        {"mean", h.Mean()},        {"p50", h.Percentile(50)},
          {"p90", h.Percentile(90)}, {"p99", h.Percentile(99)}, {"p99_9", h.Percentile(99.9)},
          {"max", h.max()}};
}

// What a first pass over the trace tells: whether it writes, its largest request and the end
// of its highest record. Real targets get one before anything is written, so that a malformed
// trace or an out-of-range record is refused with nothing done.
struct Prescan {
  uint64_t records = 0;
  uint64_t max_bytes = 0;
  uint64_t max_end = 0;
  bool writes = false;
};

Result<Prescan> ScanTrace(const std::string& path, const trace::TraceOptions& o) {
  SSDLAB_ASSIGN_OR_RETURN(auto reader, trace::OpenTrace(path, o));
  Prescan p;
  trace::TraceRecord r;
  for (;;) {
    if (StopFlag().load())
      return Status::Error(Code::kInterrupted, "interrupted while checking the trace");
    SSDLAB_ASSIGN_OR_RETURN(bool more, reader->Next(&r));
    if (!more) break;
    ++p.records;
    p.max_bytes = std::max<uint64_t>(p.max_bytes, r.bytes);
    p.max_end = std::max(p.max_end, r.offset_bytes + r.bytes);
    p.writes |= r.dir != Direction::kRead;
  }
  return p;
}

int Replay(const ReplayArgs& a) {
  auto composed = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  if (!composed.ok()) {
    PrintError(composed.status().message());
    return kExitUsage;
  }
  const std::string target = composed.value();
  const bool sim = IsSimTarget(target);
  // The target may be written (whether the trace writes is known after a pass over it).
  PathRegistry paths = usecase::CommandPaths();
  usecase::AddTracePaths(paths, "TRACE", a.trace);
  if (Status s = usecase::AddTargetPaths(paths, "--target", target, true); !s.ok()) return Fail(s);
  usecase::AddDatabasePath(paths, "--db", a.db, true);
  paths.AddOutput("--json", a.json);
  paths.AddOutput("--lat-log", a.lat_log);
  if (Status s = paths.Check(); !s.ok()) return Fail(s);
  trace::TraceOptions topt;
  trace::ReplayOptions ropt;
  uint32_t qd = 32, jobs = 1;
  uint64_t max_bs = kMiB, lag_limit_ns = kNsPerMs, interval_ns = kNsPerS;
  Status s = Status::Ok();
  auto check = [&](Status st) {
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
  check(usecase::CountFlag("--qd", a.qd, qd));
  check(usecase::CountFlag("--jobs", a.jobs, jobs));
  check(usecase::CountFlag("--loop", a.loop, ropt.loops));
  check(usecase::BytesFlag("--max-bs", a.max_bs, max_bs));
  check(usecase::DurationFlag("--lag-limit", a.lag_limit, lag_limit_ns));
  if (auto iv = ParseIntervalNs(a.interval); iv.ok()) {
    interval_ns = iv.value();
  } else {
    check(iv.status());
  }
  if (s.ok() && max_bs > 64 * kMiB) check(Status::Invalid("--max-bs: at most 64MiB"));
  if (s.ok() && a.engine == "io_uring" && qd > kMaxUringDepth) {
    check(Status::Invalid(fmt::format("--qd {} is above io_uring's limit of {} entries per ring",
                                      qd, kMaxUringDepth)));
  }
  auto engine = ParseEngineKind(a.engine);
  if (!engine.ok()) check(engine.status());
  if (!s.ok()) {
    PrintError(s.message());
    return kExitUsage;
  }
  // A check before writing (real targets), --remap scale and --loop read the trace more than
  // once: a pipe cannot be read again.
  const bool prescan = !sim || ropt.remap == trace::Remap::kScale;
  if ((prescan || ropt.loops > 1) && !trace::CanReread(a.trace)) {
    return Fail(Status::Invalid(
        "trace " + a.trace + " is not a regular file (a pipe?) and replay " +
        (!sim             ? "on a real target reads it twice (a check before anything is written)"
         : ropt.loops > 1 ? "with --loop reads it once per pass"
                          : "with --remap scale reads it twice (its highest offset first)") +
        "; save it to a file first"));
  }
  // The trace must open (and its format be known) before anything else happens; this reader
  // serves the first pass.
  auto first = trace::OpenTrace(a.trace, topt);
  if (!first.ok()) {
    return Fail(first.status());
  }
  topt.format = (*first)->format();
  const std::vector<std::string> files = (*first)->files();
  auto held = std::make_shared<std::unique_ptr<trace::TraceReader>>(std::move(first).value());

  std::optional<Prescan> pre;
  if (prescan) {
    auto p = ScanTrace(a.trace, topt);
    if (!p.ok()) {
      return Fail(p.status());
    }
    if (p->records == 0) {
      PrintError("trace " + a.trace + " holds no I/O records" +
                 (a.device_id.empty() ? "" : " of --device-id " + a.device_id));
      return kExitUsage;
    }
    pre = p.value();
  }

  usecase::TargetRequest req;
  req.target = target;
  req.writes = sim || (pre && pre->writes);
  req.destructive = a.destructive;
  req.direct = !a.buffered;
  req.engine = engine.ok() ? engine.value() : EngineKind::kIoUring;
  if (!a.size.empty()) {
    auto size = ParseBytes(a.size);
    if (!size.ok()) {
      PrintError("--size: " + size.status().message());
      return kExitUsage;
    }
    req.size_bytes = size.value();
  }
  auto info = usecase::ProbeTarget(req);
  if (!info.ok()) {
    return Fail(info.status());
  }
  auto range = ParseRange(a.range, info->size_bytes);
  if (!range.ok()) {
    PrintError("--range: " + range.status().message());
    return kExitUsage;
  }
  const uint32_t align = std::max<uint32_t>(info->logical_block_bytes, 1);
  ropt.range_begin_bytes = range->first / align * align;
  ropt.range_end_bytes = range->second / align * align;
  ropt.align_bytes = align;
  if (ropt.range_end_bytes <= ropt.range_begin_bytes) {
    PrintError("--range " + a.range + " is empty on " + target);
    return kExitUsage;
  }
  const uint64_t span = ropt.range_end_bytes - ropt.range_begin_bytes;
  uint64_t max_io = std::min<uint64_t>(max_bs, span) / align * align;
  if (pre) max_io = std::min<uint64_t>(max_io, (pre->max_bytes + 2 * align - 1) / align * align);
  if (max_io == 0) {
    PrintError("--max-bs " + a.max_bs + " is below the target's logical block");
    return kExitUsage;
  }
  ropt.max_io_bytes = static_cast<uint32_t>(max_io);
  if (pre) ropt.trace_end_bytes = pre->max_end;
  if (pre && ropt.remap == trace::Remap::kNone && pre->max_end > span) {
    PrintError(fmt::format(
        "trace {} reaches byte {} but the target's range holds {}; use --remap modulo|scale "
        "or a larger --range (nothing was written)",
        a.trace, pre->max_end, FormatBytes(span)));
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
  if (!a.run.empty() && a.db.empty()) {
    PrintError("--run needs --db");
    return kExitUsage;
  }
  std::unique_ptr<Store> store;
  if (!a.db.empty()) {
    auto opened = Store::Open(a.db);
    if (!opened.ok()) {
      return Fail(opened.status());
    }
    store = std::move(opened.value());
  }
  auto backend = usecase::OpenTarget(req);
  if (!backend.ok()) {
    return Fail(backend.status());
  }

  const std::string path = a.trace;
  trace::TraceRequestSource source(
      [path, topt, held]() -> Result<std::unique_ptr<trace::TraceReader>> {
        if (!*held) return trace::OpenTrace(path, topt);
        // The reader opened first (the pre-scan opens its own): the first pass reads it.
        return std::move(*held);
      },
      ropt);
  if (Status st = source.Start(); !st.ok()) {
    return Fail(st);
  }
  WorkloadSpec spec;
  spec.pattern = Pattern::kRandom;
  spec.read_pct = pre && !pre->writes ? 100 : 50;
  spec.block_sizes = {BlockShare{max_io, 100}};
  spec.queue_depth = ropt.timing == trace::Timing::kAfap ? qd : qd;
  spec.jobs = sim ? 1 : jobs;
  spec.range_begin_bytes = ropt.range_begin_bytes;
  spec.range_end_bytes = ropt.range_end_bytes;
  spec.interval_ns = interval_ns;
  spec.source = &source;

  // The stored run: kind "replay", one test of one round holding the phase.
  int64_t run_id = 0, test_id = 0;
  const std::string run_name = a.run.empty() ? usecase::DefaultRunName("replay") : a.run;
  if (store) {
    nlohmann::json config = {{"trace", a.trace},
                             {"format", trace::TraceFormatName(topt.format)},
                             {"event", a.event},
                             {"device_id", a.device_id},
                             {"timing", a.timing},
                             {"remap", a.remap},
                             {"range", a.range},
                             {"loop", ropt.loops},
                             {"qd", qd},
                             {"max_io_bytes", max_io},
                             {"skip_bad", topt.skip_bad}};
    nlohmann::json context = usecase::PlatformJson();
    context["target"] = usecase::TargetJson((*backend)->info());
    auto id = store->CreateRun(run_name, "replay", config, context, (*backend)->info());
    if (!id.ok()) {
      return Fail(id.status());
    }
    run_id = id.value();
    auto t = store->BeginTest(run_id, 0, "replay", config);
    if (!t.ok()) {
      PrintError(t.status().message());
      return kExitFailed;
    }
    test_id = t.value();
  }
  RunControl control;
  control.stop = &StopFlag();
  control.io_log = lat_log.get();
  const double start = UnixTimeS();
  auto result = (*backend)->RunPhase(spec, control);
  const double end = UnixTimeS();
  source.Close();
  // A simulated drive with state= saves it at the end, once every output is written, and only
  // when the replay ended well or was interrupted: a replay that fails (a malformed trace line
  // halfway) leaves the state file as it was (EndTargetUse).
  const Status outcome = !result.ok()            ? result.status()
                         : !source.status().ok() ? source.status()
                         : result->interrupted   ? Status::Error(Code::kInterrupted, "interrupted")
                                                 : Status::Ok();
  if (store && (!result.ok() || !source.status().ok())) {
    (void)store->SetRunStatus(run_id, "failed");
  }
  if (!result.ok()) {
    return Fail(result.status());
  }
  if (Status st = source.status(); !st.ok()) {
    PrintError(st.message() + (sim ? "" : " (the replay stopped there)"));
    return ExitCodeFor(st);
  }
  PhaseResult& r = result.value();
  const trace::TraceRequestSource::Counts& c = source.counts();
  int code = kExitOk;
  if (lat_log) {
    if (Status st = lat_log->Close(); !st.ok()) {
      PrintError(st.message());
      code = kExitFailed;
    }
  }

  const bool timed = source.timed();
  const Histogram& lag = r.submit_lag;
  const bool behind =
      timed && lag.count() && lag.Percentile(99) > static_cast<double>(lag_limit_ns);
  if (behind) {
    r.notes.push_back(fmt::format(
        "the replay could not keep up with the trace: p99 submission lag {} (max {}) is above "
        "--lag-limit {}; latencies count from the scheduled times",
        FormatNs(lag.Percentile(99)), FormatNs(static_cast<double>(lag.max())),
        FormatNs(static_cast<double>(lag_limit_ns))));
  }
  if (c.split) {
    r.notes.push_back(
        fmt::format("{} records larger than --max-bs {} were split", c.split, FormatBytes(max_io)));
  }
  if (c.reordered) {
    r.notes.push_back(fmt::format(
        "{} records were earlier than their predecessor and were scheduled with it", c.reordered));
  }
  if (c.skipped)
    r.notes.push_back(fmt::format("{} malformed records skipped (--skip-bad)", c.skipped));

  nlohmann::json doc;
  doc["schema_version"] = usecase::kRunSchemaVersion;
  nlohmann::json ctx = usecase::PlatformJson();
  ctx["command_line"] = nlohmann::json::array();
  ctx["target"] = usecase::TargetJson((*backend)->info());
  ctx["device"] = nullptr;
  ctx["workload"] = usecase::WorkloadJson(spec);
  ctx["engine"] = sim ? "sim" : a.engine;
  ctx["direct"] = !a.buffered;
  ctx["seed"] = results::IdJson(spec.seed);
  ctx["start_time"] = usecase::IsoTime(start);
  ctx["end_time"] = usecase::IsoTime(end);
  doc["context"] = ctx;
  doc.update(usecase::PhaseJson(r));
  doc["health"] = nullptr;

  nlohmann::json rep;
  rep["trace"] = {{"path", a.trace},
                  {"files", files},
                  {"format", trace::TraceFormatName(source.format())},
                  {"event", topt.event == trace::BlkEvent::kIssue ? "issue" : "queue"},
                  {"device_id", a.device_id},
                  {"records", c.records},
                  {"requests", c.requests},
                  {"bytes", c.bytes},
                  {"skipped", c.skipped},
                  {"filtered", c.filtered},
                  {"split", c.split},
                  {"reordered", c.reordered},
                  {"remapped", c.remapped},
                  {"passes", c.passes},
                  {"span_ns", c.trace_span_ns}};
  rep["timing"] = {{"mode", trace::TimingName(ropt.timing)},
                   {"speedup", ropt.speedup},
                   {"qd", qd},
                   {"jobs", spec.jobs}};
  rep["remap"] = trace::RemapName(ropt.remap);
  rep["range"] = {ropt.range_begin_bytes, ropt.range_end_bytes};
  rep["loop"] = ropt.loops;
  rep["max_io_bytes"] = max_io;
  if (timed) {
    rep["lag_ns"] = {{"count", lag.count()},      {"mean", lag.Mean()}, {"p50", lag.Percentile(50)},
                     {"p99", lag.Percentile(99)}, {"max", lag.max()},   {"limit", lag_limit_ns}};
    rep["kept_up"] = !behind;
  } else {
    rep["lag_ns"] = nullptr;
    rep["kept_up"] = nullptr;
  }
  nlohmann::json cmp = nlohmann::json::object();
  Histogram rec_total;
  for (int d = 0; d < kDirections; ++d) {
    const Histogram& h = c.recorded[d];
    rec_total.Merge(h);
    if (h.count() == 0) continue;
    cmp[DirectionName(static_cast<Direction>(d))] = {{"recorded", LatJson(h)},
                                                     {"replayed", LatJson(r.dirs[d].latency)}};
  }
  if (rec_total.count()) {
    cmp["total"] = {{"recorded", LatJson(rec_total)}, {"replayed", LatJson(r.Total().latency)}};
  }
  rep["latency_compare"] = cmp.empty() ? nlohmann::json(nullptr) : cmp;
  {
    nlohmann::json total = usecase::DirectionJson(r.Total(), r.measured_ns);
    total.erase("histogram");
    rep["replayed_total"] = total;
  }
  doc["replay"] = rep;

  if (store) {
    Status st =
        store->CommitRound(test_id, 0, {StoredPhase{0, "replay", usecase::WorkloadJson(spec), r}},
                           nlohmann::json::object());
    if (st.ok()) st = store->FinishTest(test_id, nlohmann::json::object(), rep);
    if (st.ok()) {
      st = store->SetRunStatus(run_id, r.interrupted ? "interrupted" : "done");
    }
    if (!st.ok()) {
      PrintError("cannot store the replay in " + a.db + ": " + st.message());
      code = kExitFailed;
    }
  }

  std::ostream& human = a.json == "-" || a.lat_log == "-" ? std::cerr : std::cout;
  std::string lag_text =
      !timed ? "afap qd " + std::to_string(qd)
             : fmt::format("{}, lag p50 {} p99 {} max {}{}", a.timing, FormatNs(lag.Percentile(50)),
                           FormatNs(lag.Percentile(99)), FormatNs(static_cast<double>(lag.max())),
                           behind ? " (COULD NOT KEEP UP)" : "");
  human << fmt::format("replay of {} ({}, {} records) on {} ({}, {}), {}, {:.2f} s measured{}\n",
                       a.trace, trace::TraceFormatName(source.format()), c.records, target,
                       (*backend)->info().kind, FormatBytes((*backend)->info().size_bytes),
                       lag_text, static_cast<double>(r.measured_ns) / 1e9,
                       r.interrupted ? " (INTERRUPTED)" : "");
  human << SummaryTable(r);
  if (rec_total.count()) {
    const Histogram& rep_total = r.Total().latency;
    human << fmt::format("latency recorded vs replayed: p50 {} / {}, p99 {} / {}, max {} / {}\n",
                         FormatNs(rec_total.Percentile(50)), FormatNs(rep_total.Percentile(50)),
                         FormatNs(rec_total.Percentile(99)), FormatNs(rep_total.Percentile(99)),
                         FormatNs(static_cast<double>(rec_total.max())),
                         FormatNs(static_cast<double>(rep_total.max())));
  }
  for (const auto& n : r.notes) human << "note: " << n << "\n";
  if (store) human << fmt::format("stored as run '{}' in {}\n", run_name, MaskSecrets(a.db));
  if (!a.json.empty()) {
    if (Status st = WriteJsonOutput(a.json, doc); !st.ok()) {
      PrintError(st.message());
      code = kExitFailed;
    }
  }
  if (Status closed = usecase::EndTargetUse(
          **backend, code == kExitOk ? outcome : Status::Io("an output was not written"),
          CliConsole());
      !closed.ok()) {
    PrintError(closed.message());
    code = kExitFailed;
  }
  return PhaseExitCode(r, code);
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
