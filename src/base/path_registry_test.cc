#include "base/path_registry.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

class PathRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ssdlab-paths.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string P(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(PathRegistryTest, ReadingOneFileTwiceIsFineWritingItIsNot) {
  std::ofstream(P("in.toml")) << "x";
  PathRegistry reads;
  reads.AddInput("--base " + P("in.toml"), P("in.toml"));
  reads.AddInput("--twin " + P("in.toml"), P("in.toml"));
  EXPECT_TRUE(reads.Check().ok());

  PathRegistry writes;
  writes.AddInput("--base " + P("in.toml"), P("in.toml"));
  writes.AddOutput("-o", P("in.toml"));
  Status s = writes.Check();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "-o " + P("in.toml") + " is the same file as --base " + P("in.toml") +
                             "; refusing to overwrite it");
}

TEST_F(PathRegistryTest, SymlinksHardLinksAndSpellingsOfAMissingFileMeet) {
  std::ofstream(P("db")) << "x";
  fs::create_symlink(P("db"), P("sym"));
  fs::create_hard_link(P("db"), P("hard"));
  for (const char* other : {"sym", "hard"}) {
    PathRegistry r;
    r.AddDatabase("--db", P("db"), true);
    r.AddState("state= of --target sim:tiny?state=" + P(other), P(other));
    EXPECT_FALSE(r.Check().ok()) << other;
  }
  // Not yet created: relative (from the working directory) and absolute spellings meet.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  PathRegistry r;
  r.AddState("state= of A", "new.st");
  r.AddState("state= of B", P("sub/../new.st"));
  Status s = r.Check();
  fs::current_path(cwd);
  EXPECT_EQ(s.message(), "state= of B is the same file as state= of A; refusing to overwrite it");
  EXPECT_EQ(FileIdentity(P("new.st")), FileIdentity(P("./new.st")));
  EXPECT_NE(FileIdentity(P("new.st")), FileIdentity(P("other.st")));
}

TEST_F(PathRegistryTest, TheDatabasesJournalFilesAreItsOwn) {
  PathRegistry r;
  r.AddDatabase("--db", P("r.db"), false);
  r.AddOutput("--json", P("r.db-wal"));
  EXPECT_EQ(r.Check().message(), "--json " + P("r.db-wal") + " is the same file as --db " +
                                     P("r.db") + "; refusing to overwrite it");
}

TEST_F(PathRegistryTest, WrittenFilesPassTheDeviceCheckAndStdoutIsOneOutput) {
  std::ofstream(P("backing.img")) << "x";
  std::vector<std::string> asked;
  PathRegistry r([&](const std::string& path) {
    asked.push_back(path);
    return path == P("backing.img") ? Status::Refused(path + " is the backing file of /dev/loop9")
                                    : Status::Ok();
  });
  r.AddInput("--spec " + P("backing.img"), P("backing.img"));  // read: never asked
  r.AddOutput("--json", P("new.json"));                        // missing: never asked
  EXPECT_TRUE(r.Check().ok());
  EXPECT_TRUE(asked.empty());
  r.AddState("state= of X", P("backing.img"));
  Status s = r.Check();
  EXPECT_EQ(s.code(), Code::kPermission);
  EXPECT_EQ(s.message(), "state= of X: " + P("backing.img") + " is the backing file of /dev/loop9");

  PathRegistry out;
  out.AddOutput("--json", "-");
  out.AddOutput("--lat-log", "-");
  EXPECT_EQ(out.Check().message(), "--lat-log - and --json - would both write to stdout");
  PathRegistry dir;
  dir.AddDatabase("--db", dir_.string(), true);
  EXPECT_EQ(dir.Check().message(), "--db " + dir_.string() + " is a directory");
}

}  // namespace
}  // namespace ssdlab
