// Single workloads in the report (`ssdlab run --db`, usecase/run.h): per run its workload, and
// per direction its IOPS, bandwidth and latency percentiles, runs side by side as drives are.
#include <fmt/format.h>

#include "report/model_internal.h"

namespace ssdlab::report {
namespace {

const json& ConfigOf(const ReportRun& run) { return Get(Get(run.doc, "context"), "config"); }

// "random 4 KiB" .. from the stored workload's data kind.
std::string DataPattern(const json& workload) {
  const json& d = Get(workload, "data");
  const std::string kind = Str(d, "kind");
  if (kind == "random") return "random (incompressible)";
  if (kind == "zero") return "zeros";
  if (kind.empty()) return "-";
  return fmt::format("{} {:g}%", kind, Num(d, "pct"));
}

// True for the test of a run stored by `ssdlab run --db` (named "run", with per-direction
// "results").
bool IsRunTest(const json& test) {
  return Str(test, "name") == "run" &&
         Get(Get(Get(test, "results"), "results"), "total").is_object();
}

}  // namespace

json RunRunFacts(const ReportRun& run) {
  const json& config = ConfigOf(run);
  const json& w = Get(config, "workload");
  const double range_end = Num(w, "range_end_bytes");
  return {{"spec", "ssdlab run: " + Str(config, "run")},
          {"active_range",
           fmt::format("{} .. {}", FmtInt(Num(w, "range_begin_bytes")), FmtInt(range_end))},
          {"preconditioning", Get(config, "prefill").is_boolean() && config["prefill"].get<bool>()
                                  ? "--prefill: the range written once sequentially"
                                  : "none (the target as it was)"},
          {"rounds", "none: one phase"},
          {"steady_state", "not applicable (one workload)"},
          {"data_pattern", DataPattern(w)}};
}

json RunSection(Ctx& ctx) {
  json rows = json::array(), iops = json::array(), lat = json::array();
  for (const ReportRun& r : ctx.runs) {
    for (const json& t : Get(r.doc, "tests")) {
      if (!IsRunTest(t)) continue;
      const json& res = Get(t, "results");
      const std::string workload = Str(Get(res, "workload"), "description");
      const std::string status =
          Get(res, "interrupted").is_boolean() && res["interrupted"].get<bool>()
              ? "interrupted (what was measured until Ctrl-C)"
              : Str(t, "status");
      const json& dirs = Get(res, "results");
      int used = 0;
      for (const char* d : {"read", "write", "trim"}) used += Num(Get(dirs, d), "ios") > 0;
      for (const char* d : {"read", "write", "trim", "total"}) {
        const json& m = Get(dirs, d);
        // An unused direction, or a total equal to its one direction, is not shown.
        if (Num(m, "ios") == 0 || (std::string(d) == "total" && used < 2)) continue;
        const json& l = Get(m, "lat_ns");
        rows.push_back(json::array(
            {r.label, workload, status, d, FmtInt(Num(m, "iops")),
             FmtNum(Num(m, "bw_bytes_per_s") / 1e6, 4), FmtUs(Num(l, "mean")), FmtUs(Num(l, "p50")),
             FmtUs(Num(l, "p99")), FmtUs(Num(l, "p99_9")), FmtUs(Num(l, "max"))}));
        json b = {{"direction", d}, {"iops", R6(Num(m, "iops"))}};
        if (ctx.multi) b["drive"] = r.label;
        iops.push_back(b);
        for (const char* p : {"p50", "p99", "p99_9"}) {
          json e = {{"direction", d}, {"pct", p}, {"lat_us", R6(Num(l, p) / 1000.0)}};
          if (ctx.multi) e["drive"] = r.label;
          lat.push_back(e);
        }
      }
    }
  }
  if (rows.empty()) return nullptr;
  json blocks = json::array();
  blocks.push_back(TableBlock(
      ctx.Id("run-table"), "Single workloads (latency in us)",
      json::array({"Drive", "Workload", "Status", "Direction", "IOPS", "MB/s", "Mean", "p50", "p99",
                   "p99.9", "Max"}),
      rows,
      json::array(
          {"Each run one workload for one duration or amount (ssdlab run --db); "
           "latency from submission to completion, percentiles from the run's histogram."})));
  blocks.push_back(ChartBlock(ctx.Id("run-iops"), "IOPS by direction",
                              BarSpec("IOPS", iops, N("direction", "Direction"), Q("iops", "IOPS"),
                                      N("direction", "Direction"), ctx)));
  blocks.push_back(ChartBlock(
      ctx.Id("run-lat"), "Latency percentiles by direction",
      BarSpec("Latency percentiles", lat, O("pct", "Percentile"), Q("lat_us", "Latency, us"),
              N("direction", "Direction"), ctx, "direction")));
  return Section("run", "Single workloads", "Workloads run with ssdlab run --db, one phase each.",
                 blocks);
}

}  // namespace ssdlab::report
