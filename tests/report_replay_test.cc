// Issue 47's last cases. A replay's lag over time: each interval of a timed replay's series
// holds how far its I/Os were submitted behind the trace's own times, on both backends (the
// simulator replays in virtual time, where lag is the wait for one of the --qd slots; the real
// engine in wall time), in the `replay` document's lag_series, in the store's series (columns
// lag_sum_ns, lag_max_ns) and drawn by the report's replay section beside the IOPS on the same
// time axis. And `profile op-advisor --time-scale N` prints its capacity cost for the full drive,
// the simulated figure beside it, as the report gives it.
// Nothing depends on timing: the simulator is deterministic, and the real engine's case checks
// only what holds whatever the machine's speed (the series adds up to the replay's lag summary).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

// An MSR Cambridge trace of `n` 4 KiB I/Os (one write every third), `gap_ticks` apart (100 ns
// ticks; 0: all at once), offsets spread over 400 MB, recorded response time 100 µs.
std::string MsrTrace(int n, uint64_t gap_ticks) {
  std::string csv;
  uint64_t ts = 128166372003061629ULL;
  for (int i = 0; i < n; ++i) {
    ts += gap_ticks;
    csv += std::to_string(ts) + ",hm,0," + (i % 3 ? "Read" : "Write") + "," +
           std::to_string((static_cast<uint64_t>(i) * 7919 % 100000) * 4096) + ",4096,1000\n";
  }
  return csv;
}

// The replay document's lag_series adds up to its lag summary and its counts: every measured
// I/O is in one interval, the largest lag of the intervals is the replay's largest, and the
// intervals' lag sums are the replay's (mean x count).
void ExpectSeriesAddsUp(const json& doc) {
  const json& rep = doc["replay"];
  const json& series = rep["lag_series"];
  ASSERT_TRUE(series.is_array()) << rep.dump();
  ASSERT_EQ(series.size(), doc["intervals"].size());
  uint64_t ios = 0, max = 0;
  double sum = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    EXPECT_EQ(p["t_begin_ns"], doc["intervals"][i]["t_begin_ns"]);
    EXPECT_EQ(p["t_end_ns"], doc["intervals"][i]["t_end_ns"]);
    ios += p["ios"].get<uint64_t>();
    max = std::max(max, p["lag_max_ns"].get<uint64_t>());
    sum += p["lag_mean_ns"].get<double>() * p["ios"].get<double>();
    EXPECT_LE(p["lag_mean_ns"].get<double>(), p["lag_max_ns"].get<double>() + 1e-6);
  }
  EXPECT_EQ(ios, doc["results"]["total"]["ios"].get<uint64_t>());
  EXPECT_EQ(ios, rep["lag_ns"]["count"].get<uint64_t>());
  EXPECT_EQ(max, rep["lag_ns"]["max"].get<uint64_t>());
  const double want = rep["lag_ns"]["mean"].get<double>() * rep["lag_ns"]["count"].get<double>();
  EXPECT_NEAR(sum, want, 1e-6 * want + 1);
}

// The charts' Vega-Lite specs of a report page, by chart id.
json SpecsOf(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"ssdlab-specs\">";
  size_t b = html.find(open);
  if (b == std::string::npos) return nullptr;
  b += open.size();
  return json::parse(html.substr(b, html.find("</script>", b) - b), nullptr, false);
}

// The spec of the first chart whose id starts with `stem` (null when none).
json ChartSpec(const json& specs, const std::string& stem) {
  if (!specs.is_object()) return nullptr;
  for (auto it = specs.begin(); it != specs.end(); ++it)
    if (it.key().rfind(stem + "-", 0) == 0) return it.value();
  return nullptr;
}

