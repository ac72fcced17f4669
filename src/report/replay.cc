// Block traces in the report: replays (`ssdlab replay --db`, cli/replay_cmd.cc) with what was
// replayed, whether the replay kept up and the recorded against the replayed latency; trace
// statistics (`ssdlab trace stats --db`, cli/trace_cmd.cc) with shares, sizes and skew.
#include <fmt/format.h>

#include <algorithm>

#include "report/model_internal.h"

namespace ssdlab::report {

namespace {

// True for a test stored by `ssdlab replay` (results with "trace" and "timing").
bool IsReplayTest(const json& test) {
  const json& r = Get(test, "results");
  return Get(Get(r, "trace"), "format").is_string() && Get(r, "timing").is_object();
}

}  // namespace

json ReplayRunFacts(const ReportRun& run) {
  const json& config = Get(Get(run.doc, "context"), "config");
  return {{"spec", fmt::format("ssdlab replay {} ({}), --timing {}", Str(config, "trace"),
                               Str(config, "format"), Str(config, "timing"))},
          {"active_range", Str(config, "range") + ", --remap " + Str(config, "remap")},
          {"preconditioning", "none (the drive as it was)"},
          {"rounds", fmt::format("none: {:g} pass(es) over the trace", Num(config, "loop", 1))},
          {"steady_state", "not applicable (trace replay)"}};
}

namespace {

// The cumulative share of I/Os at or below each latency, in points {lat_us, pct, series}: the
// replayed latency from its histogram (buckets [lower_ns, count]), the recorded one from the
// trace's percentiles (all the replay stores of it: p50, p90, p99, p99.9 and the maximum).
void AddCdfPoints(const json& histogram, const json& recorded, const std::string& direction,
                  const std::string& drive, json& out) {
  auto point = [&](double ns, double pct, const char* what) {
    json p = {{"lat_us", R6(ns / 1000.0)},
              {"pct", R6(pct)},
              {"series", direction + ", " + what},
              {"order", R6(pct)}};
    if (!drive.empty()) p["drive"] = drive;
    out.push_back(std::move(p));
  };
  double total = 0;
  for (const json& b : histogram)
    if (b.is_array() && b.size() == 2 && b[1].is_number()) total += b[1].get<double>();
  double seen = 0;
  for (const json& b : histogram) {
    if (!(total > 0) || !b.is_array() || b.size() != 2 || !b[0].is_number() || !b[1].is_number())
      continue;
    seen += b[1].get<double>();
    point(std::max(1.0, b[0].get<double>()), seen / total * 100, "replayed");
  }
  for (const auto& [key, pct] : {std::pair<const char*, double>{"p50", 50},
                                 {"p90", 90},
                                 {"p99", 99},
                                 {"p99_9", 99.9},
                                 {"max", 100}}) {
    if (Num(recorded, key) > 0) point(Num(recorded, key), pct, "recorded");
  }
}

// A timed replay's lag and rate over time, one point per interval of its series (the replay's
// lag_series beside the phase's intervals, the same intervals in the same order): the mean and
// the largest submission lag, µs, into `lag` {t_s, lag_us, series}; the I/Os completed per
// second into `rate` {t_s, iops}. Replays stored before lag_series (and afap ones) add nothing.
void AddLagPoints(const json& res, const std::string& drive, json& lag, json& rate) {
  const json& series = Get(res, "lag_series");
  const json& intervals = Get(res, "intervals");
  if (!series.is_array()) return;
  for (size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const double t_s = R6(Num(p, "t_end_ns") / 1e9);
    for (const auto& [key, name] :
         {std::pair<const char*, const char*>{"lag_mean_ns", "mean"}, {"lag_max_ns", "largest"}}) {
      json v = {{"t_s", t_s}, {"lag_us", R6(Num(p, key) / 1000.0)}, {"series", name}};
      if (!drive.empty()) v["drive"] = drive;
      lag.push_back(std::move(v));
    }
    if (!intervals.is_array() || i >= intervals.size()) continue;
    double iops = 0;
    for (const char* d : {"read", "write", "trim"}) iops += Num(Get(intervals[i], d), "iops");
    json v = {{"t_s", t_s}, {"iops", R6(iops)}};
    if (!drive.empty()) v["drive"] = drive;
    rate.push_back(std::move(v));
  }
}

}  // namespace

json ReplaySection(Ctx& ctx) {
  json rows = json::array(), lat_rows = json::array(), bars = json::array();
  json cdf = json::array(), lag_points = json::array(), rate_points = json::array();
  for (const ReportRun& r : ctx.runs) {
    for (const json& t : Get(r.doc, "tests")) {
      if (!IsReplayTest(t)) continue;
      const json& res = Get(t, "results");
      const json& tr = Get(res, "trace");
      const json& tm = Get(res, "timing");
      const json& lag = Get(res, "lag_ns");
      const json& tot = Get(res, "replayed_total");
      const json& kept = Get(res, "kept_up");
      std::string timing = Str(tm, "mode");
      if (timing == "scale") timing += fmt::format(":{:g}", Num(tm, "speedup"));
      if (timing == "afap") timing += fmt::format(" qd {:g}", Num(tm, "qd"));
      rows.push_back(json::array(
          {r.label, Str(tr, "path") + " (" + Str(tr, "format") + ")", FmtInt(Num(tr, "records")),
           timing, FmtInt(Num(tot, "iops")), FmtUs(Num(Get(tot, "lat_ns"), "mean")),
           FmtUs(Num(Get(tot, "lat_ns"), "p99")),
           lag.is_object() ? FmtUs(Num(lag, "p50")) + " / " + FmtUs(Num(lag, "p99")) + " / " +
                                 FmtUs(Num(lag, "max"))
                           : "-",
           kept.is_boolean() ? (kept.get<bool>() ? Cell("yes", "good") : Cell("no", "bad"))
                             : json("-")}));
      AddLagPoints(res, ctx.multi ? r.label : "", lag_points, rate_points);
      const json& cmp = Get(res, "latency_compare");
      if (!cmp.is_object()) continue;
      for (const char* d : {"read", "write", "trim", "total"}) {
        const json& c = Get(cmp, d);
        if (!c.is_object()) continue;
        const json& rec = Get(c, "recorded");
        const json& rep = Get(c, "replayed");
        json row = json::array({r.label, d});
        for (const json* h : {&rec, &rep}) {
          for (const char* p : {"p50", "p99", "p99_9", "max"}) row.push_back(FmtUs(Num(*h, p)));
        }
        lat_rows.push_back(row);
        if (std::string(d) == "total") continue;
        AddCdfPoints(Get(Get(Get(res, "results"), d), "histogram"), rec, d,
                     ctx.multi ? r.label : "", cdf);
        for (const char* p : {"p50", "p90", "p99", "p99_9"}) {
          for (const auto& [what, h] :
               {std::pair<const char*, const json*>{"recorded", &rec}, {"replayed", &rep}}) {
            json b = {
                {"pct", p}, {"lat_us", R6(Num(*h, p) / 1000.0)}, {"what", what}, {"direction", d}};
            if (ctx.multi) b["drive"] = r.label;
            bars.push_back(b);
          }
        }
      }
    }
  }
  if (rows.empty()) return nullptr;
  json blocks = json::array();
  blocks.push_back(TableBlock(
      ctx.Id("replay-table"), "Trace replays (latency in µs)",
      json::array({"Drive", "Trace", "Records", "Timing", "IOPS", "Mean", "p99",
                   "Submission lag p50 / p99 / max", "Kept up"}),
      rows,
      json::array({"Timed replays schedule each I/O at its trace time; latency counts from the "
                   "scheduled time. Lag: actual submission minus scheduled time; a replay whose "
                   "p99 lag exceeds --lag-limit did not keep up.",
                   "afap replays run closed loop and have no lag."})));
  if (!lag_points.empty()) {
    blocks.push_back(ChartBlock(
        ctx.Id("replay-lag"),
        "Submission lag over time: of the I/Os completed in each interval, the mean and the "
        "largest lag behind their scheduled times (a simulated drive replays in virtual time: its "
        "lag is the wait for one of the --qd slots, zero while the model keeps up with the trace)",
        LineSpec("Replay lag behind the trace", lag_points, Q("t_s", "Time, s"),
                 Q("lag_us", "Submission lag, µs"), "series", "Lag", ctx,
                 json::array({"mean", "largest"}))));
    blocks.push_back(ChartBlock(ctx.Id("replay-rate"),
                                "I/Os completed per second, on the same time axis",
                                LineSpec("Replayed IOPS", rate_points, Q("t_s", "Time, s"),
                                         Q("iops", "IOPS"), "", "", ctx)));
  }
  if (!lat_rows.empty()) {
    blocks.push_back(TableBlock(
        ctx.Id("replay-lat"), "Recorded (in the trace) against replayed latency, µs",
        json::array({"Drive", "Direction", "Recorded p50", "p99", "p99.9", "max", "Replayed p50",
                     "p99", "p99.9", "max"}),
        lat_rows,
        json::array({"Recorded: the trace's own response times (MSR ResponseTime, blktrace "
                     "C - D)."})));
    blocks.push_back(ChartBlock(
        ctx.Id("replay-lat-chart"), "Latency percentiles, recorded and replayed",
        BarSpec("Recorded vs replayed latency", bars, O("pct", "Percentile"),
                Q("lat_us", "Latency, µs"), N("what", "Latency"), ctx, "direction", true)));
  }
  if (!cdf.empty()) {
    blocks.push_back(ChartBlock(
        ctx.Id("replay-cdf"),
        "Latency distribution, recorded (the trace's percentiles: p50, p90, p99, p99.9, max) and "
        "replayed (every I/O's latency, from its histogram)",
        LineSpec("Recorded vs replayed latency, cumulative", cdf, Q("lat_us", "Latency, µs", true),
                 Q("pct", "I/Os at or below, %"), "series", "Direction, latency", ctx, nullptr,
                 "order")));
  }
  return Section("replay", "Trace replays",
                 "Block traces replayed against the drive (ssdlab replay).", blocks);
}

namespace {

// True for a test stored by `ssdlab trace stats` (results with suggested run flags).
bool IsTraceStatsTest(const json& test) {
  return Get(Get(test, "results"), "suggested_run_flags").is_string();
}

}  // namespace

json TraceStatsRunFacts(const ReportRun& run) {
  const json& config = Get(Get(run.doc, "context"), "config");
  return {{"spec", fmt::format("ssdlab trace stats {} ({})", Str(config, "trace_stats"),
                               Str(config, "format"))},
          {"active_range", "the trace's own offsets"},
          {"preconditioning", "none (no I/O: the trace is read)"},
          {"rounds", "none: one pass over the trace"},
          {"steady_state", "not applicable (trace statistics)"}};
}

json TraceStatsSection(Ctx& ctx) {
  json rows = json::array(), sizes = json::array(), skew = json::array();
  for (const ReportRun& r : ctx.runs) {
    for (const json& t : Get(r.doc, "tests")) {
      if (!IsTraceStatsTest(t)) continue;
      const json& res = Get(t, "results");
      const json& dirs = Get(res, "directions");
      const json& ws = Get(res, "working_set");
      const json& sk = Get(res, "skew");
      const std::string label = r.label + ": " + Str(Get(res, "trace"), "path");
      rows.push_back(json::array(
          {label, FmtInt(Num(Get(res, "trace"), "records")), FmtDurationNs(Num(res, "duration_ns")),
           FmtPct(Num(Get(dirs, "read"), "ios_pct")) + " / " +
               FmtPct(Num(Get(dirs, "read"), "bytes_pct")),
           FmtPct(Num(res, "sequential_pct")), FmtInt(Num(res, "mean_iops")),
           FmtInt(Num(res, "peak_iops_1s")),
           FmtNum(Num(ws, "bytes") / (1024.0 * 1024.0), 4) + " MiB" +
               (Get(ws, "exact").is_boolean() && !Get(ws, "exact").get<bool>() ? " (est.)" : ""),
           FmtPct(Num(sk, "hottest_1pct_access_pct")) + " / " +
               FmtPct(Num(sk, "hottest_10pct_access_pct")) + " / " +
               FmtPct(Num(sk, "hottest_20pct_access_pct")),
           Str(res, "suggested_run_flags")}));
      for (const json& b : Get(res, "block_sizes")) {
        json row = {{"size", BlockLabel(static_cast<uint64_t>(Num(b, "bytes")))},
                    {"bytes", Num(b, "bytes")},
                    {"pct", R6(Num(b, "pct"))},
                    {"trace", label}};
        if (ctx.multi) row["drive"] = r.label;
        sizes.push_back(row);
      }
      for (const auto& [k, name] :
           {std::pair<const char*, const char*>{"hottest_1pct_access_pct", "1%"},
            {"hottest_10pct_access_pct", "10%"},
            {"hottest_20pct_access_pct", "20%"}}) {
        json row = {{"space", name}, {"pct", R6(Num(sk, k))}, {"trace", label}};
        if (ctx.multi) row["drive"] = r.label;
        skew.push_back(row);
      }
    }
  }
  if (rows.empty()) return nullptr;
  json blocks = json::array();
  blocks.push_back(TableBlock(
      ctx.Id("trace-stats-table"), "Trace statistics",
      json::array({"Trace", "Records", "Duration", "Reads % of I/Os / bytes", "Sequential",
                   "Mean IOPS", "Peak IOPS (1 s)", "Working set", "Hottest 1 / 10 / 20% take",
                   "Nearest `ssdlab run`"}),
      rows,
      json::array({"Working set: distinct 4 KiB units touched (estimated from a hash sample "
                   "beyond 262,144 units). Skew: share of unit accesses going to the hottest "
                   "1/10/20% of touched units."})));
  if (!sizes.empty()) {
    blocks.push_back(ChartBlock(
        ctx.Id("trace-stats-bs"), "Block sizes, percent of I/Os",
        BarSpec(
            "Trace block sizes", sizes,
            O("size", "Block size", {{"field", "bytes"}, {"op", "min"}, {"order", "ascending"}}),
            Q("pct", "% of I/Os"), N("trace", "Trace"), ctx)));
  }
  blocks.push_back(ChartBlock(
      ctx.Id("trace-stats-skew"), "Share of accesses to the hottest part of the touched space",
      BarSpec("Trace skew", skew, O("space", "Hottest share of touched space"),
              Q("pct", "% of accesses"), N("trace", "Trace"), ctx)));
  return Section("trace-stats", "Trace statistics",
                 "What block traces do, and the nearest synthetic workload (ssdlab trace stats).",
                 blocks);
}

}  // namespace ssdlab::report
