#include "usecase/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "base/clock.h"
#include "base/units.h"
#include "results/ids.h"
#include "sim/sim.h"
#include "store/store.h"
#include "usecase/documents.h"
#include "usecase/paths.h"
#include "usecase/stored_run.h"
#include "usecase/targets.h"
#include "workload/parse.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

results::ReplayInfo::Latency LatencyOf(const Histogram& h) {
  return {.ios = h.count(),
          .mean = h.Mean(),
          .p50 = h.Percentile(50),
          .p90 = h.Percentile(90),
          .p99 = h.Percentile(99),
          .p99_9 = h.Percentile(99.9),
          .max = h.max()};
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

Result<Prescan> ScanTrace(const std::string& path, const trace::TraceOptions& o,
                          const std::atomic<bool>* stop) {
  SSDLAB_ASSIGN_OR_RETURN(auto reader, trace::OpenTrace(path, o));
  Prescan p;
  trace::TraceRecord r;
  for (;;) {
    if (stop && stop->load())
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

// The trace's files, the target's and the database, and the outputs: checked before anything.
Status CheckReplayPaths(const ReplayRequest& q) {
  PathRegistry paths = CommandPaths();
  AddTracePaths(paths, "TRACE", q.trace);
  SSDLAB_RETURN_IF_ERROR(AddTargetPaths(paths, "--target", q.target, true));
  AddDatabasePath(paths, "--db", q.db, true);
  for (const auto& [what, path] : q.outputs) paths.AddOutput(what, path);
  return paths.Check();
}

// The replay's range, alignment and largest request on the target `info` (`pre`: the trace's
// first pass, when it had one), into `ropt`; Invalid naming the flag when they leave nothing.
Status FitToTarget(const ReplayRequest& q, const TargetInfo& info,
                   const std::optional<Prescan>& pre, trace::ReplayOptions& ropt) {
  auto range = ParseRange(q.range, info.size_bytes);
  if (!range.ok()) return range.status().WithContext("--range");
  const uint32_t align = std::max<uint32_t>(info.logical_block_bytes, 1);
  ropt.range_begin_bytes = range->first / align * align;
  ropt.range_end_bytes = range->second / align * align;
  ropt.align_bytes = align;
  if (ropt.range_end_bytes <= ropt.range_begin_bytes)
    return Status::Invalid("--range " + q.range + " is empty on " + q.target);
  const uint64_t span = ropt.range_end_bytes - ropt.range_begin_bytes;
  uint64_t max_io = std::min<uint64_t>(q.max_bs, span) / align * align;
  if (pre) max_io = std::min<uint64_t>(max_io, (pre->max_bytes + 2 * align - 1) / align * align);
  if (max_io == 0)
    return Status::Invalid("--max-bs " + q.max_bs_text + " is below the target's logical block");
  ropt.max_io_bytes = static_cast<uint32_t>(max_io);
  if (pre) ropt.trace_end_bytes = pre->max_end;
  if (pre && ropt.remap == trace::Remap::kNone && pre->max_end > span)
    return Status::Invalid(fmt::format(
        "trace {} reaches byte {} but the target's range holds {}; use --remap modulo|scale "
        "or a larger --range (nothing was written)",
        q.trace, pre->max_end, FormatBytes(span)));
  return Status::Ok();
}

// The stored run's configuration: what was replayed and how.
json ReplayConfig(const ReplayRequest& q, const trace::TraceOptions& topt,
                  const trace::ReplayOptions& ropt) {
  return {{"trace", q.trace},
          {"format", trace::TraceFormatName(topt.format)},
          {"event", q.event_text},
          {"device_id", topt.device_id},
          {"timing", q.timing_text},
          {"remap", q.remap_text},
          {"range", q.range},
          {"loop", ropt.loops},
          {"qd", q.qd},
          {"max_io_bytes", ropt.max_io_bytes},
          {"skip_bad", topt.skip_bad}};
}

// The notes of a replay: not kept up, split, reordered, skipped records.
void AddReplayNotes(const ReplayRequest& q, ReplayOutcome& o) {
  const Histogram& lag = o.result.submit_lag;
  const auto& c = o.counts;
  std::vector<std::string>& notes = o.result.notes;
  if (o.behind)
    notes.push_back(fmt::format(
        "the replay could not keep up with the trace: p99 submission lag {} (max {}) is above "
        "--lag-limit {}; latencies count from the scheduled times",
        FormatNs(lag.Percentile(99)), FormatNs(static_cast<double>(lag.max())),
        FormatNs(static_cast<double>(q.lag_limit_ns))));
  if (c.split)
    notes.push_back(fmt::format("{} records larger than --max-bs {} were split", c.split,
                                FormatBytes(o.max_io_bytes)));
  if (c.reordered)
    notes.push_back(fmt::format(
        "{} records were earlier than their predecessor and were scheduled with it", c.reordered));
  if (c.skipped)
    notes.push_back(fmt::format("{} malformed records skipped (--skip-bad)", c.skipped));
}

// A timed replay's submission lag over time, one point per interval of the phase's series:
// [{t_begin_ns, t_end_ns, ios, lag_mean_ns, lag_max_ns}] over the I/Os (all directions) that
// completed in the interval (IntervalSample::Dir::lag_sum_ns, lag_max_ns).
std::vector<results::ReplayInfo::LagPoint> LagSeries(const PhaseResult& r) {
  std::vector<results::ReplayInfo::LagPoint> out;
  for (const IntervalSample& s : r.intervals) {
    uint64_t ios = 0, sum = 0, max = 0;
    for (const auto& d : s.dirs) {
      ios += d.ios;
      sum += d.lag_sum_ns;
      max = std::max(max, d.lag_max_ns);
    }
    out.push_back({.t_begin_ns = s.t_begin_ns,
                   .t_end_ns = s.t_end_ns,
                   .ios = ios,
                   .lag_mean_ns = ios ? static_cast<double>(sum) / static_cast<double>(ios) : 0.0,
                   .lag_max_ns = max});
  }
  return out;
}

// The `replay` object of the document and of the stored test.
results::ReplayInfo ReplayObject(const ReplayRequest& q, const std::vector<std::string>& files,
                                 const trace::TraceOptions& topt, const trace::ReplayOptions& ropt,
                                 const WorkloadSpec& spec, ReplayOutcome& o) {
  const auto& c = o.counts;
  const Histogram& lag = o.result.submit_lag;
  results::ReplayInfo rep;
  rep.trace = {.path = q.trace,
               .files = files,
               .format = o.format,
               .event = topt.event == trace::BlkEvent::kIssue ? "issue" : "queue",
               .device_id = topt.device_id,
               .records = c.records,
               .requests = c.requests,
               .bytes = c.bytes,
               .skipped = c.skipped,
               .filtered = c.filtered,
               .split = c.split,
               .reordered = c.reordered,
               .remapped = c.remapped,
               .passes = c.passes,
               .span_ns = c.trace_span_ns};
  rep.timing = {.mode = trace::TimingName(ropt.timing),
                .speedup = ropt.speedup,
                .qd = q.qd,
                .jobs = spec.jobs};
  rep.remap = trace::RemapName(ropt.remap);
  rep.range = {ropt.range_begin_bytes, ropt.range_end_bytes};
  rep.loop = ropt.loops;
  rep.max_io_bytes = o.max_io_bytes;
  if (o.timed) {
    rep.lag_ns = results::ReplayInfo::Lag{.count = lag.count(),
                                          .mean = lag.Mean(),
                                          .p50 = lag.Percentile(50),
                                          .p99 = lag.Percentile(99),
                                          .max = lag.max(),
                                          .limit = q.lag_limit_ns};
    rep.kept_up = !o.behind;
    rep.lag_series = LagSeries(o.result);
  }
  std::map<std::string, results::ReplayInfo::Compared> cmp;
  for (int d = 0; d < kDirections; ++d) {
    const Histogram& h = c.recorded[d];
    o.recorded.Merge(h);
    if (h.count() == 0) continue;
    cmp[DirectionName(static_cast<Direction>(d))] = {LatencyOf(h),
                                                     LatencyOf(o.result.dirs[d].latency)};
  }
  if (o.recorded.count())
    cmp["total"] = {LatencyOf(o.recorded), LatencyOf(o.result.Total().latency)};
  if (!cmp.empty()) rep.latency_compare = std::move(cmp);
  rep.replayed_total = DirectionOf(o.result.Total(), o.result.measured_ns);
  rep.replayed_total.histogram.reset();
  return rep;
}

// The `run` document of the replay: context, the phase's results, `replay`.
results::ReplayDocument ReplayDocumentOf(const ReplayRequest& q, const WorkloadSpec& spec, bool sim,
                                         double start, double end, const ReplayOutcome& o,
                                         const results::ReplayInfo& rep) {
  results::ReplayDocument doc;
  doc.context.phase = {.platform = PlatformOf(),
                       .target = TargetOf(o.target),
                       .workload = WorkloadOf(spec),
                       .direct = !q.buffered,
                       .seed = spec.seed,
                       .start_time = IsoTime(start),
                       .end_time = IsoTime(end)};
  doc.context.engine = sim ? "sim" : q.engine_name;
  doc.phase = PhaseOf(o.result);
  doc.replay = rep;
  return doc;
}

// The phase of the replay: the trace's requests as they come, at most max_io_bytes each.
WorkloadSpec ReplaySpec(const ReplayRequest& q, const trace::ReplayOptions& ropt,
                        const std::optional<Prescan>& pre, bool sim,
                        trace::TraceRequestSource* source) {
  WorkloadSpec spec;
  spec.pattern = Pattern::kRandom;
  spec.read_pct = pre && !pre->writes ? 100 : 50;
  spec.block_sizes = {BlockShare{ropt.max_io_bytes, 100}};
  spec.queue_depth = q.qd;
  spec.jobs = sim ? 1 : q.jobs;
  spec.range_begin_bytes = ropt.range_begin_bytes;
  spec.range_end_bytes = ropt.range_end_bytes;
  spec.interval_ns = q.interval_ns;
  spec.source = source;
  return spec;
}

// The trace opened (its format known), and its first pass when it needs one: a real target
// (a check before anything is written) or --remap scale (its highest offset first).
struct OpenedTrace {
  std::shared_ptr<std::unique_ptr<trace::TraceReader>> first;
  std::vector<std::string> files;
  std::optional<Prescan> pre;
};

Result<OpenedTrace> OpenReplayTrace(const ReplayRequest& q, bool sim, trace::TraceOptions& topt) {
  const trace::ReplayOptions& ropt = q.replay_options;
  const bool prescan = !sim || ropt.remap == trace::Remap::kScale;
  if ((prescan || ropt.loops > 1) && !trace::CanReread(q.trace))
    return Status::Invalid(
        "trace " + q.trace + " is not a regular file (a pipe?) and replay " +
        (!sim             ? "on a real target reads it twice (a check before anything is written)"
         : ropt.loops > 1 ? "with --loop reads it once per pass"
                          : "with --remap scale reads it twice (its highest offset first)") +
        "; save it to a file first");
  // The trace must open (and its format be known) before anything else happens; this reader
  // serves the first pass.
  SSDLAB_ASSIGN_OR_RETURN(auto first, trace::OpenTrace(q.trace, topt));
  OpenedTrace out;
  topt.format = first->format();
  out.files = first->files();
  out.first = std::make_shared<std::unique_ptr<trace::TraceReader>>(std::move(first));
  if (!prescan) return out;
  SSDLAB_ASSIGN_OR_RETURN(Prescan p, ScanTrace(q.trace, topt, q.stop));
  if (p.records == 0)
    return Status::Invalid("trace " + q.trace + " holds no I/O records" +
                           (topt.device_id.empty() ? "" : " of --device-id " + topt.device_id));
  out.pre = p;
  return out;
}

// What the options leave together: --max-bs at most 64MiB, --qd within io_uring's ring.
Status CheckReplayOptions(const ReplayRequest& q) {
  if (q.max_bs > 64 * kMiB) return Status::Invalid("--max-bs: at most 64MiB");
  if (q.engine == EngineKind::kIoUring && q.qd > kMaxUringDepth)
    return Status::Invalid(fmt::format("--qd {} is above io_uring's limit of {} entries per ring",
                                       q.qd, kMaxUringDepth));
  return Status::Ok();
}

using ReplayText = const std::string&;

// A count of the request; `shown` its default.
template <class T>
ReplayDef ReplayCount(const char* flag, std::string help, T ReplayRequest::*member) {
  return {
      flag, std::move(help),
      [member](ReplayText f, ReplayText t, ReplayRequest& q) { return CountFlag(f, t, q.*member); },
      [member](const ReplayRequest& q) { return std::to_string(q.*member); }};
}

std::vector<ReplayDef> ReplayTraceDefs() {
  return {
      {"--size", "Size of the target region (creates a missing file)",
       [](ReplayText, ReplayText t, ReplayRequest& q) -> Status {
         auto size = ParseBytes(t);
         if (!size.ok()) return size.status().WithContext("--size");
         q.size_bytes = size.value();
         return Status::Ok();
       }},
      {"--format", "Trace format: " + trace::TraceFormatNames(),
       [](ReplayText, ReplayText t, ReplayRequest& q) -> Status {
         SSDLAB_ASSIGN_OR_RETURN(q.trace_options.format, trace::ParseTraceFormat(t));
         return Status::Ok();
       },
       [](const ReplayRequest& q) { return trace::TraceFormatName(q.trace_options.format); }},
      {"--event", "blktrace/blkparse: queue (Q) or issue (D) events",
       [](ReplayText, ReplayText t, ReplayRequest& q) -> Status {
         if (t == "queue" || t == "Q") {
           q.trace_options.event = trace::BlkEvent::kQueue;
         } else if (t == "issue" || t == "D") {
           q.trace_options.event = trace::BlkEvent::kIssue;
         } else {
           return Status::Invalid("--event: unknown event '" + t + "' (queue, issue)");
         }
         q.event_text = t;
         return Status::Ok();
       },
       [](const ReplayRequest& q) { return q.event_text; }},
      {"--timing", "original | scale:X (X times faster) | afap",
       [](ReplayText, ReplayText t, ReplayRequest& q) {
         q.timing_text = t;
         return trace::ParseTiming(t, &q.replay_options.timing, &q.replay_options.speedup);
       },
       [](const ReplayRequest& q) { return q.timing_text; }},
      ReplayCount("--qd", "Most I/Os in flight (afap: the queue depth)", &ReplayRequest::qd),
      ReplayCount("--jobs", "Submitting threads on real targets (one source)",
                  &ReplayRequest::jobs),
      {"--remap", "Offsets beyond the range: none (refuse) | modulo | scale",
       [](ReplayText, ReplayText t, ReplayRequest& q) -> Status {
         SSDLAB_ASSIGN_OR_RETURN(q.replay_options.remap, trace::ParseRemap(t));
         q.remap_text = t;
         return Status::Ok();
       },
       [](const ReplayRequest& q) { return q.remap_text; }},
      {"--range", "Active range of the target, e.g. 0%-50% or 1GiB-2GiB",
       [](ReplayText, ReplayText t, ReplayRequest& q) {
         q.range = t;
         return Status::Ok();
       },
       [](const ReplayRequest& q) { return q.range; }},
      {"--loop", "Passes over the trace",
       [](ReplayText f, ReplayText t, ReplayRequest& q) {
         return CountFlag(f, t, q.replay_options.loops);
       },
       [](const ReplayRequest& q) { return std::to_string(q.replay_options.loops); }},
      {"--device-id", "Only this device/disk/volume/ASU (blktrace: MAJ,MIN; fio: file name)",
       [](ReplayText, ReplayText t, ReplayRequest& q) {
         q.trace_options.device_id = t;
         return Status::Ok();
       }},
      {"--skip-bad", "Tolerate up to N malformed records",
       [](ReplayText f, ReplayText t, ReplayRequest& q) {
         return CountFlag(f, t, q.trace_options.skip_bad, true);
       },
       [](const ReplayRequest& q) { return std::to_string(q.trace_options.skip_bad); }},
  };
}

std::vector<ReplayDef> ReplayPhaseDefs() {
  return {
      {"--max-bs", "Larger records are split into pieces of this",
       [](ReplayText f, ReplayText t, ReplayRequest& q) {
         q.max_bs_text = t;
         return BytesFlag(f, t, q.max_bs);
       },
       [](const ReplayRequest& q) { return CompactBytes(q.max_bs); }},
      {"--lag-limit", "p99 submission lag above which the replay did not keep up",
       [](ReplayText f, ReplayText t, ReplayRequest& q) {
         return DurationFlag(f, t, q.lag_limit_ns);
       },
       [](const ReplayRequest& q) { return DurationText(q.lag_limit_ns); }},
      {"--interval", "Time-series interval (0 for none)",
       [](ReplayText, ReplayText t, ReplayRequest& q) -> Status {
         SSDLAB_ASSIGN_OR_RETURN(q.interval_ns, ParseIntervalNs(t));
         return Status::Ok();
       },
       [](const ReplayRequest& q) { return DurationText(q.interval_ns); }},
      EngineKindDef<ReplayRequest>(),
      SwitchDef<ReplayRequest>("--buffered", "Use the page cache (no O_DIRECT)",
                               &ReplayRequest::buffered),
      SwitchDef<ReplayRequest>("--destructive",
                               "Allow writing to a block device (destroys its data)",
                               &ReplayRequest::destructive),
  };
}

}  // namespace

const std::vector<ReplayDef>& ReplayOptionDefs() {
  static const std::vector<ReplayDef> defs = [] {
    std::vector<ReplayDef> all = ReplayTraceDefs();
    for (ReplayDef& d : ReplayPhaseDefs()) all.push_back(std::move(d));
    return all;
  }();
  return defs;
}

Result<ReplayOutcome> Replay(const ReplayRequest& q) {
  SSDLAB_RETURN_IF_ERROR(CheckReplayOptions(q));
  const bool sim = IsSimTarget(q.target);
  SSDLAB_RETURN_IF_ERROR(CheckReplayPaths(q));
  trace::TraceOptions topt = q.trace_options;
  trace::ReplayOptions ropt = q.replay_options;
  SSDLAB_ASSIGN_OR_RETURN(OpenedTrace opened, OpenReplayTrace(q, sim, topt));
  TargetRequest req{.target = q.target,
                    .size_bytes = q.size_bytes,
                    .writes = sim || (opened.pre && opened.pre->writes),
                    .destructive = q.destructive,
                    .direct = !q.buffered,
                    .engine = q.engine};
  SSDLAB_ASSIGN_OR_RETURN(TargetInfo info, ProbeTarget(req));
  SSDLAB_RETURN_IF_ERROR(FitToTarget(q, info, opened.pre, ropt));
  IoLogSink* io_log = nullptr;
  if (q.open_io_log) {
    SSDLAB_ASSIGN_OR_RETURN(io_log, q.open_io_log());
  }
  if (!q.run.empty() && q.db.empty()) return Status::Invalid("--run needs --db");
  // The database opened and the run's name settled (a taken name refused) before the target is.
  std::optional<StoredPhaseRun> store;
  if (!q.db.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(store, StoredPhaseRun::Open(q.db, q.run, "replay"));
  }
  SSDLAB_ASSIGN_OR_RETURN(auto backend, OpenTarget(req));
  trace::TraceRequestSource source(
      [path = q.trace, topt, held = opened.first]() -> Result<std::unique_ptr<trace::TraceReader>> {
        if (!*held) return trace::OpenTrace(path, topt);
        // The reader opened first (the pre-scan opens its own): the first pass reads it.
        return std::move(*held);
      },
      ropt);
  SSDLAB_RETURN_IF_ERROR(source.Start());
  WorkloadSpec spec = ReplaySpec(q, ropt, opened.pre, sim, &source);
  // The stored run: kind "replay", one test of one round holding the phase.
  ReplayOutcome o;
  if (store) {
    json context = PlatformJson();
    context["target"] = TargetJson(backend->info());
    SSDLAB_RETURN_IF_ERROR(
        store->Begin("replay", ReplayConfig(q, topt, ropt), context, backend->info()));
    o.run = store->name();
  }
  RunControl control;
  control.stop = q.stop;
  control.io_log = io_log;
  const double start = UnixTimeS();
  auto result = backend->RunPhase(spec, control);
  const double end = UnixTimeS();
  source.Close();
  if (store && (!result.ok() || !source.status().ok())) store->Fail();
  SSDLAB_RETURN_IF_ERROR(result.status());
  if (Status st = source.status(); !st.ok())
    return Status::Error(st.code(), st.message() + (sim ? "" : " (the replay stopped there)"));
  o.result = std::move(result.value());
  o.counts = source.counts();
  o.format = trace::TraceFormatName(source.format());
  o.target = backend->info();
  o.max_io_bytes = ropt.max_io_bytes;
  o.timed = source.timed();
  const Histogram& lag = o.result.submit_lag;
  o.behind = o.timed && lag.count() && lag.Percentile(99) > static_cast<double>(q.lag_limit_ns);
  AddReplayNotes(q, o);
  const results::ReplayInfo rep = ReplayObject(q, opened.files, topt, ropt, spec, o);
  o.doc = ReplayDocumentOf(q, spec, sim, start, end, o, rep);
  if (store) o.end.stored = store->Finish(spec, o.result, results::ToJson(rep));
  if (q.write_outputs) o.end.outputs = q.write_outputs(o);
  // A simulated drive with state= saves it at the end, once every output is written, and only
  // when the replay ended well or was interrupted (EndTargetUse).
  const Status outcome =
      o.result.interrupted ? Status::Error(Code::kInterrupted, "interrupted") : Status::Ok();
  EndUseAfterOutputs(*backend, outcome, o.end, *q.console);
  return o;
}

}  // namespace ssdlab::usecase
