#include "results/run_context.h"

#include <gtest/gtest.h>

#include <fstream>

namespace ssdlab::results {
namespace {

using nlohmann::json;

// Every run of the report's fixture (documents the real program stored) reads.
TEST(RunContext, StoredDocumentsRead) {
  std::ifstream in(SSDLAB_PTS_RUNS);
  ASSERT_TRUE(in.good());
  size_t runs = 0;
  for (const json& run : json::parse(in)) {
    auto c = RunContextFromJson(run["context"], "context");
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->run, run["context"]["run"]);
    EXPECT_FALSE(c->created_at.empty());
    EXPECT_EQ(c->target_path, run["context"]["target"]["path"]);
    ++runs;
  }
  EXPECT_GT(runs, 0u);
}

TEST(RunContext, MissingKeysReadEmpty) {
  auto c = RunContextFromJson(json::object(), "context");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->run, "");
  EXPECT_EQ(c->target_path, "");
  auto n = RunContextFromJson({{"run", "a"}, {"target", nullptr}, {"host", nullptr}}, "context");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->run, "a");
  EXPECT_EQ(n->host, "");
}

TEST(RunContext, WrongTypesNameTheKey) {
  const std::vector<std::pair<json, std::string>> cases = {
      {json::array(), "ctx is not an object"},
      {{{"run", 7}}, "ctx.run is not a text"},
      {{{"status", true}}, "ctx.status is not a text"},
      {{{"created_at", json::array()}}, "ctx.created_at is not a text"},
      {{{"host", 1.5}}, "ctx.host is not a text"},
      {{{"target", "/dev/sda"}}, "ctx.target is not an object"},
      {{{"target", {{"path", 3}}}}, "ctx.target.path is not a text"},
  };
  for (const auto& [doc, want] : cases) {
    auto c = RunContextFromJson(doc, "ctx");
    ASSERT_FALSE(c.ok()) << doc.dump();
    EXPECT_EQ(c.status().message(), want) << doc.dump();
  }
}

}  // namespace
}  // namespace ssdlab::results
