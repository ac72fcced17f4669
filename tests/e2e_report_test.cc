// End-to-end tests of `ssdlab report` and `ssdlab export`: a short simulated PTS battery and
// every kind of review-lab profile, their report opened in headless Chromium (no console errors,
// every chart drawn with data marks, a screenshot in the build's test-output directory), the size
// limit, exports and bad inputs. Nothing here depends on timing: the page reports its own rendering
// status into the DOM, and Chromium runs it in virtual time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "e2e_util.h"
#include "results/pts_tests.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kChromium = "/usr/bin/chromium";

// Every kind of review-lab profile with short options (each well under a second on the
// simulator): cdm at two fill levels, the surface of a drive with an SLC cache, the OP advisor
// on a drive that gains from spare area.
const std::vector<std::pair<std::string, std::vector<std::string>>> kProfiles = {
    {"p-cdm",
     {"cdm", "--target", "sim:tiny", "--size", "32MiB", "--passes", "2", "--time", "300ms",
      "--pause", "100ms", "--fill", "0,90"}},
    {"p-atto",
     {"atto", "--target", "sim:tiny", "--size", "8MiB", "--min-bs", "4KiB", "--max-bs", "1MiB"}},
    {"p-as-ssd", {"as-ssd", "--target", "sim:tiny", "--size", "32MiB", "--time", "300ms"}},
    {"p-surface", {"surface", "--target", "sim:client-nvme-tlc?scale=1024", "--segments", "20"}},
    {"p-fileio", {"fileio", "--target", "sim:tiny", "--threads", "16", "--time", "300ms"}},
    {"p-sql",
     {"sql", "--target", "sim:tiny", "--time", "300ms", "--ramp", "0", "--points", "50,100,120"}},
    {"p-fill", {"fill", "--target", "sim:tiny", "--percent", "50"}},
    {"p-op",
     {"op-advisor", "--target", "sim:dc-sata-read-intensive?scale=16384", "--op", "0,20", "--time",
      "10s", "--interval", "500ms"}},
    {"p-user", {SSDLAB_PROFILES_DIR "/mixed-oltp.toml", "--target", "sim:tiny"}},
};

class ReportE2e : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = *dir_ / "r.db";
    // The review battery with short rounds (as in the brief), and a second drive with more
    // spare area for the side-by-side report.
    std::vector<std::string> common = {
        "--db",         db_,   "--spec",         "review", "--round",       "5s",
        "--wsat-round", "5s",  "--lvi-warmup",   "1s",     "--lvi-measure", "4s",
        "--hir-cycles", "12",  "--hir-baseline", "60s",    "--xsr",         "60s,60s,60s",
        "--dirth-hist", "10s", "--progress",     "none"};
    std::vector<std::string> a = {"pts", "--target", "sim:tiny?logical_block=512", "--run", "demo"};
    a.insert(a.end(), common.begin(), common.end());
    Proc p = RunSsdlab(a);
    ASSERT_EQ(p.exit_code, 0) << p.err;
    std::vector<std::string> b = {"pts",
                                  "--target",
                                  "sim:tiny?logical_block=512&op=28",
                                  "--run",
                                  "more-op",
                                  "--tests",
                                  "iops,tp,lat,lvi,wsat"};
    b.insert(b.end(), common.begin(), common.end());
    p = RunSsdlab(b);
    ASSERT_EQ(p.exit_code, 0) << p.err;
    for (const auto& [run, args] : kProfiles) {
      std::vector<std::string> argv = {"profile"};
      argv.insert(argv.end(), args.begin(), args.end());
      argv.insert(argv.end(), {"--run", run, "--db", db_, "--progress", "none"});
      p = RunSsdlab(argv);
      ASSERT_EQ(p.exit_code, 0) << run << ": " << p.err;
    }
    // A trace replay with recorded response times, and the trace's statistics.
    {
      std::ofstream msr(*dir_ / "msr.csv");
      for (int i = 0; i < 3000; ++i) {
        msr << 128166372003061629ULL + i * 400ULL << ",hm,0," << (i % 3 ? "Read" : "Write") << ","
            << (i * 7919ULL % 20000) * 4096 << "," << (i % 7 ? 4096 : 65536) << "," << 800 + i % 400
            << "\n";
      }
    }
    p = RunSsdlab({"replay", *dir_ / "msr.csv", "--target", "sim:tiny", "--timing", "scale:2",
                   "--db", db_, "--run", "r-replay"});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    p = RunSsdlab({"trace", "stats", *dir_ / "msr.csv", "--db", db_, "--run", "r-stats"});
    ASSERT_EQ(p.exit_code, 0) << p.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static TempDir* dir_;
  static std::string db_;
};
TempDir* ReportE2e::dir_ = nullptr;
std::string ReportE2e::db_;

