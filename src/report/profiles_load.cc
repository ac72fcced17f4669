// The load studies' profiles in the report: sysbench fileio, vdbench-style curves, the fill,
// the over-provisioning advisor and user profiles (report/profiles_internal.h).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "report/profiles_internal.h"

namespace ssdlab::report::profiles {

// ---------------------------------------------------------------- sysbench fileio

json FileioBlocks(Ctx& ctx, const Group& g) {
  using results::FileioResults;
  json blocks = json::array(), iops = json::array(), lat = json::array(), modes = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Load",
           [](const Series& s) {
             const FileioResults& r = s.Res<FileioResults>();
             return fmt::format("{:g} threads, one {} I/O at a time each, O_DIRECT; {} per mode",
                                static_cast<double>(r.threads),
                                SizeLabel(static_cast<double>(r.block_bytes)),
                                FmtDurationNs(static_cast<double>(r.time_ns)));
           }},
          {"Files",
           [](const Series& s) {
             return FmtBytes(static_cast<double>(s.Res<FileioResults>().range_bytes)) +
                    " in total, written first (prepare)";
           }},
          {"rndrw",
           [](const Series& s) {
             return fmt::format("{:g} reads per write",
                                s.Res<FileioResults>().rndrw_reads_per_write);
           }},
      }));
  for (const Series& s : g.series) {
    json rows = json::array();
    for (const results::FileioMode& m : s.Res<FileioResults>().modes) {
      AddOnce(modes, m.mode);
      json rw =
          json::array({m.mode, FmtInt(m.read_iops), FmtInt(m.write_iops),
                       fmt::format("{:.2f}", m.read_mib_s), fmt::format("{:.2f}", m.write_mib_s)});
      const std::pair<const char*, double> stats[] = {{"min", static_cast<double>(m.lat_ns.min)},
                                                      {"mean", m.lat_ns.mean},
                                                      {"95%", m.lat_ns.p95},
                                                      {"99%", m.lat_ns.p99},
                                                      {"max", static_cast<double>(m.lat_ns.max)}};
      int order = 0;
      for (const auto& [name, v] : stats) {
        rw.push_back(FmtUs(v));
        if (v > 0)
          lat.push_back({{"drive", s.label},
                         {"mode", m.mode},
                         {"stat", name},
                         {"order", order++},
                         {"us", R6(v / 1000)}});
      }
      rows.push_back(rw);
      for (const auto& [dir, v] :
           {std::pair<const char*, double>{"read", m.read_iops}, {"write", m.write_iops}}) {
        if (v > 0)
          iops.push_back(
              {{"drive", s.label}, {"mode", m.mode}, {"direction", dir}, {"iops", R6(v)}});
      }
    }
    blocks.push_back(TableBlock(ctx.Id("fileio-table"),
                                s.label + ": IOPS, throughput and latency (µs) per mode",
                                json::array({"Mode", "Read IOPS", "Write IOPS", "Read MiB/s",
                                             "Write MiB/s", "Min", "Mean", "95%", "99%", "Max"}),
                                rows));
  }
  if (iops.empty()) return blocks;
  Ctx sub = SubCtx(ctx, g.series);
  json b = BarSpec("fileio: IOPS per mode", iops, O("mode", "Mode", modes), Q("iops", "IOPS"),
                   N("direction", "Direction", json::array({"read", "write"})), sub, "", true,
                   sub.multi ? kNarrow : 300);
  json l = LineSpec("fileio: latency per mode", lat,
                    O("stat", "Statistic", json::array({"min", "mean", "95%", "99%", "max"})),
                    Q("us", "Latency, µs", true), "mode", "Mode", sub, modes, "", kNarrow, kTall);
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(ctx.Id("fileio-iops"), "Read and write IOPS of each mode (stacked)", b),
       ChartBlock(ctx.Id("fileio-lat"),
                  "Minimum, mean, 95%, 99% and maximum latency of each mode (log scale)", l)})));
  return blocks;
}

// ---------------------------------------------------------------- vdbench-style curves

