// The WSAT test's section: IOPS, latency and the simulator's write amplification over the
// rounds of continuous random writes from a fresh drive (results/wsat.h).
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/pts_sections.h"
#include "results/wsat.h"

namespace ssdlab::report::pts {

// The rows of the section's parameter table.
static std::vector<ParamFact<results::WsatResults>> WsatFacts() {
  return {
      {"Stimulus",
       [](const PtsOptions&, const results::WsatResults& t) {
         return "4KiB random write, continuous, from a purged (fresh) drive; " +
                std::to_string(t.per_round.size()) + " rounds";
       }},
      {"Round",
       [](const PtsOptions& o, const results::WsatResults&) {
         return FullDriveOf(o).Duration(o.wsat_round_ns);
       }},
      {"Ends after",
       [](const PtsOptions& o, const results::WsatResults&) {
         return fmt::format("{:g}x the capacity written or {:g} rounds", o.wsat_capacity_multiple,
                            static_cast<double>(o.wsat_max_rounds));
       }},
  };
}

// The statistic (field "stat", in `order`) as one channel of the encoding, each value mapped
// to the same place of `range` (a colour, a dash pattern).
static json StatChannel(const json& order, json range) {
  return {{"field", "stat"},
          {"type", "nominal"},
          {"title", "Statistic"},
          {"sort", order},
          {"scale", {{"domain", order}, {"range", std::move(range)}}}};
}

// Latency statistics against time [{time_min, stat, us}]: each statistic its own colour and
// dash, from the maximum (solid) down to the mean.
static json PercentileLines(const std::string& title, json lat, int width) {
  const json order = json::array({"max", "99.99%", "99.9%", "99%", "mean"});
  json s = Spec(title, std::move(lat), width, kTall);
  s["mark"] = {{"type", "line"}, {"tooltip", true}, {"strokeWidth", 1.6}};
  s["encoding"] = {
      {"x", Q("time_min", "Time, minutes")},
      {"y", Q("us", "Latency, µs", true)},
      {"color",
       StatChannel(order, json::array({"#000000", "#d55e00", "#e69f00", "#009e73", "#0072b2"}))},
      {"strokeDash", StatChannel(order, json::array({json::array({1, 0}), json::array({8, 3}),
                                                     json::array({4, 3}), json::array({1, 3}),
                                                     json::array({10, 3, 2, 3})}))}};
  return s;
}

// " Mean and 99% coincide in N of M rounds (...)": the statistics equal (within 1%) in at least
// half the rounds, so one line hides the other; "" when none do.
static std::string CoincideNote(const json& lat) {
  std::map<double, std::map<std::string, double>> by_time;
  for (const json& p : lat) by_time[Num(p, "time_min")][Str(p, "stat")] = Num(p, "us");
  const std::vector<std::string> stats = {"mean", "99%", "99.9%", "99.99%", "max"};
  std::vector<std::string> pairs;
  for (size_t i = 0; i + 1 < stats.size(); ++i) {
    const std::string& a = stats[i];
    const std::string& b = stats[i + 1];
    size_t same = 0, both = 0;
    for (const auto& [t, m] : by_time) {
      auto ia = m.find(a), ib = m.find(b);
      if (ia == m.end() || ib == m.end()) continue;
      ++both;
      if (std::fabs(ia->second - ib->second) <= 0.01 * std::max(ia->second, ib->second)) ++same;
    }
    if (both > 0 && 2 * same >= both)
      pairs.push_back(fmt::format("{} and {} in {} of {} rounds", a, b, same, both));
  }
  if (pairs.empty()) return "";
  std::string s;
  for (const std::string& p : pairs) s += (s.empty() ? "" : "; ") + p;
  return ". Lines that coincide (within 1%), the lower statistic hidden under the higher: " + s;
}

json WsatSection(Ctx& ctx, const std::string& name) {
  auto [runs, blocks] = OpenSection(ctx, name, results::WsatResultsFromJson, WsatFacts());
  json values = json::array();
  json lat_charts = json::array();
  json trows = json::array();
  bool any_sim = false;
  for (const auto& [run, test, res] : runs) {
    if (!res.ok() || res->per_round.empty()) continue;
    const ReportRun& r = *run;
    const std::vector<results::WsatRound>& pr = res->per_round;
    const FullDrive full = FullDriveOf(r);
    json lat = json::array();
    for (const results::WsatRound& p : pr) {
      const results::LatencySummaryNs& l = p.metrics.total.lat_ns;
      json row = {{"drive", r.label},
                  {"round", static_cast<double>(p.round)},
                  {"time_min", R6(full.Seconds(p.time_s) / 60)},
                  {"written_gb", R6(full.Bytes(p.written_bytes) / 1e9)},
                  {"capacities", R6(p.written_capacities)},
                  {"iops", R6(p.metrics.total.iops)}};
      if (p.metrics.counters_name == "sim") {
        any_sim = true;
        auto counter = [&](const char* k) {
          auto it = p.metrics.counters.find(k);
          return it == p.metrics.counters.end() ? 0.0 : it->second;
        };
        row["wa"] = R6(counter("write_amplification"));
        row["free_blocks"] = counter("free_blocks");
      }
      values.push_back(row);
      for (const auto& [k, label] :
           std::vector<std::pair<std::string, std::string>>{{"mean", "mean"},
                                                            {"p99", "99%"},
                                                            {"p99_9", "99.9%"},
                                                            {"p99_99", "99.99%"},
                                                            {"max", "max"}}) {
        const std::optional<double> v = l.Stat(k);
        if (v && *v > 0)
          lat.push_back({{"time_min", R6(full.Seconds(p.time_s) / 60)},
                         {"stat", label},
                         {"us", R6(*v / 1000)}});
      }
    }
    lat_charts.push_back(ChartBlock(
        ctx.Id("wsat-lat"),
        "Latency per round (mean, percentiles and maximum), " + r.label + CoincideNote(lat),
        PercentileLines("WSAT latency per round: " + r.label, lat, ctx.multi ? kNarrow : kWide)));
    double first = pr.front().metrics.total.iops;
    auto ss = results::SteadyStateFromJson(Get(*test, "steady_state"));
    double steady = ss.ok() ? ss->headline.mean : 0;
    const results::WsatRound& last = pr.back();
    trows.push_back(json::array(
        {r.label, FmtInt(static_cast<double>(pr.size())), FmtDurationNs(last.time_s * 1e9),
         fmt::format("{:.1f} GB ({:.2f}x the range)", last.written_bytes / 1e9,
                     last.written_capacities),
         FmtInt(first), FmtInt(steady), first > 0 ? FmtPct(100 * steady / first, 0) : "-",
         res->stopped_by}));
  }
  if (values.empty()) return nullptr;
  blocks.push_back(
      TableBlock(ctx.Id("wsat-table"),
                 "Write saturation summary: the first round against the last window (steady state)",
                 json::array({"Drive", "Rounds", "Duration", "Written", "IOPS, first round",
                              "IOPS, last window", "Last / first", "Stopped by"}),
                 trows));
  json c1 = LineSpec("WSAT: IOPS against time", values, Q("time_min", "Time, minutes"),
                     Q("iops", "IOPS"), "", "", ctx, nullptr, "", 520);
  c1["mark"] = {{"type", "line"}, {"point", {{"size", 12}}}, {"tooltip", true}};
  json c2 =
      LineSpec("WSAT: IOPS against data written", values, Q("written_gb", "Total written, GB"),
               Q("iops", "IOPS"), "", "", ctx, nullptr, "", 520);
  c2["mark"] = {{"type", "line"}, {"point", {{"size", 12}}}, {"tooltip", true}};
  blocks.push_back(RowBlock(json::array(
      {ChartBlock(ctx.Id("wsat-time"), "4KiB random write IOPS by round against time", c1),
       ChartBlock(ctx.Id("wsat-gb"), "The same rounds against the total data written", c2)})));
  blocks.push_back(RowBlock(lat_charts));
  if (any_sim) {
    json wa =
        LineSpec("Write amplification (simulator)", values, Q("written_gb", "Total written, GB"),
                 Q("wa", "Write amplification"), "", "", ctx, nullptr, "", kNarrow, kShort);
    json fb =
        LineSpec("Free blocks (simulator)", values, Q("written_gb", "Total written, GB"),
                 Q("free_blocks", "Free erase blocks"), "", "", ctx, nullptr, "", kNarrow, kShort);
    wa["mark"] = fb["mark"] = {{"type", "line"}, {"tooltip", true}};
    blocks.push_back(RowBlock(json::array(
        {ChartBlock(ctx.Id("wsat-wa"),
                    "Write amplification of the simulated FTL (NAND pages written / host pages)",
                    wa),
         ChartBlock(ctx.Id("wsat-free"),
                    "Free erase blocks of the simulated drive: garbage collection starts when the "
                    "pool runs out",
                    fb)})));
  }
  return Section(name, "Write saturation",
                 "Continuous 4KiB random writes from a fresh drive: fast until the pool of free "
                 "NAND blocks runs out, then garbage collection sets the pace.",
                 blocks);
}

}  // namespace ssdlab::report::pts
