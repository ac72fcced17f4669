// The OP study's section: steady write IOPS and the latency-vs-IOPS curves at each share of
// capacity left unused (results/op.h).
#include <fmt/format.h>

#include <algorithm>

#include "report/pts_sections.h"
#include "results/op.h"

namespace ssdlab::report::pts {

// The rows of the section's parameter table.
static std::vector<ParamFact<results::OpResults>> OpFacts() {
  return {
      {"Unused capacity",
       [](const PtsOptions& o, const results::OpResults&) {
         return ListNums(o.op_pcts, "%, ") + "% (and 0%)";
       }},
      {"Per setting",
       [](const PtsOptions&, const results::OpResults&) {
         return std::string(
             "purge, write only the remaining range to steady state, "
             "then latency-vs-IOPS curves of 4KiB write and 70/30");
       }},
  };
}

json OpSection(Ctx& ctx, const std::string& name) {
  auto [runs, blocks] = OpenSection(ctx, name, results::OpResultsFromJson, OpFacts());
  json bars = json::array(), trows = json::array(), charts = json::array();
  for (const auto& [run, test, res] : runs) {
    if (!res.ok()) continue;
    const ReportRun& r = *run;
    CurveRows rows;
    for (const results::OpPoint& p : res->op_points) {
      const double op = p.op_pct;
      std::string label = fmt::format("OP +{:g}%", op);
      AddCurves(rows, p.curves, r.label, "op", label);
      bars.push_back({{"drive", r.label}, {"op_pct", op}, {"iops", R6(p.steady_write_iops)}});
      // Best IOPS at a mean latency of at most 1 ms, per curve (the DC400 review's comparison).
      json rw = json::array({r.label, fmt::format("{:g}%", op),
                             FmtNum(static_cast<double>(p.range_bytes) / 1e9, 4) + " GB",
                             FmtInt(p.steady_write_iops)});
      for (const char* mix : {"write", "70/30"}) {
        double best = 0;
        for (const results::Curve& c : p.curves) {
          if (CurveName(c).find(mix) == std::string::npos) continue;
          for (const results::CurvePoint& pt : c.points) {
            const results::DirectionMetrics& tot = pt.metrics.total;
            if (tot.lat_ns.mean <= 1e6) best = std::max(best, tot.iops);
          }
        }
        rw.push_back(best > 0 ? FmtInt(best) : "-");
      }
      rw.push_back(VerdictCell(results::ToJson(p.steady_state)));
      trows.push_back(rw);
    }
    for (auto& v : rows.values)
      v["curve"] =
          v["curve"].get<std::string>().substr(v["curve"].get<std::string>().find(' ') + 1);
    struct LatencyCurve {
      const char* id;
      const char* name;   // "Mean latency"
      const char* title;  // "mean latency"
      const char* field;
    };
    for (const LatencyCurve& c :
         {LatencyCurve{"op-mean", "Mean latency", "mean latency", "mean_us"},
          LatencyCurve{"op-p9999", "99.99% latency", "99.99% latency", "p99_99_us"}}) {
      charts.push_back(ChartBlock(
          ctx.Id(c.id),
          std::string(c.name) +
              " against IOPS at each over-provisioning setting, one panel per mix; each point "
              "one queue depth (the number beside it), " +
              r.label,
          CurveChart(std::string("OP study: ") + c.title + " vs IOPS, " + r.label, rows, c.field,
                     std::string(c.name) + ", µs", "op", "Spare area", ctx, "curve")));
    }
  }
  if (bars.empty()) return nullptr;
  blocks.push_back(
      TableBlock(ctx.Id("op-table"),
                 "Over-provisioning: steady 4KiB random-write IOPS and the best IOPS at a mean "
                 "latency of 1 ms or less (any thread count and QD)",
                 json::array({"Drive", "Extra OP", "Range written", "Steady write IOPS",
                              "Write: IOPS at <= 1 ms", "70/30: IOPS at <= 1 ms", "Steady state"}),
                 trows));
  Append(blocks, charts);
  json bs = LineSpec("Steady 4KiB random-write IOPS by spare area", bars,
                     Q("op_pct", "Capacity left unused, %"), Q("iops", "IOPS"), "", "", ctx,
                     nullptr, "", kNarrow, kShort);
  blocks.push_back(ChartBlock(ctx.Id("op-steady"),
                              "Steady-state write IOPS against the share of capacity left unused",
                              bs));
  // One measurement window per setting: its own preconditioning, verdict and rounds.
  // Captured by a reference to it: clang 14 (clang-tidy's parser) refuses to capture a
  // structured binding, which C++20 allows.
  auto windows = [&runs = runs](const ReportRun& r, const json& test) {
    std::vector<SteadyWindow> out;
    for (const auto& [run, t, res] : runs) {
      if (run != &r || !res.ok()) continue;
      if (res->op_points.empty()) return DefaultWindows(test);
      for (const results::OpPoint& p : res->op_points) {
        if (!p.steady_state.required) continue;
        out.push_back({fmt::format("OP +{:g}%: ", p.op_pct), p.steady_state.variables,
                       TrackedSeries(RoundsOf(test), p.op_pct)});
      }
    }
    return out;
  };
  return SteadySection(
      ctx, name, blocks, "preconditioning at each setting",
      "The latency-vs-IOPS curves repeated with part of the capacity left unused after "
      "a purge: more spare area, less write amplification.",
      windows);
}

}  // namespace ssdlab::report::pts
