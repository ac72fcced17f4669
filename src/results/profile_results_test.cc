// The typed results of the review-lab profiles (results/profile.h) and the application tests
// (results/app.h): every stored instance of the report's fixtures of real runs reads and writes
// back to the letter, and damaged documents are refused naming the key.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "results/app.h"
#include "results/profile.h"

namespace ssdlab::results {
namespace {

using nlohmann::json;

json Load(const char* path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);
}

// Every profile test of the fixture (each kind run by the real program on simulated drives)
// reads into the typed form and writes back to the same document, to the letter (keys, values
// and number types); the battery's "health" beside stays out.
TEST(ProfileResults, StoredDocumentsRoundTrip) {
  std::set<std::string> kinds;
  size_t levels = 0;
  for (const json& run : Load(SSDLAB_PROFILE_RUNS)) {
    for (const json& t : run["tests"]) {
      const std::string name = t["name"];
      json stored = t["results"];
      stored.erase("health");
      auto r = ProfileResultsFromJson(t["results"], name + ".results");
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(ToJson(*r).dump(), stored.dump()) << name;
      kinds.insert(r->kind);
      levels += r->levels.size();
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"cdm", "atto", "as-ssd", "surface", "fileio", "curve",
                                          "fill", "op-advisor", "user"}));
  EXPECT_GT(levels, kinds.size()) << "a run at two fill levels";
}

TEST(ProfileResults, TheKindDecidesTheTypeOfEachLevel) {
  const json runs = Load(SSDLAB_PROFILE_RUNS);
  auto cdm = ProfileResultsFromJson(runs[0]["tests"][0]["results"], "cdm.results");
  ASSERT_TRUE(cdm.ok()) << cdm.status().message();
  ASSERT_EQ(cdm->levels.size(), 2u);
  EXPECT_EQ(cdm->levels[1].fill_pct, 90.0);
  ASSERT_TRUE(cdm->levels[1].preparation.has_value());
  EXPECT_GT(cdm->levels[1].preparation->filled_bytes, 0u);
  const auto* items = std::get_if<CdmResults>(&cdm->levels[0].results);
  ASSERT_NE(items, nullptr);
  ASSERT_EQ(items->items.size(), 4u);
  EXPECT_EQ(items->items[0].name, "SEQ1M Q8T1");
  EXPECT_GT(items->items[0].read.mb_s, 0);
  EXPECT_FALSE(cdm->differences.empty());
}

// What the suite has always stored for the edge cases stays as it was: no cliff as whole
// zeros, a fill of nothing without its metrics.
TEST(ProfileResults, EdgeCasesKeepTheirStoredShape) {
  SurfaceResults s;
  EXPECT_EQ(ToJson(ProfileKindResults(s))["cliff"].dump(),
            R"({"after_mb_s":0,"before_mb_s":0,"found":false,"position_bytes":0,)"
            R"("position_pct":0,"segment":-1})");
  s.cliff = {true, 3, 3 << 20, 30.0, 500.0, 100.0};
  EXPECT_EQ(ToJson(ProfileKindResults(s))["cliff"]["position_pct"].dump(), "30.0");
  EXPECT_EQ(ToJson(ProfileKindResults(FillResults{})).dump(), R"({"filled_bytes":0,"mb_s":0})");
}

// Each damaged document (JSON text) is refused with Invalid naming the key from the test.
template <class From>
void ExpectRefused(From from, const std::string& where,
                   const std::vector<std::pair<const char*, std::string>>& cases) {
  for (const auto& [text, key] : cases) {
    auto r = from(json::parse(text), where);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find(where + key), std::string::npos) << r.status().message();
  }
}

