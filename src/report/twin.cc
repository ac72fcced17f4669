// The digital twin in the report (`ssdlab report RUN --twin sim:twin.toml [--what-if]`): the
// run's figures measured vs simulated on the twin, and what-if answers simulated on it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/model_internal.h"
#include "report/pts_sections.h"
#include "results/profile.h"

namespace ssdlab::report {
namespace {

std::string MetricTitle(const std::string& m) {
  if (m == "iops") return "IOPS";
  if (m == "mb_s") return "MB/s";
  if (m == "lat_mean_us") return "mean latency, µs";
  if (m == "lat_p99_us") return "p99 latency, µs";
  if (m == "lat_p99_9_us") return "p99.9 latency, µs";
  return m;
}

double RelError(const TwinFigure& f) {
  return f.measured > 0 ? std::fabs(f.simulated - f.measured) / f.measured : 1;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// "lat rnd rw=0/100 bs=4 KiB T1 Q1 lat_p99_us" -> "rnd rw=0/100 bs=4 KiB T1 Q1" (the cell).
std::string CellOf(const TwinFigure& f) {
  std::string s = f.name;
  if (s.rfind(f.test + " ", 0) == 0) s = s.substr(f.test.size() + 1);
  const std::string tail = " " + f.metric;
  if (pts::EndsWith(s, tail)) s = s.substr(0, s.size() - tail.size());
  return s;
}

const json* TestOf(const ReportRun& r, const std::string& name) { return FindTest(r.doc, name); }

json Figures(Ctx& ctx, const TwinReport& tr) {
  json blocks = json::array();
  std::vector<std::string> tests;
  std::map<std::string, std::vector<double>> errors;
  for (const TwinFigure& f : tr.figures) {
    if (std::find(tests.begin(), tests.end(), f.test) == tests.end()) tests.push_back(f.test);
    errors[f.test].push_back(RelError(f));
    errors["all"].push_back(RelError(f));
  }
  json summary = json::array();
  for (const std::string& t : tests) {
    const auto& e = errors[t];
    const auto within = std::count_if(e.begin(), e.end(), [](double x) { return x <= 0.1; });
    summary.push_back(
        json::array({pts::TestTitle(t), std::to_string(e.size()), FmtPct(100 * Median(e)),
                     fmt::format("{} of {}", within, e.size())}));
  }
  if (!tr.figures.empty())
    summary.push_back(json::array(
        {"All figures", errors["all"].size(), FmtPct(100 * Median(errors["all"])), ""}));
  blocks.push_back(TableBlock(ctx.Id("twin-errors"),
                              "Median relative error |simulated - measured| / measured, per test",
                              json::array({"Test", "Figures", "Median error", "Within 10%"}),
                              summary, json::array({tr.method})));
  if (!tr.policies.empty()) {
    json rows = json::array();
    for (const TwinPolicy& p : tr.policies) {
      std::string held;
      for (const auto& [test, e] : p.held_out_errors)
        if (test != "all") held += (held.empty() ? "" : ", ") + test + " " + FmtPct(100 * e);
      rows.push_back(json::array({p.gc, fmt::format("{:.4g}", p.objective), held}));
    }
    blocks.push_back(TableBlock(
        ctx.Id("twin-policies"), "GC victim policies at the twin's numbers (sim fit)",
        json::array({"Policy", "Training objective", "Held-out median error"}), rows,
        json::array({"Each policy judged by the run's tests re-run with it at the twin's other "
                     "values; the twin has the first. Objectives close together: the fitted "
                     "figures barely tell the policies apart, and what the policy moves "
                     "(sequential writes after random ones, the what-if answers) is uncertain."})));
  }

  // Measured against simulated, every figure, on log axes: on the diagonal is a perfect twin.
  json pts = json::array();
  double lo = HUGE_VAL, hi = 0;
  for (const TwinFigure& f : tr.figures) {
    if (!(f.measured > 0) || !(f.simulated > 0)) continue;
    pts.push_back({{"measured", R6(f.measured)},
                   {"simulated", R6(f.simulated)},
                   {"test", pts::TestTitle(f.test)},
                   {"figure", f.name}});
    lo = std::min({lo, f.measured, f.simulated});
    hi = std::max({hi, f.measured, f.simulated});
  }
  if (!pts.empty()) {
    json s =
        Spec("Every figure: measured vs simulated on the twin", json::array(), kNarrow, kNarrow);
    s.erase("data");
    json points = {{"data", {{"values", pts}}},
                   {"mark", {{"type", "point"}, {"filled", true}, {"tooltip", true}}},
                   {"encoding",
                    {{"x", Q("measured", "Measured (IOPS, MB/s or µs)", true)},
                     {"y", Q("simulated", "Simulated on the twin", true)},
                     {"color", N("test", "Test")},
                     {"tooltip", json::array({N("figure", "Figure"), Q("measured", "Measured"),
                                              Q("simulated", "Simulated")})}}}};
    json diagonal = {
        {"data",
         {{"values", json::array({{{"measured", R6(lo)}, {"simulated", R6(lo)}},
                                  {{"measured", R6(hi)}, {"simulated", R6(hi)}}})}}},
        {"mark", {{"type", "line"}, {"color", "#999"}, {"strokeDash", json::array({4, 4})}}},
        {"encoding",
         {{"x", Q("measured", "Measured (IOPS, MB/s or µs)", true)},
          {"y", Q("simulated", "Simulated on the twin", true)}}}};
    s["layer"] = json::array({diagonal, points});
    blocks.push_back(ChartBlock(ctx.Id("twin-scatter"),
                                "Each point a figure; on the dashed diagonal the twin is exact",
                                s));
  }

  // Per test and metric: measured and simulated side by side (curves along x for WSAT, HIR).
  json charts = json::array();
  Ctx one{ctx.runs, false};
  for (const std::string& t : tests) {
    std::vector<std::string> metrics;
    for (const TwinFigure& f : tr.figures)
      if (f.test == t && std::find(metrics.begin(), metrics.end(), f.metric) == metrics.end())
        metrics.push_back(f.metric);
    for (const std::string& m : metrics) {
      json values = json::array();
      for (const TwinFigure& f : tr.figures) {
        if (f.test != t || f.metric != m) continue;
        for (const auto& [what, v] :
             {std::pair<const char*, double>{"measured", f.measured}, {"twin", f.simulated}}) {
          if (!(v > 0)) continue;
          values.push_back(
              {{"cell", CellOf(f)}, {"x", R6(f.x)}, {"value", R6(v)}, {"source", what}});
        }
      }
      const std::string title = pts::TestTitle(t) + ": " + MetricTitle(m);
      const bool curve = t == "wsat" || t == "hir";
      json spec =
          curve
              ? LineSpec(title, values,
                         Q("x", t == "wsat" ? "Capacities written" : "Wait between bursts, s"),
                         Q("value", MetricTitle(m)), "source", "", one, nullptr, "x", kNarrow,
                         kShort)
              : [&] {
                  json b = BarSpec(title, values, N("cell", "Cell", nullptr),
                                   Q("value", MetricTitle(m)), N("source", ""), one, "", true,
                                   std::max(220, 36 * static_cast<int>(values.size() / 2)), kShort);
                  b["encoding"]["xOffset"] = N("source", "");
                  return b;
                }();
      charts.push_back(ChartBlock(ctx.Id("twin-" + t + "-" + m), title, spec));
    }
  }
  for (json& c : charts) blocks.push_back(std::move(c));

  json rows = json::array();
  for (const TwinFigure& f : tr.figures)
    rows.push_back(
        json::array({f.name, FmtNum(f.measured, 4), f.simulated > 0 ? FmtNum(f.simulated, 4) : "-",
                     f.simulated > 0 ? FmtPct(100 * RelError(f)) : "-"}));
  blocks.push_back(TableBlock(ctx.Id("twin-figures"), "Every figure",
                              json::array({"Figure", "Measured", "Twin", "Error"}), rows,
                              json::array({"'-': the twin's run has no such figure (e.g. WSAT "
                                           "ended in another bin)."})));
  return blocks;
}

// The sustained IOPS at each OP of the OP advisor run (levels[0].results.points); a damaged
// one says why.
json OpBlocks(Ctx& ctx, const ReportRun& r) {
  json blocks = json::array();
  for (const json& t : Get(r.doc, "tests")) {
    if (!IsProfileTest(t)) continue;
    auto res = results::ProfileResultsFromJson(Get(t, "results"), Str(t, "name") + ".results");
    if (!res.ok()) {
      blocks.push_back(TextBlock("damaged: " + res.status().message()));
      continue;
    }
    if (res->levels.empty()) continue;
    const auto* op = std::get_if<results::OpAdvisorResults>(&res->levels[0].results);
    if (!op) continue;
    json values = json::array(), rows = json::array();
    double base = 0;
    for (const results::OpAdvisorPoint& p : op->points) {
      if (base == 0) base = p.sustained_iops;
      for (const auto& [what, v] :
           {std::pair<const char*, double>{"sustained (last third)", p.sustained_iops},
            {"fresh (first tenth)", p.initial_iops}})
        values.push_back({{"op", R6(p.op_pct)}, {"iops", R6(v)}, {"what", what}});
      rows.push_back(
          json::array({FmtNum(p.op_pct, 3) + "%", FmtInt(p.initial_iops), FmtInt(p.sustained_iops),
                       base > 0 ? FmtPct(100 * (p.sustained_iops / base - 1)) : "-"}));
    }
    if (rows.empty()) continue;
    Ctx one{ctx.runs, false};
    blocks.push_back(RowBlock(json::array(
        {ChartBlock(ctx.Id("whatif-op"), "4 KiB random write IOPS with more spare area",
                    LineSpec("OP advisor on the twin", values, Q("op", "OP, % of capacity unused"),
                             Q("iops", "4 KiB random write IOPS"), "what", "", one, nullptr, "op",
                             kNarrow, kShort)),
         TableBlock(ctx.Id("whatif-op-table"), "OP advisor on the twin",
                    json::array({"OP", "Fresh IOPS", "Sustained IOPS", "Sustained vs first"}),
                    rows)})));
  }
  return blocks;
}

json WsatBlocks(Ctx& ctx, const ReportRun& r) {
  const json* t = TestOf(r, "wsat");
  if (!t) return json::array();
  json values = json::array();
  for (const json& p : Get(Get(*t, "results"), "per_round"))
    values.push_back({{"x", R6(Num(p, "written_capacities"))},
                      {"iops", R6(Num(Get(p, "total"), "iops"))},
                      {"series", "twin"}});
  if (values.empty()) return json::array();
  Ctx one{ctx.runs, false};
  const double first = values.front()["iops"], last = values.back()["iops"];
  return json::array({ChartBlock(
      ctx.Id("whatif-wsat"),
      fmt::format("WSAT to 4 capacities on the twin: {} IOPS fresh, {} IOPS after {} capacities",
                  FmtInt(first), FmtInt(last), FmtNum(values.back()["x"].get<double>(), 3)),
      LineSpec("Write saturation on the twin", values, Q("x", "Capacities written"),
               Q("iops", "4 KiB random write IOPS"), "", "", one, nullptr, "x", kWide, kShort))});
}

// IOPS and TP cells of one twin and of the arrays.
json ArrayBlocks(Ctx& ctx, const TwinReport& tr) {
  json values = json::array(), rows = json::array();
  for (const auto& [role, r] : tr.what_if) {
    if (role != "single" && role != "raid10" && role != "raid5") continue;
    auto add = [&, &r = r](const json& cells, bool tp) {  // clang before 16: no binding capture
      for (const json& c : cells) {
        const json& total = Get(c, "total");
        const double v = tp ? Num(total, "bw_bytes_per_s") / 1e6 : Num(total, "iops");
        const std::string cell = (tp ? "seq " : "rnd ") + Str(c, "cell");
        values.push_back({{"config", r.label},
                          {"cell", cell},
                          {"value", R6(v)},
                          {"unit", tp ? "MB/s" : "IOPS"}});
        rows.push_back(json::array({r.label, cell, tp ? FmtNum(v, 4) + " MB/s" : FmtInt(v)}));
      }
    };
    if (const json* t = TestOf(r, "iops")) add(Get(Get(*t, "results"), "cells"), false);
    if (const json* t = TestOf(r, "tp"))
      for (const json& b : Get(Get(*t, "results"), "by_block")) add(Get(b, "cells"), true);
  }
  if (values.empty()) return json::array();
  json blocks = json::array();
  Ctx one{ctx.runs, false};
  for (const char* unit : {"IOPS", "MB/s"}) {
    json part = json::array();
    for (const json& v : values)
      if (v["unit"] == unit) part.push_back(v);
    if (part.empty()) continue;
    json s = BarSpec(std::string("One twin and arrays of four: ") + unit, part,
                     N("cell", "Cell", nullptr), Q("value", unit), N("config", "Drive"), one, "",
                     true, 320, kShort);
    s["encoding"]["xOffset"] = N("config", "Drive", nullptr);
    blocks.push_back(ChartBlock(
        ctx.Id(std::string("whatif-arrays-") + (std::string(unit) == "IOPS" ? "iops" : "tp")),
        std::string("Steady ") + unit + " (PTS rounds, short)", s));
  }
  blocks.push_back(TableBlock(ctx.Id("whatif-arrays-table"), "One twin, RAID 10 and RAID 5 of four",
                              json::array({"Drive", "Cell", "Steady state"}), rows,
                              json::array({"md-style layouts, 64 KiB chunks (sim/raid.h); "
                                           "each configuration purged and preconditioned."})));
  return blocks;
}

}  // namespace

json TwinSections(Ctx& ctx, const TwinReport& tr) {
  json sections = json::array();
  if (!tr.figures.empty())
    sections.push_back(Section("twin", "Measured vs twin",
                               "Every figure of the run beside the same figure simulated on the "
                               "twin " +
                                   tr.target + ".",
                               Figures(ctx, tr)));
  json blocks = json::array();
  for (const auto& [role, r] : tr.what_if) {
    if (role == "op") Append(blocks, OpBlocks(ctx, r));
    if (role == "wsat") Append(blocks, WsatBlocks(ctx, r));
  }
  Append(blocks, ArrayBlocks(ctx, tr));
  if (!blocks.empty())
    sections.push_back(Section(
        "whatif", "What if (on the twin)",
        "Answers simulated on the twin " + tr.target +
            ": more spare area (the OP advisor profile), writing 4 capacities (WSAT), and arrays "
            "of four such drives. Predictions of the model, not measurements.",
        blocks));
  return sections;
}

}  // namespace ssdlab::report
