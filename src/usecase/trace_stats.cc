// The `trace stats` use case (usecase/trace_stats.h).
#include "usecase/trace_stats.h"

#include <memory>

#include "base/units.h"
#include "store/store.h"
#include "trace/trace.h"
#include "usecase/documents.h"
#include "usecase/options.h"
#include "usecase/paths.h"
#include "usecase/runs.h"

namespace ssdlab::usecase {
namespace {

nlohmann::json HistJson(const Histogram& h) {
  return {{"count", h.count()},      {"mean", h.Mean()},        {"min", h.min()},
          {"p50", h.Percentile(50)}, {"p90", h.Percentile(90)}, {"p99", h.Percentile(99)},
          {"max", h.max()}};
}

// The statistics document of the trace `a` read by `reader`.
nlohmann::json StatsDoc(const TraceStatsRequest& a, const trace::TraceReader& reader,
                        const trace::TraceStats& st, const trace::StatsOptions& so,
                        const std::string& flags) {
  const uint64_t ios = st.records;
  const uint64_t all_bytes = st.bytes[0] + st.bytes[1] + st.bytes[2];
  auto pct = [](uint64_t x, uint64_t of) {
    return of ? 100.0 * static_cast<double>(x) / static_cast<double>(of) : 0.0;
  };
  nlohmann::json doc;
  doc["schema_version"] = 1;
  doc["trace"] = {{"path", a.trace},
                  {"files", reader.files()},
                  {"format", trace::TraceFormatName(reader.format())},
                  {"device_id", a.device_id},
                  {"records", st.records},
                  {"skipped", reader.skipped()},
                  {"filtered", reader.filtered()},
                  {"ignored", reader.ignored()},
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
  return doc;
}

// The options of the reading and of the statistics from the flags' texts (Invalid naming one).
Status ParseStatsFlags(const TraceStatsRequest& a, trace::TraceOptions& o,
                       trace::StatsOptions& so) {
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
  if (s.ok()) s = CountFlag("--skip-bad", a.skip_bad, o.skip_bad, true);
  if (s.ok()) s = DurationFlag("--burst-gap", a.burst_gap, so.burst_gap_ns);
  if (!s.ok()) return Status::Invalid(s.message());
  if (!a.run.empty() && a.db.empty()) return Status::Invalid("--run needs --db");
  return Status::Ok();
}

// A run of kind "trace-stats" (its id): one test whose results are the document.
Result<int64_t> CreateStatsRun(Store& store, const TraceStatsRequest& a,
                               const TraceStatsOutcome& out) {
  nlohmann::json config = {
      {"trace_stats", a.trace}, {"format", out.format}, {"device_id", a.device_id}};
  nlohmann::json context = PlatformJson();
  TargetInfo target;
  target.path = a.trace;
  target.kind = "trace";
  context["target"] = TargetJson(target);
  return store.CreateRun(out.run, "trace-stats", config, context, target);
}

// The run's one test and its status (Io naming the database when they cannot be stored).
Status FinishStatsRun(Store& store, int64_t id, const TraceStatsRequest& a,
                      const TraceStatsOutcome& out) {
  nlohmann::json config = {
      {"trace_stats", a.trace}, {"format", out.format}, {"device_id", a.device_id}};
  auto t = store.BeginTest(id, 0, "trace-stats", config);
  Status st = t.ok() ? store.FinishTest(t.value(), nlohmann::json::object(), out.doc) : t.status();
  if (st.ok()) st = store.SetRunStatus(id, "done");
  if (!st.ok()) return Status::Io("cannot store the statistics in " + a.db + ": " + st.message());
  return Status::Ok();
}

}  // namespace

Result<TraceStatsOutcome> TraceStats(const TraceStatsRequest& a) {
  PathRegistry paths = CommandPaths();
  AddTracePaths(paths, "TRACE", a.trace);
  AddDatabasePath(paths, "--db", a.db, true);
  for (const auto& [what, path] : a.outputs) paths.AddOutput(what, path);
  SSDLAB_RETURN_IF_ERROR(paths.Check());
  trace::TraceOptions o;
  trace::StatsOptions so;
  SSDLAB_RETURN_IF_ERROR(ParseStatsFlags(a, o, so));
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<trace::TraceReader> reader, trace::OpenTrace(a.trace, o));
  std::unique_ptr<Store> store;
  if (!a.db.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(store, Store::Open(a.db));
  }
  trace::StatsBuilder b(so);
  trace::TraceRecord r;
  for (;;) {
    if (a.stop && a.stop->load()) return Status::Error(Code::kInterrupted, "interrupted");
    SSDLAB_ASSIGN_OR_RETURN(bool more, reader->Next(&r));
    if (!more) break;
    b.Add(r);
  }
  TraceStatsOutcome out;
  out.stats = b.Finish();
  out.format = trace::TraceFormatName(reader->format());
  out.skipped = reader->skipped();
  out.suggested_flags = trace::SuggestRunFlags(out.stats);
  out.doc = StatsDoc(a, *reader, out.stats, so, out.suggested_flags);
  if (store) {
    out.run = a.run.empty() ? DefaultRunName("trace-stats") : a.run;
    // A run that cannot be created is an error; a failure after it is the outcome's.
    SSDLAB_ASSIGN_OR_RETURN(int64_t id, CreateStatsRun(*store, a, out));
    out.stored = FinishStatsRun(*store, id, a, out);
  }
  return out;
}

}  // namespace ssdlab::usecase