TEST(ProfileResults, DamagedDocumentsAreRefusedNamingTheKey) {
  ExpectRefused(
      ProfileResultsFromJson, "p.results",
      {{"[]", ""},
       {R"({"kind": 3})", ".kind"},
       {R"({"kind": "crystal", "levels": [{"results": {}}]})", ".kind"},
       {R"({"kind": "cdm", "levels": 3})", ".levels"},
       {R"({"kind": "cdm", "levels": [{"fill_pct": "full", "results": {}}]})",
        ".levels[0].fill_pct"},
       {R"({"kind": "cdm", "levels": [{"results": 3}]})", ".levels[0].results"},
       {R"({"kind": "cdm", "levels": [{"summary": [{"value": "x"}], "results": {}}]})",
        ".levels[0].summary[0].value"},
       {R"({"kind": "cdm", "levels": [{"results": {"items": [{"read": {"mb_s": "fast"}}]}}]})",
        ".levels[0].results.items[0].read.mb_s"},
       {R"({"kind": "cdm", "levels": [{"results": {"items": [{"write": {"metrics":
            {"total": {"iops": "x"}}}}]}}]})",
        ".levels[0].results.items[0].write.metrics.total.iops"},
       {R"({"kind": "atto", "levels": [{"results": {"rows": [{"block_bytes": -1}]}}]})",
        ".levels[0].results.rows[0].block_bytes"},
       {R"({"kind": "as-ssd", "levels": [{"results": {"score": {"total": "high"}}}]})",
        ".levels[0].results.score.total"},
       {R"({"kind": "surface", "levels": [{"results": {"cliff": {"found": "no"}}}]})",
        ".levels[0].results.cliff.found"},
       {R"({"kind": "fileio", "levels": [{"results": {"modes": [{"lat_ns": {"p99": []}}]}}]})",
        ".levels[0].results.modes[0].lat_ns.p99"},
       {R"({"kind": "curve", "levels": [{"results": {"mix": {"dist": {"zones": [1]}}}}]})",
        ".levels[0].results.mix.dist.zones[0]"},
       {R"({"kind": "curve", "levels": [{"results": {"points": [{"p99_ns": null},
            {"iops": "x"}]}}]})",
        ".levels[0].results.points[1].iops"},
       {R"({"kind": "op-advisor", "levels": [{"results": {"points": [{"series":
            [{"t_s": "late"}]}]}}]})",
        ".levels[0].results.points[0].series[0].t_s"},
       {R"({"kind": "op-advisor", "levels": [{"results": {"recommendation": {"rule": 1}}}]})",
        ".levels[0].results.recommendation.rule"},
       {R"({"kind": "fill", "levels": [{"results": {"filled_bytes": "half"}}]})",
        ".levels[0].results.filled_bytes"},
       {R"({"kind": "user", "levels": [{"results": {"phases": [{"name": 7}]}}]})",
        ".levels[0].results.phases[0].name"},
       {R"({"kind": "cdm", "differences": [{"values": [1, "x"]}]})", ".differences[0].values[1]"}});
}

// The application fixture (a pgbench and a sysbench-oltp run the real program stored) reads
// and writes back to the letter.
TEST(AppResults, StoredDocumentsRoundTrip) {
  size_t seen = 0, with_device = 0;
  for (const json& run : Load(SSDLAB_APP_RUNS)) {
    for (const json& t : run["tests"]) {
      auto r = AppResultsFromJson(t["results"], "app.results");
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(ToJson(*r).dump(), t["results"].dump()) << t["name"];
      EXPECT_GT(r->tps, 0);
      EXPECT_FALSE(r->per_second.empty());
      with_device += r->device.has_value();
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2u);
  EXPECT_EQ(with_device, 2u);
}

TEST(AppResults, DamagedDocumentsAreRefusedNamingTheKey) {
  ExpectRefused(
      AppResultsFromJson, "pgbench.results",
      {{"3", ""},
       {R"({"measured": "yes"})", ".measured"},
       {R"({"tps": "many"})", ".tps"},
       {R"({"latency_ms": {"p99": "slow"}})", ".latency_ms.p99"},
       {R"({"per_second": [{"tps": []}]})", ".per_second[0].tps"},
       {R"({"device": {"per_second": [{"util_pct": "busy"}]}})", ".device.per_second[0].util_pct"},
       {R"({"device": {"temperature": {"peak_c": "hot"}}})", ".device.temperature.peak_c"},
       {R"({"error": 1})", ".error"},
       {R"({"simulated_drive": {"erases": -1}})", ".simulated_drive.erases"}});
}

// A run on a served simulated drive (app --target sim:...) keeps the drive's counters; a run
// on a directory writes no simulated_drive key at all.
TEST(AppResults, TheSimulatedDrivesCountersRoundTripAndAreAbsentOtherwise) {
  AppResults a;
  a.app = "pgbench";
  EXPECT_FALSE(ToJson(a).contains("simulated_drive"));
  AppSimulatedDrive d;
  d.target = "sim:dc-sata-mixed";
  d.host_pages_written = 100;
  d.nand_pages_written = 130;
  d.write_amplification = 1.3;
  d.gc_page_copies = 30;
  d.erases = 2;
  d.paced = false;
  d.late_share = 0.02;
  a.simulated_drive = d;
  const json j = ToJson(a);
  ASSERT_TRUE(j.contains("simulated_drive"));
  EXPECT_EQ(j["simulated_drive"]["nand_pages_written"], 130u);
  auto back = AppResultsFromJson(j, "app.results");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->simulated_drive.has_value());
  EXPECT_EQ(back->simulated_drive->gc_page_copies, 30u);
  EXPECT_FALSE(back->simulated_drive->paced);
  EXPECT_EQ(ToJson(*back).dump(), j.dump());
}

}  // namespace
}  // namespace ssdlab::results