namespace {

std::string MixText(const results::CurveMixRecord& mix) {
  std::string bs;
  for (const results::MixBlock& b : mix.block_sizes) {
    bs += (bs.empty() ? "" : " + ") + SizeLabel(static_cast<double>(b.bytes));
    if (b.pct < 100) bs += fmt::format(" ({:g}%)", b.pct);
  }
  const std::string dist = mix.dist.kind.empty() ? "uniform" : mix.dist.kind;
  return fmt::format("{} {}, {:g}% read, {}{}", mix.pattern, bs, mix.read_pct,
                     dist == "uniform" ? "" : dist + " access, ",
                     fmt::format("{:g} outstanding I/Os", static_cast<double>(mix.threads)));
}

// A row of a curve's point table: IOPS, MB/s, mean and 99% latency in ms.
void PointCells(json& row, const results::ProfileCurvePoint& p) {
  row.push_back(FmtInt(p.iops));
  row.push_back(FmtNum(p.mb_s, 4));
  row.push_back(FmtNum(p.mean_ns / 1e6, 3));
  row.push_back(FmtNum(p.p99_ns / 1e6, 3));
}

}  // namespace

json CurveBlocks(Ctx& ctx, const Group& g) {
  using results::CurveResults;
  json blocks = json::array(), values = json::array(), workloads = json::array(),
       summary = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Workload",
           [](const Series& s) { return s.Name() + ": " + MixText(s.Res<CurveResults>().mix); }},
          {"Working section",
           [](const Series& s) {
             const CurveResults& r = s.Res<CurveResults>();
             std::string t = fmt::format("the first {:g}% ({})", r.section_pct,
                                         FmtBytes(static_cast<double>(r.section_bytes)));
             if (r.preparation)
               t += fmt::format(", after filling {} sequentially",
                                FmtBytes(static_cast<double>(r.preparation->filled_bytes)));
             return t;
           }},
          {"Each point",
           [](const Series& s) {
             const CurveResults& r = s.Res<CurveResults>();
             return fmt::format("{} warm-up + {} measured; {:g} jobs x QD {:g}",
                                FmtDurationNs(static_cast<double>(r.ramp_ns)),
                                FmtDurationNs(static_cast<double>(r.time_ns)),
                                static_cast<double>(r.jobs), static_cast<double>(r.qd));
           }},
      }));
  std::vector<double> max_iops;
  for (const Series& s : g.series) {
    const CurveResults& res = s.Res<CurveResults>();
    std::string wl = s.Name();
    AddOnce(workloads, wl);
    const results::ProfileCurvePoint& mx = res.max;
    max_iops.push_back(mx.iops);
    json rows = json::array();
    for (const results::ProfileCurvePoint& p : res.points) {
      values.push_back({{"drive", s.label},
                        {"workload", wl},
                        {"target_pct", p.target_pct},
                        {"iops", R6(p.iops)},
                        {"mb_s", R6(p.mb_s)},
                        {"mean_ms", R6(p.mean_ns / 1e6)},
                        {"p99_ms", R6(p.p99_ns / 1e6)}});
      json row = json::array({fmt::format("{:g}%", p.target_pct), FmtInt(p.rate_iops)});
      PointCells(row, p);
      rows.push_back(row);
    }
    json uncapped = json::array({"uncapped", "-"}), sum = json::array({s.label, wl});
    PointCells(uncapped, mx);
    PointCells(sum, mx);
    rows.push_back(uncapped);
    summary.push_back(sum);
    blocks.push_back(
        TableBlock(ctx.Id("curve-points"),
                   fmt::format("{}: {} at each paced rate (latency in ms)", s.label, wl),
                   json::array({"Target", "Rate, IOPS", "IOPS", "MB/s", "Mean", "99%"}), rows));
  }
  if (values.empty()) return blocks;
  // One table of the maxima, before the per-curve tables.
  blocks.insert(
      blocks.begin() + 1,
      TableBlock(ctx.Id("curve-max"), "Uncapped maximum of each curve (latency in ms)",
                 json::array({"Drive", "Workload", "IOPS", "MB/s", "Mean", "99%"}), summary));
  Ctx sub = SubCtx(ctx, g.series);
  // Workloads of very different rates share the chart on a log axis.
  auto [lo, hi] = std::minmax_element(max_iops.begin(), max_iops.end());
  bool log_x = *lo > 0 && *hi / *lo > 10;
  json charts = json::array();
  for (const auto& [field, title] : std::vector<std::pair<std::string, std::string>>{
           {"mean_ms", "Mean latency"}, {"p99_ms", "99% latency"}}) {
    json s = LineSpec("Curves: " + title + " against IOPS", values,
                      Q("iops", log_x ? "IOPS (log scale)" : "IOPS", log_x),
                      Q(field, title + ", ms (log scale)", true), "workload", "Workload", sub,
                      workloads, "target_pct", kNarrow + 60, kTall);
    charts.push_back(ChartBlock(ctx.Id("curve-" + field.substr(0, field.size() - 3)),
                                title + " against IOPS; each point one paced rate (10%..120% of "
                                        "the uncapped maximum), one curve per workload",
                                s));
  }
  blocks.push_back(RowBlock(charts));
  return blocks;
}

