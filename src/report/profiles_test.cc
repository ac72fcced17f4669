// Damaged profile and application results in the report: the section says what is damaged,
// naming the test and the key, the CSV export refuses the run with the same words, and nothing
// throws.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "report/report.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json Load(const std::string& name) {
  std::ifstream in(fs::path(SSDLAB_REPORT_TESTDATA) / name);
  EXPECT_TRUE(in.good()) << name;
  return json::parse(in);
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(ReportDamaged, AProfileWithDamagedResultsSaysWhyInItsSection) {
  // A list of each kind's results, by the fixture's test name.
  const std::map<std::string, std::string> list_of = {
      {"cdm", "items"},    {"atto", "rows"},  {"as-ssd", "seq"},        {"surface", "points"},
      {"fileio", "modes"}, {"sql", "points"}, {"op-advisor", "points"}, {"mixed-oltp", "phases"}};
  const json runs = Load("profile_runs.json");
  const fs::path dir =
      fs::temp_directory_path() / ("ssdlab_profiles_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::set<std::string> checked;  // the fixture runs cdm and surface twice
  for (const json& doc : runs) {
    const std::string name = doc["tests"][0]["name"];
    auto key = list_of.find(name);
    if (key == list_of.end()) continue;
    json damaged = doc;
    damaged["tests"][0]["results"]["levels"][0]["results"][key->second] = 3;
    const std::string where = name + ".results.levels[0].results." + key->second;
    const std::string why = "damaged: " + where + " is not ";
    json model;
    ASSERT_NO_THROW(model = BuildReportModel({{"broken", damaged}, {"fine", doc}}, {})) << name;
    const std::string text = model.dump();
    EXPECT_EQ(Count(text, "broken: " + why), 1u) << name << ": " << why;
    // The readable run keeps its figures beside the note.
    EXPECT_GT(Count(text, "\"fine"), 1u) << name;
    auto csv = ExportRunCsv(damaged, (dir / name).string());
    ASSERT_FALSE(csv.ok()) << name;
    EXPECT_NE(csv.status().message().find(where), std::string::npos) << csv.status().message();
    checked.insert(name);
  }
  EXPECT_EQ(checked.size(), list_of.size());
  fs::remove_all(dir);
}

TEST(ReportDamaged, AnAppTestWithDamagedResultsSaysWhy) {
  const json runs = Load("app_runs.json");
  json damaged = runs[0];
  damaged["tests"][0]["results"]["latency_ms"]["p99"] = "slow";
  const std::string name = damaged["tests"][0]["name"];
  json model;
  ASSERT_NO_THROW(model = BuildReportModel({{"broken", damaged}, {"fine", runs[1]}}, {}));
  EXPECT_EQ(Count(model.dump(), "broken: damaged: " + name + ".results.latency_ms.p99 is not"), 1u);
}

}  // namespace
}  // namespace ssdlab
