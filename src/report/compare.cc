// The comparison of two or more PTS runs: each test's headline figures (the means of its tracked
// variables over its steady-state window) side by side, each run's difference from the first in
// percent beside the spread of the steady rounds, and bars of every figure relative to the first
// run with the steady rounds' range.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/pts_sections.h"

namespace ssdlab::report::pts {
namespace {

// One headline figure of one run: the steady window's mean, lowest and highest round (in the
// report's unit) and its data excursion (max - min as a percent of the mean).
struct Headline {
  double mean = 0, lo = 0, hi = 0, spread_pct = 0;
};

// The report's unit of a tracking variable and its value in it.
std::string FigureUnit(const Ctx& ctx, const std::string& var) {
  if (EndsWith(var, " bw")) return ctx.RateUnit();
  if (EndsWith(var, " mean_ns")) return "µs";
  if (EndsWith(var, " iops")) return "IOPS";
  return "";
}
double InUnit(const Ctx& ctx, const std::string& var, double v) {
  return EndsWith(var, " bw") ? ctx.Rate(v) : VarScale(var) * v;
}
// Latencies are better lower; rates higher.
bool LowerIsBetter(const std::string& var) { return EndsWith(var, "_ns"); }

// The headline figures of a run's test: its own window's variables (DefaultWindows).
std::map<std::string, Headline> HeadlinesOf(const Ctx& ctx, const json& test) {
  std::map<std::string, Headline> out;
  for (const SteadyWindow& w : DefaultWindows(test)) {
    for (const auto& [var, v] : w.variables) {
      if (!(v.mean > 0)) continue;
      Headline h{InUnit(ctx, var, v.mean), 0, 0, v.range_pct};
      h.lo = h.hi = h.mean;
      auto it = w.series.find(var);
      if (it != w.series.end()) {
        const std::vector<double>& y = it->second;
        const size_t first = v.window_first_round;
        const size_t end = std::min(y.size(), first + v.window_rounds);
        for (size_t i = first; i < end; ++i) {
          if (i == first) h.lo = h.hi = InUnit(ctx, var, y[i]);
          h.lo = std::min(h.lo, InUnit(ctx, var, y[i]));
          h.hi = std::max(h.hi, InUnit(ctx, var, y[i]));
        }
      }
      out[var] = h;
    }
  }
  return out;
}

// "+238.5%: larger than the noise (29.8%)" / "+2.0%: within the noise (29.8%)", classed good or
// bad by whether the difference is better or worse, muted when within the noise.
json DifferenceCell(const std::string& var, const Headline& base, const Headline& h) {
  const double diff_pct = (h.mean / base.mean - 1) * 100;
  const double noise_pct = std::max(base.spread_pct, h.spread_pct);
  const std::string diff = fmt::format("{}{}", diff_pct >= 0 ? "+" : "", FmtPct(diff_pct, 1));
  if (std::fabs(diff_pct) <= noise_pct)
    return Cell(diff + ": within the noise (" + FmtPct(noise_pct, 1) + ")", "muted");
  const bool better = LowerIsBetter(var) ? diff_pct < 0 : diff_pct > 0;
  return Cell(diff + ": larger than the noise (" + FmtPct(noise_pct, 1) + ")",
              better ? "good" : "bad");
}

}  // namespace

json CompareSection(Ctx& ctx) {
  if (ctx.runs.size() < 2) return nullptr;
  const ReportRun& first = ctx.runs.front();
  json cols = json::array({"Test", "Figure (steady-state mean)"});
  for (const ReportRun& r : ctx.runs) cols.push_back(r.label);
  for (size_t i = 1; i < ctx.runs.size(); ++i)
    cols.push_back(ctx.runs[i].label + " vs " + first.label);
  json rows = json::array();
  json bars = json::array();
  std::vector<std::string> figure_order;
  for (const std::string& name : TestsPresent(ctx)) {
    // Each run's figures of this test; the figures are the first run's (a figure only another
    // run tracks has nothing to be compared with).
    std::vector<std::map<std::string, Headline>> of_run;
    for (const ReportRun& r : ctx.runs) {
      const json* t = FindTest(r.doc, name);
      of_run.push_back(t ? HeadlinesOf(ctx, *t) : std::map<std::string, Headline>{});
    }
    for (const auto& [var, base] : of_run.front()) {
      const std::string unit = FigureUnit(ctx, var);
      const std::string figure = VarLabel(var);
      json row = json::array({TestTitle(name), figure});
      for (const auto& figures : of_run) {
        auto it = figures.find(var);
        row.push_back(it == figures.end()
                          ? json("not run")
                          : json(fmt::format("{} {} (rounds within {})", FmtNum(it->second.mean, 4),
                                             unit, FmtPct(it->second.spread_pct, 1))));
      }
      for (size_t i = 1; i < of_run.size(); ++i) {
        auto it = of_run[i].find(var);
        row.push_back(it == of_run[i].end() ? Cell("not run", "muted")
                                            : DifferenceCell(var, base, it->second));
      }
      rows.push_back(row);
      const std::string bar_label = name + ": " + figure;
      figure_order.push_back(bar_label);
      for (size_t i = 0; i < of_run.size(); ++i) {
        auto it = of_run[i].find(var);
        if (it == of_run[i].end()) continue;
        bars.push_back({{"figure", bar_label},
                        {"drive", ctx.runs[i].label},
                        {"pct", R6(it->second.mean / base.mean * 100)},
                        {"lo", R6(it->second.lo / base.mean * 100)},
                        {"hi", R6(it->second.hi / base.mean * 100)}});
      }
    }
  }
  if (rows.empty()) return nullptr;
  json blocks = json::array();
  blocks.push_back(TableBlock(
      ctx.Id("compare-table"), "Differences from " + first.label, cols, rows,
      json::array(
          {"Each figure is the mean of a test's tracking variable over its steady-state window "
           "(the rounds the verdict judged); \"rounds within\" is that window's data excursion, "
           "its highest round minus its lowest as a percent of its mean.",
           "A difference is within the noise when it is no larger than the larger of the two "
           "runs' excursions: the rounds of one drive alone vary that much. Green: better "
           "(higher IOPS and MB/s, lower latency), red: worse, grey: within the noise."})));
  const size_t n = ctx.runs.size();
  json s = Spec("Headline figures relative to " + first.label, bars, kNarrow,
                static_cast<int>(figure_order.size() * n * 12 + 20));
  json y = N("figure", "", figure_order);
  y["title"] = nullptr;
  y["axis"] = {{"labelLimit", 320}};
  json order = json::array();  // the drives in the report's order, the first on top
  for (const ReportRun& r : ctx.runs) order.push_back(r.label);
  s["encoding"] = {
      {"y", y},
      {"yOffset", N("drive", "Drive", order)},
      {"color", N("drive", "Drive", order)},
      {"tooltip", json::array({N("figure", "Figure"), DriveEnc(), Q("pct", "% of " + first.label),
                               Q("lo", "lowest round"), Q("hi", "highest round")})}};
  s["layer"] = json::array(
      {{{"mark", {{"type", "bar"}}},
        {"encoding",
         {{"x", Q("pct", "% of " + first.label + " (line: the steady rounds' range)")}}}},
       {{"mark", {{"type", "rule"}, {"color", "#222222"}}},
        {"encoding",
         {{"x", Q("lo", "")}, {"x2", {{"field", "hi"}}}, {"color", {{"value", "#222222"}}}}}}});
  s["config"] = {{"legend", {{"orient", "bottom"}}}};
  blocks.push_back(
      ChartBlock(ctx.Id("compare-bars"),
                 "Each drive's headline figures side by side, as a percent of " + first.label +
                     "'s; the black line spans the steady window's lowest to highest round",
                 s));
  return Section("compare", "Comparison",
                 "Every test's headline figures of the drives side by side: the difference from " +
                     first.label +
                     " in percent, with the spread of the steady-state rounds beside "
                     "it, so a difference smaller than the noise reads as such.",
                 blocks);
}

}  // namespace ssdlab::report::pts
