// Application tests (`ssdlab app`, apps/app.h) in the report: what the application got from
// the drive, and what the drive did meanwhile.
#include <fmt/format.h>

#include "report/model_internal.h"
#include "results/app.h"

namespace ssdlab::report {

namespace {

// True for a test stored by `ssdlab app` (results with "app" and "tps").
bool IsAppTest(const json& test) {
  const json& r = Get(test, "results");
  return Get(r, "app").is_string() && Get(r, "tps").is_number();
}

// A run's application test read through its typed form ("NAME.results").
Result<results::AppResults> ReadApp(const json& test) {
  return results::AppResultsFromJson(Get(test, "results"), Str(test, "name") + ".results");
}

}  // namespace

json AppRunFacts(const ReportRun& run) {
  const json& config = Get(Get(run.doc, "context"), "config");
  std::string server, client;
  for (const json& t : Get(run.doc, "tests")) {
    auto res = ReadApp(t);
    const json& s = res.ok() ? res->settings : json();
    server = Str(s, "server");
    client = Str(s, "client");
  }
  const std::string app = Str(config, "app");
  return {{"spec", "ssdlab app " + app + (server.empty() ? "" : ": " + server + ", " + client)},
          {"active_range", "the server's data directory under " + Str(config, "dir")},
          {"preconditioning",
           app == "pgbench" ? fmt::format("fresh cluster, pgbench tables at scale {}, {} s warm-up",
                                          Num(config, "scale"), Num(config, "warmup_s"))
                            : fmt::format("fresh data directory, {} tables x {} rows, {} s warm-up",
                                          Num(config, "tables"), Num(config, "table_rows"),
                                          Num(config, "warmup_s"))},
          {"rounds", "none: one timed run"},
          {"steady_state", "not applicable (application test)"}};
}

json AppSection(Ctx& ctx) {
  json rows = json::array(), tps = json::array(), dev = json::array(), damaged = json::array();
  auto ms = [](const std::optional<double>& v) { return v ? FmtNum(*v, 4) : "-"; };
  for (const ReportRun& r : ctx.runs) {
    for (const json& t : Get(r.doc, "tests")) {
      if (!IsAppTest(t)) continue;
      auto read = ReadApp(t);
      if (!read.ok()) {
        damaged.push_back(TextBlock(r.label + ": damaged: " + read.status().message()));
        continue;
      }
      const results::AppResults& res = *read;
      const results::AppLatencyMs& l = res.latency_ms;
      const json& s = res.settings;
      const results::DeviceSummary* d = res.device ? &res.device->summary : nullptr;
      std::string status = res.error ? *res.error : "complete";
      if (status.size() > 80) status = status.substr(0, 77) + "...";
      rows.push_back(json::array(
          {r.label, res.app, FmtNum(res.tps, 5), res.qps > 0 ? FmtNum(res.qps, 5) : "-", ms(l.mean),
           ms(l.p95), ms(l.p99), ms(l.max),
           d ? FmtInt(d->read_iops) + " / " + FmtInt(d->write_iops) : "-",
           d ? FmtNum(d->util_pct, 3) + "%" : "-",
           fmt::format("{} threads, {:g} s", Num(s, "threads"), Num(s, "time_s")), status}));
      const std::string series = ctx.multi ? r.label + ": " + res.app : res.app;
      for (const results::AppSecond& p : res.per_second) {
        json row = {
            {"t_s", R6(p.t_s)}, {"tps", R6(p.tps)}, {"lat_ms", R6(p.lat_ms)}, {"series", series}};
        if (ctx.multi) row["drive"] = r.label;
        tps.push_back(row);
      }
      if (!res.device) continue;
      for (const results::DeviceSecond& p : res.device->per_second) {
        for (const auto& [what, v] :
             {std::pair<const char*, double>{"read", p.read_iops}, {"write", p.write_iops}}) {
          json row = {{"t_s", R6(p.t_s)}, {"iops", R6(v)}, {"what", what}, {"series", series}};
          if (ctx.multi) row["drive"] = r.label;
          dev.push_back(row);
        }
      }
    }
  }
  if (rows.empty() && damaged.empty()) return nullptr;
  json blocks = damaged;
  if (!rows.empty()) {
    blocks.push_back(TableBlock(
        ctx.Id("app-table"), "Application results (latency per transaction, ms)",
        json::array({"Drive", "Test", "TPS", "QPS", "Mean", "p95", "p99", "Max",
                     "Device read / write IOPS", "Device busy", "Load", "Status"}),
        rows,
        json::array({"sysbench percentiles come from its latency histogram (~1.2% buckets); "
                     "pgbench percentiles from its per-transaction log.",
                     "Device figures: the block layer's counters of the drive under the data "
                     "directory, averaged over the measured seconds."})));
  }
  if (!tps.empty()) {
    blocks.push_back(ChartBlock(ctx.Id("app-tps"),
                                "Transactions per second during the measured run",
                                LineSpec("Application: TPS per second", tps, Q("t_s", "Time, s"),
                                         Q("tps", "TPS"), "series", "Test", ctx)));
    blocks.push_back(
        ChartBlock(ctx.Id("app-lat"),
                   "Latency per second: sysbench reports the interval's p99, pgbench its mean",
                   LineSpec("Application: latency per second", tps, Q("t_s", "Time, s"),
                            Q("lat_ms", "Latency, ms"), "series", "Test", ctx)));
  }
  if (!dev.empty()) {
    blocks.push_back(
        ChartBlock(ctx.Id("app-device"), "What the drive did meanwhile (block-layer counters)",
                   LineSpec("Drive IOPS during the application test", dev, Q("t_s", "Time, s"),
                            Q("iops", "IOPS"), "what", "Direction", ctx)));
  }
  return Section("app", "Application tests",
                 "Real database servers whose data lives on the drive under test, driven by "
                 "their usual benchmark clients (ssdlab app).",
                 blocks);
}

}  // namespace ssdlab::report