// On the simulator, a burst (every I/O due at once) at --qd 1 falls further behind with every
// I/O: the lag grows from one interval to the next, and the series adds up to the summary.
TEST(ReplayLag, SimulatedBurstFallsBehindIntervalByInterval) {
  TempDir t;
  std::ofstream(t / "burst.csv") << MsrTrace(3000, 0);
  Proc p = RunSsdlab({"replay", t / "burst.csv", "--target", "sim:tiny", "--remap", "modulo",
                      "--qd", "1", "--interval", "10ms", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "r.json");
  ExpectSeriesAddsUp(doc);
  const json& series = doc["replay"]["lag_series"];
  ASSERT_GE(series.size(), 3u) << "the burst spans several 10 ms intervals";
  for (size_t i = 1; i < series.size(); ++i)
    EXPECT_GT(series[i]["lag_mean_ns"].get<double>(), series[i - 1]["lag_mean_ns"].get<double>())
        << "interval " << i;
  EXPECT_GT(series.back()["lag_max_ns"].get<uint64_t>(), 10'000'000u)
      << "the last I/Os waited behind the whole burst";
  EXPECT_EQ(doc["replay"]["kept_up"], false);
}

// On the simulator, a trace paced slower than the model serves it never waits for a slot: no
// lag in any interval (virtual time has no scheduling delay of its own).
TEST(ReplayLag, SimulatedPacedTraceHasNoLag) {
  TempDir t;
  std::ofstream(t / "paced.csv") << MsrTrace(2000, 500);  // 50 µs apart
  Proc p = RunSsdlab({"replay", t / "paced.csv", "--target", "sim:tiny", "--remap", "modulo",
                      "--qd", "32", "--interval", "10ms", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "r.json");
  ExpectSeriesAddsUp(doc);
  ASSERT_GE(doc["replay"]["lag_series"].size(), 5u);
  for (const json& s : doc["replay"]["lag_series"]) EXPECT_EQ(s["lag_max_ns"], 0) << s.dump();
  EXPECT_EQ(doc["replay"]["kept_up"], true);
}

// An afap replay has no schedule and so no lag series.
TEST(ReplayLag, AfapReplayHasNoLagSeries) {
  TempDir t;
  std::ofstream(t / "paced.csv") << MsrTrace(500, 500);
  Proc p = RunSsdlab({"replay", t / "paced.csv", "--target", "sim:tiny", "--remap", "modulo",
                      "--timing", "afap", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "r.json");
  ASSERT_TRUE(doc["replay"].contains("lag_series"));
  EXPECT_TRUE(doc["replay"]["lag_series"].is_null());
}

// The real engine (a file, two submitting threads) records the lag of every I/O in its
// interval: whatever the machine's speed, the series adds up to the replay's lag summary.
TEST(ReplayLag, RealEngineSeriesAddsUpToTheLagSummary) {
  TempDir t;
  std::ofstream(t / "paced.csv") << MsrTrace(3000, 200);  // 20 µs apart: 60 ms
  Proc p = RunSsdlab({"replay", t / "paced.csv", "--target", t / "f", "--size", "16MiB", "--remap",
                      "modulo", "--jobs", "2", "--interval", "10ms", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "r.json");
  EXPECT_EQ(doc["results"]["total"]["ios"], 3000);
  ExpectSeriesAddsUp(doc);
}

// Stored (`replay --db`): the store's series holds the lag (the columns lag_sum_ns and
// lag_max_ns), and the report's replay section charts it over time, µs, with the IOPS on the
// same time axis; an afap replay's section has neither chart.
TEST(ReplayLag, StoredAndChartedByTheReport) {
  TempDir t;
  std::ofstream(t / "burst.csv") << MsrTrace(3000, 0);
  const std::string db = t / "r.db";
  Proc p =
      RunSsdlab({"replay", t / "burst.csv", "--target", "sim:tiny", "--remap", "modulo", "--qd",
                 "1", "--interval", "10ms", "--db", db, "--run", "burst", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "r.json");
  const json& series = doc["replay"]["lag_series"];
  ASSERT_TRUE(series.is_array());
  double sum = 0;
  uint64_t max = 0;
  for (const json& s : series) {
    sum += s["lag_mean_ns"].get<double>() * s["ios"].get<double>();
    max = std::max(max, s["lag_max_ns"].get<uint64_t>());
  }
  std::vector<std::string> stored =
      SqlRows(db, "SELECT SUM(lag_sum_ns), MAX(lag_max_ns), COUNT(DISTINCT idx) FROM series");
  ASSERT_EQ(stored.size(), 1u);
  const std::string& row = stored[0];
  const size_t bar = row.find('|');
  ASSERT_NE(bar, std::string::npos) << row;
  EXPECT_NEAR(std::stod(row.substr(0, bar)), sum, 1e-6 * sum + 1) << row;
  EXPECT_EQ(row.substr(bar + 1), std::to_string(max) + "|" + std::to_string(series.size()));
  EXPECT_GT(max, 0u);

  p = RunSsdlab({"report", "burst", "--db", db, "-o", t / "r.html"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json specs = SpecsOf(ReadFile(t / "r.html"));
  json lag = ChartSpec(specs, "replay-lag");
  ASSERT_TRUE(lag.is_object()) << "the lag-over-time chart";
  EXPECT_EQ(lag["encoding"]["y"]["title"], "Submission lag, µs");
  EXPECT_EQ(lag["encoding"]["x"]["title"], "Time, s");
  std::map<std::string, std::vector<double>> drawn;
  for (const json& v : lag["data"]["values"])
    drawn[v["series"].get<std::string>()].push_back(v["lag_us"].get<double>());
  ASSERT_EQ(drawn["mean"].size(), series.size());
  ASSERT_EQ(drawn["largest"].size(), series.size());
  for (size_t i = 0; i < series.size(); ++i) {  // (six significant digits on the chart)
    const double mean_us = series[i]["lag_mean_ns"].get<double>() / 1000;
    const double max_us = series[i]["lag_max_ns"].get<double>() / 1000;
    EXPECT_NEAR(drawn["mean"][i], mean_us, 1e-5 * mean_us + 1e-3);
    EXPECT_NEAR(drawn["largest"][i], max_us, 1e-5 * max_us + 1e-3);
  }
  json rate = ChartSpec(specs, "replay-rate");
  ASSERT_TRUE(rate.is_object()) << "the IOPS on the same time axis";
  EXPECT_EQ(rate["encoding"]["x"]["title"], "Time, s");
  EXPECT_EQ(rate["data"]["values"].size(), series.size());

  std::ofstream(t / "paced.csv") << MsrTrace(500, 500);
  p = RunSsdlab({"replay", t / "paced.csv", "--target", "sim:tiny", "--remap", "modulo", "--timing",
                 "afap", "--db", db, "--run", "afap"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  p = RunSsdlab({"report", "afap", "--db", db, "-o", t / "afap.html"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  specs = SpecsOf(ReadFile(t / "afap.html"));
  EXPECT_TRUE(ChartSpec(specs, "replay-cdf").is_object());
  EXPECT_TRUE(ChartSpec(specs, "replay-lag").is_null()) << "afap replays have no lag";
  EXPECT_TRUE(ChartSpec(specs, "replay-rate").is_null());
}

// `profile op-advisor --time-scale N`: the recommendation's capacity cost is the full drive's
// (the simulated drive's cost times its capacity ratio, as the report's FullDrive gives it:
// about the OP share of the full drive's capacity), with the simulated cost beside it.
TEST(OpAdvisorTimeScaled, PrintsTheFullDrivesCapacityCost) {
  TempDir t;
  Proc p = RunSsdlab({"profile", "op-advisor", "--target", "sim:dc-sata-read-intensive",
                      "--time-scale", "16384", "--op", "0,20", "--time", "10s", "--interval",
                      "500ms", "--db", t / "o.db", "--json", t / "o.json", "--progress", "none"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "o.json");
  const json& details = doc["context"]["target"]["details"];
  const double full_capacity = std::stod(details["capacity"].get<std::string>());
  const double simulated_capacity = std::stod(details["sim_user_bytes"].get<std::string>());
  const json& rec = doc["tests"][0]["results"]["levels"][0]["results"]["recommendation"];
  ASSERT_EQ(rec["op_pct"], 20) << p.out;
  const uint64_t simulated_cost = rec["capacity_cost_bytes"];
  std::smatch m;
  const std::regex line(
      R"(recommendation: OP 20% .*costs ([0-9,]+) bytes \([0-9.]+ GB, [0-9.]+ GiB; simulated: )"
      R"(([0-9,]+) bytes\) of capacity)");
  ASSERT_TRUE(std::regex_search(p.out, m, line)) << p.out;
  auto number = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return std::stod(s);
  };
  const double printed = number(m[1]);
  EXPECT_EQ(number(m[2]), static_cast<double>(simulated_cost));
  EXPECT_NEAR(printed, std::round(simulated_cost * full_capacity / simulated_capacity), 0.5);
  // (The simulated range is whole MiB: up to 1 MiB of the 1/16384 drive's ~98 MB more.)
  EXPECT_NEAR(printed / full_capacity, 0.20, 0.012) << "the full drive's 20% OP";
  EXPECT_GT(printed, 1000.0 * simulated_cost) << "not the simulated drive's";
}

}  // namespace
}  // namespace ssdlab::test
