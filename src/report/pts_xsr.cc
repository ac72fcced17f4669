// The XSR test's section: write throughput over the three segments in sequence and how soon
// the last recovered (results/xsr.h).
#include <fmt/format.h>

#include <algorithm>

#include "report/pts_sections.h"
#include "results/xsr.h"

namespace ssdlab::report::pts {

json XsrSection(Ctx& ctx, const std::string& name) {
  using results::XsrResults;
  const auto runs = ReadResults<XsrResults>(ctx, name, results::XsrResultsFromJson);
  json blocks = json::array();
  json values = json::array(), trows = json::array(), seg_sort = json::array(),
       notes = json::array();
  for (const auto& [run, test, res] : runs) {
    if (!res.ok()) continue;
    const ReportRun& r = *run;
    const FullDrive full = FullDriveOf(r);
    double offset = 0;
    for (const results::XsrSegment& seg : res->segments) {
      if (std::find(seg_sort.begin(), seg_sort.end(), json(seg.name)) == seg_sort.end())
        seg_sort.push_back(seg.name);
      double end = 0;
      for (const auto& [ts, bw] : seg.series_bw) {
        end = std::max(end, ts);
        values.push_back({{"drive", r.label},
                          {"segment", seg.name},
                          {"time_min", R6(full.Seconds(offset + ts) / 60)},
                          {"rate", R6(ctx.Rate(bw))}});
      }
      offset += end > 0 ? end : static_cast<double>(seg.metrics.measured_ns) / 1e9;
      const results::DirectionMetrics& tot = seg.metrics.total;
      trows.push_back(json::array(
          {r.label, seg.name, fmt::format("{:.1f}", ctx.Rate(tot.bw_bytes_per_s)), FmtInt(tot.iops),
           FmtUs(tot.lat_ns.mean), FmtUs(tot.lat_ns.Stat("p99_99").value_or(0))}));
    }
    notes.push_back(
        res->recovered ? fmt::format("{}: segment C reached 90% of A's settled {:.1f} {} after {}.",
                                     r.label, ctx.Rate(res->settled_seq_write_bytes_per_s),
                                     ctx.RateUnit(), full.Duration(res->recovery_time_s * 1e9))
                       : r.label + ": segment C did not recover to 90% of A's settled throughput.");
  }
  if (values.empty()) return nullptr;
  blocks.push_back(TableBlock(
      ctx.Id("xsr-table"),
      "Cross-stimulus recovery: sequential 1024KiB writes, random 8KiB writes, sequential again",
      json::array({"Drive", "Segment", ctx.RateUnit(), "IOPS", "Mean, µs", "99.99%, µs"}), trows,
      notes));
  json s = LineSpec("XSR: write throughput against time", values, Q("time_min", "Time, minutes"),
                    Q("rate", ctx.RateUnit()), "segment", "Segment", ctx, seg_sort);
  s["mark"] = {{"type", "line"}, {"tooltip", true}};
  blocks.push_back(
      ChartBlock(ctx.Id("xsr-bw"), "Throughput of the three access patterns in sequence", s));
  return Section(name, "Cross-stimulus recovery",
                 "How quickly sequential write throughput returns after a period of random writes.",
                 blocks);
}

}  // namespace ssdlab::report::pts