// ---------------------------------------------------------------- fill

json FillProfileBlocks(Ctx& ctx, const Group& g) {
  json rows = json::array();
  for (const Series& s : g.series) {
    const results::FillResults& res = s.Res<results::FillResults>();
    const results::LatencySummaryNs l =
        res.metrics ? res.metrics->total.lat_ns : results::LatencySummaryNs{};
    rows.push_back(json::array({s.label, FmtBytes(static_cast<double>(res.filled_bytes)),
                                fmt::format("{:g}%", res.percent), fmt::format("{:.1f}", res.mb_s),
                                FmtUs(l.mean), FmtUs(l.Stat("p99").value_or(0))}));
  }
  return json::array({TableBlock(
      ctx.Id("fill-profile"), "Sequential fill (1 MiB writes from the start of the target)",
      json::array({"Drive", "Written", "Share of the capacity", "MB/s", "Mean, µs", "99%, µs"}),
      rows)});
}

// ---------------------------------------------------------------- OP advisor

json OpAdvisorBlocks(Ctx& ctx, const Group& g) {
  using results::OpAdvisorResults;
  json blocks = json::array(), time = json::array(), levels = json::array(), ops = json::array();
  blocks.push_back(ParamsBlock(
      ctx, g,
      {
          {"Per setting",
           [](const Series& s) {
             const OpAdvisorResults& r = s.Res<OpAdvisorResults>();
             return fmt::format(
                 "purge, then 4 KiB random writes ({:g} threads x QD {:g}) for {} over the target "
                 "reduced by the setting; IOPS every {}",
                 static_cast<double>(r.threads), static_cast<double>(r.qd),
                 FullDriveOf(*s.run).Duration(static_cast<double>(r.time_ns)),
                 FullDriveOf(*s.run).Duration(static_cast<double>(r.interval_ns)));
           }},
          {"Rule", [](const Series& s) { return s.Res<OpAdvisorResults>().recommendation.rule; }},
      }));
  std::vector<double> op_values;
  for (const Series& s : g.series) {
    const OpAdvisorResults& res = s.Res<OpAdvisorResults>();
    const results::OpRecommendation& rec = res.recommendation;
    const FullDrive full = FullDriveOf(*s.run);
    double base = rec.baseline_sustained_iops;
    json rows = json::array();
    for (const results::OpAdvisorPoint& p : res.points) {
      double op = p.op_pct;
      std::string name = fmt::format("OP {:g}%", op);
      if (std::find(op_values.begin(), op_values.end(), op) == op_values.end())
        op_values.push_back(op);
      json series = json::array();
      for (const results::OpSample& v : p.series)
        series.push_back({{"t_s", v.t_s}, {"iops", v.iops}});
      for (const json& v : ThinSeries(series, "t_s", "iops", 240)) {
        time.push_back({{"drive", s.label},
                        {"op", name},
                        {"t_s", R6(full.Seconds(Num(v, "t_s")))},
                        {"iops", R6(Num(v, "iops"))}});
      }
      levels.push_back({{"drive", s.label},
                        {"op_pct", op},
                        {"measure", "initial (first tenth)"},
                        {"iops", R6(p.initial_iops)}});
      levels.push_back({{"drive", s.label},
                        {"op_pct", op},
                        {"measure", "sustained (last third)"},
                        {"iops", R6(p.sustained_iops)}});
      bool recommended = !rec.no_recommendation && op == rec.op_pct;
      double drop = p.drop_at_s;
      rows.push_back(json::array(
          {fmt::format("{:g}%", op), FmtBytes(full.Bytes(static_cast<double>(p.range_bytes))),
           FmtBytes(full.Bytes(static_cast<double>(p.capacity_cost_bytes))), FmtInt(p.initial_iops),
           FmtInt(p.sustained_iops), drop >= 0 ? full.Duration(drop * 1e9) : "-",
           base > 0 ? fmt::format("{:+.1f}%", (p.sustained_iops / base - 1) * 100) : "-",
           recommended ? Cell("recommended", "good") : Cell("", "")}));
    }
    blocks.push_back(TableBlock(
        ctx.Id("op-advisor-table"),
        s.label + ": sustained 4 KiB random-write IOPS at each over-provisioning setting",
        json::array({"OP", "Range written", "Capacity given up", "Initial IOPS", "Sustained IOPS",
                     "Drop after", "vs smallest OP", ""}),
        rows));
    if (rec.no_recommendation) {
      blocks.push_back(TextBlock(s.label + ": no recommendation: " + *rec.no_recommendation + "."));
      continue;
    }
    blocks.push_back(TextBlock(fmt::format(
        "{}: recommended over-provisioning {:g}%: sustained {} IOPS, {:+.1f}% over {:g}% ({} "
        "IOPS), at the cost of {} of capacity.",
        s.label, rec.op_pct, FmtInt(rec.sustained_iops), rec.gain_pct, rec.baseline_op_pct,
        FmtInt(rec.baseline_sustained_iops),
        FmtBytes(full.Bytes(static_cast<double>(rec.capacity_cost_bytes))))));
  }
  if (time.empty()) return blocks;
  std::sort(op_values.begin(), op_values.end());
  for (double op : op_values) ops.push_back(fmt::format("OP {:g}%", op));
  Ctx sub = SubCtx(ctx, g.series);
  json t = LineSpec("OP advisor: IOPS against time", time, Q("t_s", "Time, s"), Q("iops", "IOPS"),
                    "op", "Spare area", sub, ops, "", kNarrow + 120, kTall);
  t["mark"] = {{"type", "line"}, {"tooltip", true}};
  json l = LineSpec("OP advisor: initial and sustained IOPS", levels,
                    Q("op_pct", "Capacity left unused, %"), Q("iops", "IOPS"), "measure", "IOPS",
                    sub, nullptr, "", kNarrow, kTall);
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(ctx.Id("op-advisor-time"),
                  "4 KiB random-write IOPS against time at each over-provisioning setting: fast "
                  "while fresh, then the drop",
                  t),
       ChartBlock(ctx.Id("op-advisor-levels"),
                  "Initial (first tenth of the run) and sustained (last third) IOPS against the "
                  "share of capacity left unused",
                  l)})));
  return blocks;
}

