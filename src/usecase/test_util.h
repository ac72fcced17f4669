// What the use cases' unit tests share: a temporary directory per test and a short battery.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "usecase/console.h"
#include "usecase/pts.h"

namespace ssdlab::usecase {

// A fresh directory under the system's temporary directory for each test (dir_), removed after
// it, and a Console that keeps what the use cases said (console_).
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "ssdlab_usecase_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A short IOPS test of one cell on sim:tiny, run `name` in dir_/r.db.
  PtsRequest ShortIops(const std::string& name) {
    PtsRequest r;
    r.target = "sim:tiny";
    r.db = (dir_ / "r.db").string();
    r.run = name;
    r.given.options = {{"--tests", "iops"},  {"--iops-bs", "4KiB"}, {"--iops-mixes", "100/0"},
                       {"--round", "200ms"}, {"--max-rounds", "5"}, {"--purge", "none"},
                       {"--wipc", "0x"}};
    r.console = &console_;
    return r;
  }

  std::filesystem::path dir_;
  RecordingConsole console_;
};

}  // namespace ssdlab::usecase
