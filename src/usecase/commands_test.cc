// The use cases of `info`, `purge`, `app`, `report` and `export` without the binary: a simulated
// drive's state and a file in a temporary directory, a short battery stored in SQLite.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "usecase/app.h"
#include "usecase/console.h"
#include "usecase/device.h"
#include "usecase/pts.h"
#include "usecase/report.h"
#include "usecase/test_util.h"

namespace ssdlab::usecase {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class CommandsTest : public TempDirTest {
 protected:
  std::string SimWithState() const { return "sim:tiny?state=" + (dir_ / "t.st").string(); }

  // ShortIops("name") run and stored in dir_/r.db.
  void StoreShortBattery(const std::string& name) {
    auto out = RunPts(ShortIops(name));
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_TRUE(out->battery.ok()) << out->battery.message();
  }
};

TEST_F(CommandsTest, InfoOfASimulatedDriveGivesItsModelAndItsStateOnceSaved) {
  auto before = Info({.target = SimWithState()});
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_TRUE(before->simulated);
  EXPECT_EQ(before->doc["schema_version"], kDeviceSchemaVersion);
  EXPECT_EQ(before->doc["target"]["kind"], "sim");
  EXPECT_EQ(before->doc["target"]["size_bytes"], before->sim_target.size_bytes);
  EXPECT_FALSE(before->sim_figures.empty());
  EXPECT_EQ(before->doc["figures"].size(), before->sim_figures.size());
  EXPECT_EQ(before->doc["state"]["exists"], false);
  EXPECT_EQ(before->doc["smart"]["available"], false);
  // A purge saves the drive: info then reads its header (factory-fresh: nothing mapped).
  auto purged = Purge({.target = SimWithState(), .destructive = true});
  ASSERT_TRUE(purged.ok()) << purged.status().message();
  ASSERT_TRUE(purged->done.ok()) << purged->done.message();
  auto after = Info({.target = SimWithState()});
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->doc["state"]["exists"], true);
  EXPECT_EQ(after->doc["state"]["fill_pct"], 0.0);
  EXPECT_GT(after->doc["state"]["blocks"].get<uint64_t>(), 0u);
}

TEST_F(CommandsTest, InfoOfAMissingTargetIsAnError) {
  auto info = Info({.target = (dir_ / "none").string()});
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(ExitStatusFor(info.status()), kExitUsage) << info.status().message();
}

TEST_F(CommandsTest, ASimulatedPurgeNeedsAStateAndTheDestructiveFlag) {
  auto no_state = Purge({.target = "sim:tiny", .destructive = true});
  ASSERT_FALSE(no_state.ok());
  EXPECT_EQ(no_state.status().code(), Code::kUnsupported);
  auto not_allowed = Purge({.target = SimWithState()});
  ASSERT_FALSE(not_allowed.ok());
  EXPECT_EQ(not_allowed.status().code(), Code::kPermission);
  EXPECT_FALSE(fs::exists(dir_ / "t.st"));
  auto method = Purge({.target = SimWithState(), .method = "zero", .destructive = true});
  ASSERT_FALSE(method.ok());
  EXPECT_NE(method.status().message().find("--method zero"), std::string::npos);
  // A dry run judges the checks and writes nothing.
  auto dry = Purge({.target = SimWithState(), .dry_run = true});
  ASSERT_TRUE(dry.ok()) << dry.status().message();
  EXPECT_TRUE(dry->allowed.ok());
  EXPECT_EQ(dry->doc["allowed"], true);
  EXPECT_EQ(dry->doc["completed"], false);
  EXPECT_EQ(dry->doc["method"], "sim-reset");
  EXPECT_FALSE(fs::exists(dir_ / "t.st"));
}

