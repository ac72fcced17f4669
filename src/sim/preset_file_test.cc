#include "sim/preset_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/params.h"

namespace ssdlab::sim {
namespace {

namespace fs = std::filesystem;

class PresetFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ssdlab_preset_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(PresetFile, BuiltinsRoundTripThroughTheirToml) {
  for (const SimParams& p : Presets()) {
    const std::string path = Write(p.preset + ".toml", PresetToml(p));
    auto q = ParseSimTarget("sim:" + path);
    ASSERT_TRUE(q.ok()) << p.preset << ": " << q.status().message();
    EXPECT_EQ(ParamPairs(q.value()), ParamPairs(p)) << p.preset;
    EXPECT_EQ(q->sources, p.sources) << p.preset;
    EXPECT_EQ(q->preset, p.preset);
    EXPECT_EQ(q->description, p.description);
  }
}

TEST_F(PresetFile, BaseInheritsAndFileAndQueryOverride) {
  const std::string path = Write("mine.toml", R"(base = "dc-sata-mixed"
op = 40
ctrl_read_us = 12.25
interface = "nvme"
[sources]
op = "measured spare area"
)");
  auto p = ParseSimTarget("sim:" + path + "?ctrl_write_us=9");
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto base = ParseSimTarget("sim:dc-sata-mixed");
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(p->preset, "mine");  // the file name without .toml
  EXPECT_EQ(p->description, base->description);
  EXPECT_DOUBLE_EQ(p->op_pct, 40);
  EXPECT_DOUBLE_EQ(p->ctrl_read_us, 12.25);
  EXPECT_DOUBLE_EQ(p->ctrl_write_us, 9);
  EXPECT_EQ(p->interface, HostInterface::kNvme);
  EXPECT_DOUBLE_EQ(p->link_mb_s, 3500);  // the interface's default
  EXPECT_EQ(p->channels, base->channels);
  EXPECT_DOUBLE_EQ(p->t_prog_us, base->t_prog_us);
  // Sources: the base's, with the file's value for op in place.
  ASSERT_EQ(p->sources.size(), base->sources.size());
  for (size_t i = 0; i < p->sources.size(); ++i) {
    EXPECT_EQ(p->sources[i].first, base->sources[i].first);
    EXPECT_EQ(p->sources[i].second,
              p->sources[i].first == "op" ? "measured spare area" : base->sources[i].second);
  }
}

TEST_F(PresetFile, ExplicitLinkWinsOverInterfaceWhateverTheOrder) {
  const std::string path =
      Write("link.toml", "link_mb_s = 900\ninterface = \"nvme\"\nbase = \"tiny\"\n");
  auto p = ParseSimTarget("sim:" + path);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->link_mb_s, 900);
  EXPECT_EQ(p->interface, HostInterface::kNvme);
}

TEST_F(PresetFile, BaseFileRelativeToTheFile) {
  fs::create_directories(dir_ / "sub");
  Write("sub/parent.toml", "base = \"tiny\"\nop = 30\nname = \"parent\"\n");
  const std::string child = Write("sub/child.toml", "base = \"parent.toml\"\ncmd_us = 33\n");
  auto p = ParseSimTarget("sim:" + child);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->op_pct, 30);
  EXPECT_DOUBLE_EQ(p->cmd_us, 33);
  EXPECT_EQ(p->preset, "child");
}

TEST_F(PresetFile, BadFilesAreOneLineErrorsNamingTheKey) {
  struct Case {
    const char* text;
    const char* needle;
  };
  const Case cases[] = {
      {"base = \"tiny\"\ncolour = \"blue\"\n", "colour"},
      {"base = \"tiny\"\nop = -3\n", "op"},
      {"base = \"tiny\"\nop = \"lots\"\n", "op"},
      {"base = \"tiny\"\nchannels = [1, 2]\n", "channels"},
      {"base = \"tiny\"\ngc = \"lru\"\n", "gc"},
      {"base = \"tiny\"\ngc_lazy = 3\n", "gc_lazy"},
      {"base = \"nosuch\"\n", "nosuch"},
      {"base = \"loop.toml\"\n", "deep"},
      {"base = \"tiny\"\n[sources]\ncolour = \"x\"\n", "colour"},
      {"base = \"tiny\"\nstate = \"x.state\"\n", "state"},
      {"base = \"tiny\"\nop = = 3\n", "bad.toml:2"},
      {"base = \"tiny\"\nop = 0\n", "spare area"},
  };
  for (const Case& c : cases) {
    const std::string path =
        Write(c.needle == std::string("deep") ? "loop.toml" : "bad.toml", c.text);
    auto p = ParseSimTarget("sim:" + path);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.status().code(), Code::kInvalidArgument) << c.text;
    EXPECT_EQ(p.status().message().find('\n'), std::string::npos) << p.status().message();
    EXPECT_NE(p.status().message().find(c.needle), std::string::npos) << p.status().message();
  }
  auto missing = ParseSimTarget("sim:" + (dir_ / "none.toml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.toml"), std::string::npos);
}

TEST(PresetToml, EveryKeyOfTheTableIsPrinted) {
  const std::string text = PresetToml(Presets().front());
  for (const ParamDef& d : ParamTable())
    EXPECT_NE(text.find("\n" + std::string(d.key) + " = "), std::string::npos) << d.key;
}

// The preset file a target names: the path before the query, with or without "sim:"; none
// for a built-in preset.
TEST(PresetFileOf, ThePathOfAFileTargetOnly) {
  EXPECT_EQ(PresetFileOf("sim:dir/twin.toml?op=20&scale=8"), "dir/twin.toml");
  EXPECT_EQ(PresetFileOf("/abs/t.toml"), "/abs/t.toml");
  EXPECT_EQ(PresetFileOf("sim:tiny?op=20"), "");
  EXPECT_EQ(PresetFileOf("sim:.toml"), "");
}

}  // namespace
}  // namespace ssdlab::sim