// ---------------------------------------------------------------- user profiles

json UserBlocks(Ctx& ctx, const Group& g) {
  using results::UserResults;
  json blocks = json::array({ParamsBlock(
      ctx, g, {{"Phases", [](const Series& s) {
                  return std::to_string(s.Res<UserResults>().phases.size()) + " from " +
                         Str(Get(Get(s.run->doc, "context"), "config"), "profile");
                }}})});
  json values = json::array(), phases = json::array();
  for (const Series& s : g.series) {
    json rows = json::array();
    for (const results::UserPhaseResult& p : s.Res<UserResults>().phases) {
      AddOnce(phases, p.name);
      rows.push_back(json::array({p.name, p.workload, FmtInt(p.iops), FmtNum(p.mb_s, 4),
                                  FmtUs(p.mean_ns), FmtUs(p.p99_ns)}));
      values.push_back(
          {{"drive", s.label}, {"phase", p.name}, {"iops", R6(p.iops)}, {"mb_s", R6(p.mb_s)}});
    }
    blocks.push_back(TableBlock(
        ctx.Id("user-table"), s.label + ": phases in order",
        json::array({"Phase", "Workload", "IOPS", "MB/s", "Mean, µs", "99%, µs"}), rows));
  }
  if (values.empty()) return blocks;
  Ctx sub = SubCtx(ctx, g.series);
  json b = BarSpec("IOPS per phase", values, O("phase", "Phase", phases), Q("iops", "IOPS"),
                   nullptr, sub, "", false, sub.multi ? kNarrow : 300);
  blocks.push_back(ChartBlock(ctx.Id("user-bars"), "IOPS of each phase", b));
  return blocks;
}

}  // namespace ssdlab::report::profiles