TEST_F(CommandsTest, PurgeOfAFilePlansADryRunAndThenZeroesIt) {
  const fs::path file = dir_ / "f.img";
  {
    std::ofstream out(file, std::ios::binary);
    out << std::string(1 << 20, 'x');
  }
  auto dry = Purge({.target = file.string(), .dry_run = true});
  ASSERT_TRUE(dry.ok()) << dry.status().message();
  ASSERT_TRUE(dry->plan.has_value());
  EXPECT_TRUE(dry->allowed.ok()) << dry->allowed.message();
  EXPECT_EQ(dry->doc["completed"], false);
  EXPECT_EQ(dry->doc["plan"]["steps"].size(), dry->plan->steps.size());
  std::ifstream still(file, std::ios::binary);
  EXPECT_EQ(still.get(), 'x');  // a dry run writes nothing
  auto confirm_alone = Purge({.target = file.string(), .confirm = "x"});
  ASSERT_FALSE(confirm_alone.ok());
  EXPECT_NE(confirm_alone.status().message().find("--confirm needs --destructive"),
            std::string::npos);
  auto done = Purge({.target = file.string(), .destructive = true});
  ASSERT_TRUE(done.ok()) << done.status().message();
  ASSERT_TRUE(done->done.ok()) << done->done.message();
  EXPECT_EQ(done->doc["completed"], true);
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(bytes, std::string(1 << 20, '\0'));
}

TEST(AppRequest, OneOfDirAndASimulatedTarget) {
  AppRequest r;
  r.options.name = "pgbench";
  EXPECT_EQ(ValidateAppRequest(r).code(), Code::kInvalidArgument);  // neither
  r.options.dir = "/tmp";
  r.target = "sim:tiny";
  EXPECT_EQ(ValidateAppRequest(r).code(), Code::kInvalidArgument);  // both
  r.options.dir.clear();
  r.target = "/dev/sda";
  auto real = ValidateAppRequest(r);
  EXPECT_NE(real.message().find("--target serves a simulated drive"), std::string::npos);
  r.target = "sim:tiny";
  EXPECT_TRUE(ValidateAppRequest(r).ok());
  r.options.threads = 0;
  EXPECT_EQ(ValidateAppRequest(r).code(), Code::kInvalidArgument);
}

TEST_F(CommandsTest, AnAppOnAMissingDirectoryStartsNothing) {
  AppRequest r;
  r.options.name = "pgbench";
  r.options.dir = (dir_ / "missing").string();
  r.db = (dir_ / "app.db").string();
  r.console = &console_;
  auto out = RunAppTest(r);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("missing"), std::string::npos) << out.status().message();
  EXPECT_FALSE(fs::exists(r.db));  // nothing stored
  EXPECT_EQ(console_.notes.find("ssdlab app: run"), std::string::npos);
}

TEST_F(CommandsTest, AReportAndAnExportOfAStoredBattery) {
  StoreShortBattery("b");
  const std::string db = (dir_ / "r.db").string();
  const std::string html = (dir_ / "r.html").string();
  auto report = WriteReport({.runs = {"b"}, .db = db, .out = html, .console = &console_});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->html_bytes, fs::file_size(html));
  EXPECT_FALSE(report->pdf_written);
  auto units = WriteReport({.runs = {"b"}, .db = db, .out = html, .units = "imperial"});
  EXPECT_EQ(units.status().code(), Code::kInvalidArgument);
  auto what_if = WriteReport({.runs = {"b"}, .db = db, .out = html, .what_if = true});
  EXPECT_NE(what_if.status().message().find("--what-if needs --twin"), std::string::npos);
  auto missing = WriteReport({.runs = {"nope"}, .db = db, .out = html});
  EXPECT_EQ(ExitStatusFor(missing.status()), kExitUsage) << missing.status().message();
  auto no_db = WriteReport({.runs = {"b"}, .db = (dir_ / "none.db").string(), .out = html});
  EXPECT_EQ(ExitStatusFor(no_db.status()), kExitUsage) << no_db.status().message();

  auto text = ExportRun({.run = "b", .db = db, .json = "-"});
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(json::parse(text->json_text)["tests"][0]["name"], "iops");
  auto csv = ExportRun({.run = "b", .db = db, .csv = (dir_ / "csv").string()});
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  ASSERT_FALSE(csv->csv_files.empty());
  for (const std::string& f : csv->csv_files) EXPECT_TRUE(fs::exists(f)) << f;
  auto both = ExportRun({.run = "b", .db = db, .csv = "x", .json = "y"});
  EXPECT_EQ(both.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace ssdlab::usecase
