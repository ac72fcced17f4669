// The LVI test's section: latency against IOPS as the load grows (results/lvi.h), and the curve
// rows and charts the OP study draws too.
#include <fmt/format.h>

#include "report/pts_sections.h"

namespace ssdlab::report::pts {

std::string CurveName(const results::Curve& c) {
  const double rp = c.read_pct;
  std::string mix = rp >= 100 ? "read" : rp <= 0 ? "write" : MixLabel(rp);
  return BlockLabel(c.block_bytes) + " " + mix;
}

void AddCurves(CurveRows& out, const std::vector<results::Curve>& curves, const std::string& drive,
               const std::string& extra_key, const std::string& extra) {
  for (const results::Curve& c : curves) {
    for (const results::CurvePoint& p : c.points) {
      const results::DirectionMetrics& tot = p.metrics.total;
      auto us = [&](const char* key) { return R6(tot.lat_ns.Stat(key).value_or(0) / 1000); };
      int th = static_cast<int>(p.threads);
      out.threads.insert(th);
      json row = {{"drive", drive},
                  {"curve", CurveName(c)},
                  {"threads", th},
                  {"qd", static_cast<double>(p.qd)},
                  {"iops", R6(tot.iops)},
                  {"mean_us", us("mean")},
                  {"p99_us", us("p99")},
                  {"p99_9_us", us("p99_9")},
                  {"p99_99_us", us("p99_99")},
                  {"max_us", us("max")}};
      if (!extra_key.empty()) row[extra_key] = extra;
      out.values.push_back(row);
    }
  }
}

json CurveChart(const std::string& title, const CurveRows& rows, const std::string& y_field,
                const std::string& y_title, const std::string& series,
                const std::string& series_title, const Ctx& ctx, const std::string& panel) {
  json s = {{"title", title},
            {"data", {{"values", rows.values}}},
            {"columns", 3},
            {"facet", {{"field", panel}, {"type", "nominal"}, {"title", nullptr}}},
            {"resolve", {{"axis", {{"x", "independent"}, {"y", "independent"}}}}}};
  std::vector<int> th(rows.threads.begin(), rows.threads.end());
  s["params"] = ThreadsParam(th);
  s["transform"] = json::array(
      {{{"filter", "datum.threads == threads && datum.iops > 0 && datum." + y_field + " > 0"}}});
  json color = series.empty() ? json{{"value", "#0072b2"}} : N(series, series_title);
  if (!series.empty()) color["legend"] = {{"orient", "bottom"}, {"direction", "horizontal"}};
  json line = {{"x", Q("iops", "IOPS", true)},
               {"y", Q(y_field, y_title, true)},
               {"color", color},
               {"order", {{"field", "qd"}, {"type", "quantitative"}}},
               {"detail", N("drive", "Drive")}};
  // Several drives: the drive is the dash and the point shape too, unless it is the colour.
  if (ctx.multi && series != "drive") {
    line["strokeDash"] = DriveEnc();
    line["shape"] = DriveEnc();
  }
  json qd = {{"x", {{"field", "iops"}, {"type", "quantitative"}}},
             {"y", {{"field", y_field}, {"type", "quantitative"}}},
             {"text", {{"field", "qd"}, {"type", "quantitative"}, {"format", "d"}}},
             {"color", color}};
  s["spec"] = {
      {"width", 200},
      {"height", 170},
      {"layer",
       json::array(
           {{{"mark", {{"type", "line"}, {"point", true}, {"tooltip", true}}}, {"encoding", line}},
            {{"mark", {{"type", "text"}, {"dy", -8}, {"fontSize", 9}, {"opacity", 0.9}}},
             {"encoding", qd}}})}};
  return s;
}

// The rows of the section's parameter table.
static std::vector<ParamFact<results::LviResults>> LviFacts() {
  return {
      {"Stimulus",
       [](const PtsOptions& o, const results::LviResults&) {
         return fmt::format("random; threads {} x QD {}", ListNums(o.lvi_threads),
                            ListNums(o.lvi_qds));
       }},
      {"Block sizes", [](const PtsOptions& o,
                         const results::LviResults&) { return ListBytes(o.lvi_block_bytes); }},
      {"Read/write mixes",
       [](const PtsOptions& o, const results::LviResults&) { return ListMixes(o.lvi_mixes); }},
      {"Each point",
       [](const PtsOptions& o, const results::LviResults&) {
         return FullDriveOf(o).Duration(o.lvi_warmup_ns) + " warm-up + " +
                FullDriveOf(o).Duration(o.lvi_measure_ns) + " measured";
       }},
      {"Preconditioning",
       [](const PtsOptions&, const results::LviResults&) {
         return std::string("4KiB random write rounds until steady state");
       }},
  };
}

json LviSection(Ctx& ctx, const std::string& name) {
  auto [runs, blocks] = OpenSection(ctx, name, results::LviResultsFromJson, LviFacts());
  CurveRows rows;
  for (const auto& [run, test, res] : runs) {
    if (res.ok()) AddCurves(rows, res->curves, run->label);
  }
  if (rows.values.empty()) return nullptr;
  const std::vector<std::pair<std::string, std::string>> metrics = {{"mean_us", "Mean latency"},
                                                                    {"p99_us", "99% latency"},
                                                                    {"p99_9_us", "99.9% latency"},
                                                                    {"p99_99_us", "99.99% latency"},
                                                                    {"max_us", "Maximum latency"}};
  json charts = json::array();
  for (const auto& [field, title] : metrics) {
    charts.push_back(ChartBlock(
        ctx.Id("lvi-" + field.substr(0, field.size() - 3)),
        title + " against IOPS, one panel per block size and mix; each point one queue depth "
                "(the number beside it) at the selected thread count (log axes)",
        CurveChart(title + " vs IOPS", rows, field, title + ", µs", ctx.multi ? "drive" : "",
                   "Drive", ctx, "curve")));
  }
  Append(blocks, charts);
  return SteadySection(
      ctx, name, blocks, "workload-dependent preconditioning",
      "Latency against IOPS as the queue depth grows (1..32) at a chosen thread count: "
      "the throughput a drive delivers at a given response time.");
}

}  // namespace ssdlab::report::pts
