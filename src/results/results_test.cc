#include <gtest/gtest.h>

#include <fstream>

#include "results/steady_state.h"

namespace ssdlab::results {
namespace {

using nlohmann::json;

// Every stored steady state of the report's PTS fixture (whole batteries the real program ran
// on the simulator) reads into the typed form and writes back to the same document.
TEST(SteadyState, StoredDocumentsRoundTrip) {
  std::ifstream in(SSDLAB_PTS_RUNS);
  ASSERT_TRUE(in.good());
  json runs = json::parse(in);
  size_t required = 0, tests = 0;
  for (const json& run : runs) {
    for (const json& t : run["tests"]) {
      ++tests;
      auto s = SteadyStateFromJson(t["steady_state"]);
      ASSERT_TRUE(s.ok()) << t["name"] << ": " << s.status().message();
      required += s->required;
      EXPECT_EQ(ToJson(*s), t["steady_state"]) << t["name"];
      if (s->required) EXPECT_FALSE(s->tracking.empty()) << t["name"];
    }
  }
  EXPECT_GT(tests, 10u);
  EXPECT_GT(required, 8u);
}

TEST(SteadyState, ReachedOverAllVariablesHeadlineFromTheFirst) {
  TestSteadyState s;
  s.required = true;
  s.tracking = {"a", "b"};
  s.variables["a"].reached = true;
  s.variables["a"].mean = 10;
  s.variables["b"].reached = false;
  s.headline = s.variables["a"];
  s.reached = false;
  json j = ToJson(s);
  EXPECT_EQ(j["reached"], false);
  EXPECT_EQ(j["mean"], 10.0);
  auto back = SteadyStateFromJson(j);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->reached);
  EXPECT_TRUE(back->headline.reached) << "the headline keeps its own variable's flag";
  EXPECT_EQ(back->tracking, s.tracking);
}

TEST(SteadyState, NoRequirementIsEmpty) {
  auto none = SteadyStateFromJson(json::object());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->required);
  EXPECT_EQ(ToJson(*none), json::object());
  EXPECT_TRUE(SteadyStateFromJson(json()).ok());
}

TEST(SteadyState, DamagedDocumentsAreRefusedNamingTheKey) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"reached", "yes"}}, "steady_state.reached"},
      {{{"reached", true}, {"rounds_run", -3}}, "steady_state.rounds_run"},
      {{{"reached", true}, {"mean", "x"}}, "steady_state.mean"},
      {{{"reached", true}, {"variables", 3}}, "steady_state.variables"},
      {{{"reached", true}, {"variables", {{"iops", {{"slope", "s"}}}}}},
       "steady_state.variables.iops.slope"},
      {{{"reached", true}, {"tracking", "iops"}}, "steady_state.tracking"},
      {json::array({1, 2}), "steady_state"},
  };
  for (const auto& [doc, key] : cases) {
    auto s = SteadyStateFromJson(doc);
    ASSERT_FALSE(s.ok()) << doc.dump();
    EXPECT_NE(s.status().message().find(key), std::string::npos) << s.status().message();
  }
}

}  // namespace
}  // namespace ssdlab::results