std::string ChromiumFlags(const std::string& profile) {
  return std::string(kChromium) +
         " --headless --no-sandbox --disable-gpu --disable-background-networking "
         "--disable-component-update --disable-sync"
         " --no-first-run --disable-default-apps --hide-scrollbars --user-data-dir=" +
         profile + " --virtual-time-budget=300000";
}

TEST_F(ReportE2e, ReportOfPtsAndProfileRunsRendersEveryChartInChromium) {
  std::string html_path = *dir_ / "report.html";
  std::vector<std::string> args = {"report", "demo", "more-op"};
  for (const auto& pr : kProfiles) args.push_back(pr.first);
  args.insert(args.end(), {"r-replay", "r-stats"});
  args.insert(args.end(), {"--db", db_, "-o", html_path, "--spec",
                           std::string(SSDLAB_SPECS_DIR) + "/kingston-dc400-1600gb.toml", "--title",
                           "ssdlab e2e report"});
  Proc p = RunSsdlab(args);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::string html = ReadFile(html_path);
  EXPECT_LT(html.size(), 5u * 1000 * 1000) << "a report with every test must stay under 5 MB";
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  size_t charts = 0;
  for (size_t pos = html.find("class=\"vis\""); pos != std::string::npos;
       pos = html.find("class=\"vis\"", pos + 1))
    ++charts;
  EXPECT_GT(charts, 40u);
  EXPECT_NE(html.find("continuous (return to baseline)"), std::string::npos)
      << "HIR draws the return to baseline";
  for (const char* s : {"sec-iops",
                        "sec-tp",
                        "sec-lat",
                        "sec-lvi",
                        "sec-wsat",
                        "sec-hir",
                        "sec-xsr",
                        "sec-dirth",
                        "sec-ecw",
                        "sec-op",
                        "sec-claims",
                        "sec-sim",
                        "sec-temperature",
                        "sec-profile-cdm",
                        "sec-profile-atto",
                        "sec-profile-as-ssd",
                        "sec-profile-surface",
                        "sec-profile-fileio",
                        "sec-profile-curves",
                        "sec-profile-fill",
                        "sec-profile-op-advisor",
                        "sec-profile-mixed-oltp",
                        "sec-replay",
                        "sec-trace-stats"}) {
    EXPECT_NE(html.find(s), std::string::npos) << s;
  }
  if (!fs::exists(kChromium))
    GTEST_SKIP() << "Debian's chromium is not installed (scripts/deps.sh installs it)";

  std::string profile = *dir_ / "chromium-profile";
  std::string dom;
  int rc = Shell(
      ChromiumFlags(profile) + " --dump-dom file://" + html_path + " 2>" + (*dir_ / "chromium.err"),
      &dom);
  ASSERT_EQ(rc, 0) << ReadFile(*dir_ / "chromium.err");
  json status = DoneJson(dom, "render-status");
  ASSERT_TRUE(status.is_object()) << "the page did not finish drawing; DOM size " << dom.size();
  EXPECT_EQ(status["charts"].get<size_t>(), charts);
  EXPECT_EQ(status["rendered"].get<size_t>(), charts) << status.dump(1);
  EXPECT_TRUE(status["failed"].empty()) << status["failed"].dump(1);
  EXPECT_TRUE(status["errors"].empty()) << "console errors: " << status["errors"].dump(1);
  for (auto& [id, marks] : status["marks"].items())
    EXPECT_GT(marks.get<int>(), 0) << id << " has no data marks";

  fs::create_directories(SSDLAB_TEST_OUTPUT);
  std::string shot = std::string(SSDLAB_TEST_OUTPUT) + "/report.png";
  fs::remove(shot);
  rc = Shell(ChromiumFlags(profile) + " --window-size=1400,9000 --screenshot=" + shot + " file://" +
             html_path + " 2>>" + (*dir_ / "chromium.err"));
  ASSERT_EQ(rc, 0) << ReadFile(*dir_ / "chromium.err");
  std::string png = ReadFile(shot);
  ASSERT_GT(png.size(), 10000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  std::cerr << "screenshot: " << shot << "\n";
}

TEST_F(ReportE2e, ExportWritesCsvAndJson) {
  Proc p = RunSsdlab({"export", "demo", "--db", db_, "--csv", *dir_ / "csv"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  for (const char* f : {"summary.csv", "rounds.csv", "iops.csv", "tp.csv", "lat.csv", "lvi.csv",
                        "wsat.csv", "hir.csv", "xsr.csv", "dirth.csv", "ecw.csv", "op.csv"}) {
    EXPECT_TRUE(fs::exists(*dir_ / "csv/" + f)) << f;
  }
  std::string iops = ReadFile(*dir_ / "csv/iops.csv");
  EXPECT_EQ(CountLines(iops), 1 + 7 * 7);  // header + block sizes x mixes
  p = RunSsdlab({"export", "demo", "--db", db_, "--json", *dir_ / "demo.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(*dir_ / "demo.json");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["tests"].size(), ssdlab::results::PtsTests().size());
  // A profile run: its summary figures at each fill level.
  p = RunSsdlab({"export", "p-cdm", "--db", db_, "--csv", *dir_ / "csv-cdm"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::string sum = ReadFile(*dir_ / "csv-cdm/profile_summary.csv");
  EXPECT_EQ(sum.rfind("test,kind,fill_pct,metric,value\n", 0), 0u) << sum;
  EXPECT_NE(sum.find("cdm,cdm,90,RND4K Q1T1 write IOPS,"), std::string::npos) << sum;
}

TEST_F(ReportE2e, BadInputsGiveOneLineAndExit2) {
  std::string bad_key = *dir_ / "bad_key.toml", bad_unit = *dir_ / "bad_unit.toml";
  std::ofstream(bad_key)
      << "[drive]\nmodel = \"x\"\n[claims]\nseq_read = \"555 MB/s\"\nrandom_read = \"1 IOPS\"\n";
  std::ofstream(bad_unit) << "[claims]\nrnd4k_read = \"78000 iops/s\"\n";
  std::string out = *dir_ / "r.html";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases = {
      {{"report", "nope", "--db", db_, "-o", out}, "no run named 'nope'"},
      {{"report", "demo", "nope", "--db", db_, "-o", out}, "'nope'"},
      {{"report", "demo", "--db", db_, "-o", out, "--spec", bad_key},
       "bad_key.toml:5: unknown key 'random_read'"},
      {{"report", "demo", "--db", db_, "-o", out, "--spec", bad_unit},
       "bad_unit.toml:2: claims.rnd4k_read: unknown unit 'iops/s'"},
      {{"report", "demo", "--db", db_, "-o", out, "--spec", *dir_ / "none.toml"}, "cannot read"},
      {{"report", "demo", "--db", db_, "-o", *dir_ / "missing/r.html"}, "does not exist"},
      {{"report", "demo", "--db", *dir_ / "none.db", "-o", out}, "does not exist"},
      {{"export", "nope", "--db", db_, "--json", *dir_ / "x.json"}, "no run named 'nope'"},
      {{"export", "demo", "--db", db_, "--json", *dir_ / "missing/x.json"}, "does not exist"},
      {{"export", "demo", "--db", db_, "--csv", *dir_ / "missing/csv"}, "does not exist"},
      {{"export", "demo", "--db", db_}, "exactly one of --csv DIR or --json FILE"},
  };
  for (const Case& c : cases) {
    Proc p = RunSsdlab(c.args);
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(p.exit_code, 2) << cmd << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << cmd << p.err;
    EXPECT_NE(p.err.find("ssdlab: error: "), std::string::npos) << cmd << p.err;
    EXPECT_NE(p.err.find(c.message), std::string::npos) << cmd << p.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace ssdlab::test
