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

// A test's headline figures (HeadlineFigures) by variable, in the report's unit.
std::map<std::string, HeadlineFigure> HeadlinesOf(const Ctx& ctx, const json& test) {
  std::map<std::string, HeadlineFigure> out;
  for (HeadlineFigure& f : HeadlineFigures(test, ctx.binary_units)) out[f.variable] = f;
  return out;
}

// "+238.5%: larger than the noise (29.8%)" / "+2.0%: within the noise (29.8%)", classed good or
// bad by whether the difference is better or worse, muted when within the noise.
json DifferenceCell(const HeadlineFigure& base, const HeadlineFigure& h) {
  const double diff_pct = (h.mean / base.mean - 1) * 100;
  const double noise_pct = std::max(base.spread_pct, h.spread_pct);
  const std::string diff = fmt::format("{}{}", diff_pct >= 0 ? "+" : "", FmtPct(diff_pct, 1));
  if (std::fabs(diff_pct) <= noise_pct)
    return Cell(diff + ": within the noise (" + FmtPct(noise_pct, 1) + ")", "muted");
  const bool better = base.lower_is_better ? diff_pct < 0 : diff_pct > 0;
  return Cell(diff + ": larger than the noise (" + FmtPct(noise_pct, 1) + ")",
              better ? "good" : "bad");
}

}  // namespace

}  // namespace ssdlab::report::pts

namespace ssdlab {

using nlohmann::json;

std::vector<HeadlineFigure> HeadlineFigures(const json& test, bool binary_units) {
  using report::pts::EndsWith;
  std::vector<HeadlineFigure> out;
  for (const report::pts::SteadyWindow& w : report::pts::DefaultWindows(test)) {
    for (const auto& [var, v] : w.variables) {
      if (!(v.mean > 0)) continue;
      const bool bw = EndsWith(var, " bw");
      // A local, not the binding itself: a lambda capturing a structured binding is C++20
      // that clang 14 (clang-tidy's parser) does not accept.
      const double scale = report::pts::VarScale(var);
      auto in_unit = [&](double x) {
        return bw ? x / (binary_units ? 1048576.0 : 1e6) : scale * x;
      };
      HeadlineFigure f;
      f.variable = var;
      f.cell = var.substr(0, var.rfind(' '));
      f.label = report::pts::VarLabel(var);
      f.unit = bw                          ? (binary_units ? "MiB/s" : "MB/s")
               : EndsWith(var, " mean_ns") ? "µs"
               : EndsWith(var, " iops")    ? "IOPS"
                                           : "";
      f.lower_is_better = EndsWith(var, "_ns");
      f.mean = f.lo = f.hi = in_unit(v.mean);
      f.spread_pct = v.range_pct;
      auto it = w.series.find(var);
      if (it != w.series.end()) {
        const std::vector<double>& y = it->second;
        const size_t first = v.window_first_round;
        const size_t end = std::min(y.size(), first + v.window_rounds);
        for (size_t i = first; i < end; ++i) {
          if (i == first) f.lo = f.hi = in_unit(y[i]);
          f.lo = std::min(f.lo, in_unit(y[i]));
          f.hi = std::max(f.hi, in_unit(y[i]));
        }
      }
      out.push_back(f);
    }
  }
  return out;
}

std::string HeadlineValue(const HeadlineFigure& f) {
  const std::string v = report::FmtNum(f.mean, 4);
  return f.unit.empty() ? v : v + " " + f.unit;
}

json HeadlinesJson(const std::vector<HeadlineFigure>& figures) {
  json out = json::array();
  for (const HeadlineFigure& f : figures)
    out.push_back({{"variable", f.variable},
                   {"label", f.label},
                   {"unit", f.unit},
                   {"mean", report::R6(f.mean)},
                   {"lo", report::R6(f.lo)},
                   {"hi", report::R6(f.hi)},
                   {"spread_pct", report::R6(f.spread_pct)}});
  return out;
}

}  // namespace ssdlab

namespace ssdlab::report::pts {

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
    std::vector<std::map<std::string, HeadlineFigure>> of_run;
    for (const ReportRun& r : ctx.runs) {
      const json* t = FindTest(r.doc, name);
      of_run.push_back(t ? HeadlinesOf(ctx, *t) : std::map<std::string, HeadlineFigure>{});
    }
    for (const auto& [var, base] : of_run.front()) {
      const std::string unit = base.unit;
      const std::string figure = base.label;
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
                                            : DifferenceCell(base, it->second));
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
