// The DIRTH and ECW tests' section: IOPS and response time over the threads x QD sweep and the
// latency histograms of the selected points (results/sweep.h).
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/pts_sections.h"
#include "results/sweep.h"

namespace ssdlab::report::pts {

namespace {

// Log-linear histogram buckets rebinned to 8 bins per power of two: [{us, pct}].
json Rebin(const std::vector<std::pair<uint64_t, uint64_t>>& buckets) {
  std::map<int, double> bins;
  double total = 0;
  for (const auto& [lower_ns, count] : buckets) {
    double low = std::max(1.0, static_cast<double>(lower_ns));
    double c = static_cast<double>(count);
    bins[static_cast<int>(std::floor(std::log2(low) * 8))] += c;
    total += c;
  }
  json out = json::array();
  for (auto& [k, c] : bins)
    out.push_back({{"us", R6(std::pow(2.0, k / 8.0) / 1000)}, {"pct", R6(100 * c / total)}});
  return out;
}

}  // namespace

json SweepSection(Ctx& ctx, const std::string& name) {
  using results::SweepResults;
  const auto runs = ReadResults<SweepResults>(ctx, name, results::SweepResultsFromJson);
  bool ecw = name == "ecw";
  json blocks = json::array();
  blocks.push_back(ParamsTable<SweepResults>(
      ctx, name, runs,
      {
          {"Stimulus",
           [ecw](const PtsOptions&, const SweepResults&) {
             return std::string(ecw ? "Enterprise composite workload: mixed block sizes "
                                      "0.5..64KiB, 40% read, zoned access (50/5, 30/15, 20/80)"
                                    : "8KiB random, 65% read");
           }},
          {"Threads x QD",
           [](const PtsOptions& o, const SweepResults&) {
             return "threads " + ListNums(o.dirth_threads) + " x QD " + ListNums(o.dirth_qds);
           }},
          {"Histograms",
           [](const PtsOptions& o, const SweepResults&) {
             return FullDriveOf(o).Duration(o.dirth_histogram_ns) +
                    " at the max-IOPS point (mean below " + FmtUs(o.dirth_max_mean_ns) +
                    " µs), a middle and the min-IOPS point";
           }},
      }));
  json curves = json::array(), hists = json::array(), maps = json::array(), trows = json::array();
  for (const auto& [run, test, res] : runs) {
    if (!res.ok()) continue;
    const ReportRun& r = *run;
    json cells = json::array();
    for (const results::CellResult& c : res->cells) {
      const std::string& cell = c.cell;
      if (cell.size() < 4 || cell[0] != 'T') continue;
      int th = std::atoi(cell.c_str() + 1);
      auto q = cell.find('Q');
      int qd = q == std::string::npos ? 0 : std::atoi(cell.c_str() + q + 1);
      const results::DirectionMetrics& tot = c.metrics.total;
      json row = {{"drive", r.label},
                  {"threads", th},
                  {"qd", qd},
                  {"iops", R6(tot.iops)},
                  {"mean_us", R6(tot.lat_ns.mean / 1000)},
                  {"p99_99_us", R6(tot.lat_ns.Stat("p99_99").value_or(0) / 1000)}};
      cells.push_back(row);
      curves.push_back(row);
    }
    json ms = Spec(fmt::format("{} map: {}", ecw ? "ECW" : "DIRTH", r.label), cells, 300, 260);
    ms["encoding"] = {{"x",
                       {{"field", "qd"},
                        {"type", "ordinal"},
                        {"title", "Queue depth per thread"},
                        {"axis", {{"labelAngle", 0}}}}},
                      {"y",
                       {{"field", "threads"},
                        {"type", "ordinal"},
                        {"title", "Threads"},
                        {"sort", "descending"}}}};
    ms["layer"] = json::array(
        {{{"mark", {{"type", "rect"}, {"tooltip", true}}},
          {"encoding",
           {{"color",
             {{"field", "iops"},
              {"type", "quantitative"},
              {"title", "IOPS"},
              // Room between the title and the gradient's top label (which stands centred on
              // the gradient's end, half above it).
              {"legend", {{"titlePadding", 10}, {"format", "~s"}}},
              {"scale", {{"scheme", "viridis"}, {"zero", true}}}}}}}},
         {{"mark", {{"type", "text"}, {"fontSize", 9}}},
          {"transform",
           json::array(
               {{{"joinaggregate",
                  json::array({{{"op", "max"}, {"field", "iops"}, {"as", "max_iops"}}})}}})},
          {"encoding",
           {{"text", {{"field", "iops"}, {"type", "quantitative"}, {"format", ".3s"}}},
            {"color",
             {{"condition", {{"test", "datum.iops > 0.6 * datum.max_iops"}, {"value", "black"}}},
              {"value", "white"}}}}}}});
    maps.push_back(ChartBlock(ctx.Id(name + "-map"),
                              "IOPS at every thread count and queue depth, " + r.label, ms));
    json h = json::array();
    for (const results::SweepPoint& sel : res->selected) {
      for (json b : Rebin(sel.histogram)) {
        b["point"] = sel.point;
        h.push_back(b);
      }
      const results::DirectionMetrics& tot = sel.metrics.total;
      auto us = [&](const char* key) { return FmtUs(tot.lat_ns.Stat(key).value_or(0)); };
      trows.push_back(json::array({r.label, sel.point, FmtInt(tot.iops), us("mean"), us("p99"),
                                   us("p99_9"), us("p99_99"), us("max")}));
    }
    if (!h.empty()) {
      json hs = Spec(fmt::format("Response-time histograms: {}", r.label), h, kNarrow, kShort);
      hs["mark"] = {{"type", "line"},
                    {"interpolate", "step-after"},
                    {"point", {{"size", 8}}},
                    {"tooltip", true}};
      hs["encoding"] = {{"x", Q("us", "Latency, µs", true)},
                        {"y", Q("pct", "Share of I/Os, %")},
                        {"color", N("point", "Point")}};
      hists.push_back(ChartBlock(
          ctx.Id(name + "-hist"),
          "Latency histograms of the selected points (8 bins per doubling), " + r.label, hs));
    }
  }
  if (curves.empty()) return nullptr;
  blocks.push_back(RowBlock(maps));
  json cs = LineSpec(fmt::format("{}: mean response time against IOPS", ecw ? "ECW" : "DIRTH"),
                     curves, Q("iops", "IOPS", true), Q("mean_us", "Mean latency, µs", true),
                     "threads", "Threads", ctx, nullptr, "qd");
  cs["encoding"]["color"]["type"] = "ordinal";
  cs["encoding"]["detail"] = N("drive", "Drive");
  blocks.push_back(ChartBlock(ctx.Id(name + "-curves"),
                              "One line per thread count, queue depth growing along it (log axes)",
                              cs));
  if (!hists.empty()) blocks.push_back(RowBlock(hists));
  if (!trows.empty()) {
    blocks.push_back(TableBlock(
        ctx.Id(name + "-selected"), "Selected points (latency in µs)",
        json::array({"Drive", "Point", "IOPS", "Mean", "99%", "99.9%", "99.99%", "Max"}), trows));
  }
  return SteadySection(
      ctx, name, blocks, "IOPS at the largest load",
      ecw ? "The enterprise composite workload swept over thread counts and queue "
            "depths, with latency histograms of selected points."
          : "Demand intensity: IOPS and response time over thread counts and queue "
            "depths, with latency histograms of selected points.");
}

}  // namespace ssdlab::report::pts
