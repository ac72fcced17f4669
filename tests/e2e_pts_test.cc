// End-to-end tests of `ssdlab pts`, `ls` and `show` on the simulator and on a file.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "e2e_util.h"
#include "results/pts_tests.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

// Shorter durations than the spec's, same tests: the battery's shape in CI time.
const std::vector<std::string> kQuickSim = {
    "--round",       "5s",          "--wsat-round", "5s",  "--lvi-warmup",   "1s",
    "--lvi-measure", "4s",          "--hir-cycles", "12",  "--hir-baseline", "60s",
    "--xsr",         "60s,60s,60s", "--dirth-hist", "10s", "--progress",     "none"};

TEST(PtsE2E, WholeReviewBatteryOnTheSimulator) {
  TempDir t;
  // 512-byte logical blocks: ECW's block-size mix starts at 0.5 KiB.
  Proc p = RunSsdlab(Args({"pts", "--target", "sim:tiny?logical_block=512", "--db", t / "r.db",
                           "--run", "full", "--spec", "review", "--json", t / "r.json"},
                          kQuickSim));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "r.json");
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["tests"].size(), ssdlab::results::PtsTests().size());
  for (const json& test : doc["tests"]) {
    EXPECT_EQ(test["status"], "done") << test["name"];
    for (const char* k : {"name", "steady_state", "rounds", "results"})
      EXPECT_TRUE(test.contains(k)) << k;
  }
  // Steady-state records carry every figure.
  const json& iops = *FindTest(doc, "iops");
  for (const char* k : {"reached", "rounds_run", "window", "mean", "range_pct",
                        "slope_excursion_pct", "slope", "intercept"}) {
    EXPECT_TRUE(iops["steady_state"].contains(k)) << k;
  }
  EXPECT_EQ(iops["steady_state"]["window"], 4);
  EXPECT_EQ(iops["results"]["cells"].size(), 49u) << "7 mixes x 7 block sizes (0.5 KiB dropped)";
  ASSERT_FALSE(iops["rounds"].empty());
  EXPECT_TRUE(iops["rounds"][0]["tracking"].contains("rw=0/100 bs=4KiB iops"));

  // WSAT: fresh-out-of-box peak, then a drop to steady state.
  const json& wsat = (*FindTest(doc, "wsat"))["results"]["per_round"];
  ASSERT_GE(wsat.size(), 5u);
  double first = wsat[0]["total"]["iops"], last = wsat[wsat.size() - 1]["total"]["iops"];
  EXPECT_GT(first, 1.5 * last) << "fresh " << first << " vs saturated " << last;
  EXPECT_GE(wsat[wsat.size() - 1]["written_capacities"].get<double>(), 4.0);

  // OP study: more spare area, more steady-state write IOPS.
  const json& ops = (*FindTest(doc, "op"))["results"]["op_points"];
  ASSERT_EQ(ops.size(), 4u);
  for (size_t i = 1; i < ops.size(); ++i) {
    EXPECT_GT(ops[i]["steady_write_iops"].get<double>(),
              ops[i - 1]["steady_write_iops"].get<double>())
        << "OP " << ops[i]["op_pct"];
  }
  // HIR: idle time lets GC recover: write bursts after waits beat continuous writing.
  const json& hir = (*FindTest(doc, "hir"))["results"];
  const json& states = hir["wait_states"];
  ASSERT_EQ(states.size(), 5u);
  for (const json& s : states)
    EXPECT_GT(s["gain_vs_continuous"].get<double>(), 1.0) << s["wait_ns"];
  // XSR and DIRTH report what they promise.
  EXPECT_TRUE((*FindTest(doc, "xsr"))["results"].contains("recovery_time_s"));
  EXPECT_EQ((*FindTest(doc, "dirth"))["results"]["selected"].size(), 3u);
  EXPECT_EQ((*FindTest(doc, "ecw"))["results"]["cells"].size(), 49u);
  // LVI: 3 mixes x 2 block sizes, 3 thread counts x 6 queue depths each.
  const json& curves = (*FindTest(doc, "lvi"))["results"]["curves"];
  ASSERT_EQ(curves.size(), 6u);
  EXPECT_EQ(curves[0]["points"].size(), 18u);

  Proc ls = RunSsdlab({"ls", "--db", t / "r.db"});
  EXPECT_EQ(ls.exit_code, 0);
  EXPECT_NE(ls.out.find("full"), std::string::npos);
  Proc show = RunSsdlab({"show", "full", "--db", t / "r.db"});
  EXPECT_EQ(show.exit_code, 0);
  EXPECT_NE(show.out.find("steady state reached"), std::string::npos) << show.out;
}

// Number of committed rounds in the database.
int CommittedRounds(const std::string& db_path) {
  auto rows = SqlRows(db_path, "SELECT count(*) FROM rounds");
  return rows.empty() ? 0 : std::stoi(rows.front());
}

TEST(PtsE2E, SigkillThenResumeGivesIdenticalResults) {
  TempDir t;
  std::vector<std::string> common = {"--target",     "sim:tiny",      "--spec",     "review",
                                     "--tests",      "iops,wsat,lat", "--round",    "10s",
                                     "--wsat-round", "10s",           "--progress", "none"};
  Proc whole =
      RunSsdlab(Args({"pts", "--db", t / "a.db", "--run", "r", "--json", t / "a.json"}, common));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;

  pid_t pid =
      StartSsdlab(Args({"pts", "--db", t / "b.db", "--run", "r"}, common), t / "out", t / "err");
  // Kill it in the middle of the second test (iops takes 5+ rounds, wsat a dozen).
  bool killed = false;
  for (int i = 0; i < 6000 && !killed; ++i) {
    if (CommittedRounds(t / "b.db") >= 9) {
      kill(pid, SIGKILL);
      killed = true;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  int rc = Wait(pid);
  ASSERT_TRUE(killed) << "the run finished before it could be killed: " << ReadFile(t / "err");
  ASSERT_EQ(rc, 128 + SIGKILL);
  Proc status = RunSsdlab({"ls", "--db", t / "b.db"});
  EXPECT_NE(status.out.find("running"), std::string::npos) << status.out;

  Proc resumed = RunSsdlab(
      {"pts", "--db", t / "b.db", "--resume", "r", "--json", t / "b.json", "--progress", "none"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("(resumed)"), std::string::npos);
  json a = ReadJson(t / "a.json"), b = ReadJson(t / "b.json");
  ASSERT_EQ(a["tests"].size(), 3u);
  // A simulated drive records no wall-clock figures: everything, health included, is identical.
  EXPECT_EQ(a["tests"], b["tests"]) << "resumed results differ from the uninterrupted run";
  EXPECT_EQ(b["context"]["status"], "done");
}

TEST(PtsE2E, TwoSimulatedRunsStoreByteIdenticalResults) {
  TempDir t;
  // XSR keeps a time series; the others keep histograms per round.
  std::vector<std::string> common = {"--target", "sim:tiny",     "--spec",     "review",
                                     "--tests",  "iops,lat,xsr", "--round",    "2s",
                                     "--xsr",    "2s,2s,2s",     "--progress", "none"};
  for (const char* db : {"a.db", "b.db"}) {
    Proc p = RunSsdlab(Args({"pts", "--db", t / db, "--run", "r"}, common));
    ASSERT_EQ(p.exit_code, 0) << p.err;
  }
  // Everything but the wall-clock stamps of the run and its rounds.
  for (const char* sql :
       {"SELECT name, kind, status, config FROM runs",
        "SELECT seq, name, status, params, steady_state, results FROM tests ORDER BY seq",
        "SELECT test_id, round, tracking FROM rounds ORDER BY test_id, round",
        "SELECT * FROM phases ORDER BY id", "SELECT * FROM histograms ORDER BY phase_id, direction",
        "SELECT * FROM series ORDER BY phase_id, idx, direction"}) {
    auto a = SqlRows(t / "a.db", sql), b = SqlRows(t / "b.db", sql);
    EXPECT_FALSE(a.empty()) << sql;
    EXPECT_TRUE(a == b) << "the two runs stored different rows for: " << sql;
  }
}

// LAT judges steady state on the 0/100 cell; without it in --lat-mixes, on the mix with the
// most writes, which is measured (before, the missing 0/100 cell was tracked: never steady).
TEST(PtsE2E, LatencyWithoutTheWriteMixTracksAMeasuredCell) {
  TempDir t;
  Proc p = RunSsdlab({"pts", "--target", "sim:tiny", "--tests", "lat", "--lat-mixes", "100,65",
                      "--lat-bs", "4KiB", "--db", t / "r.db", "--json", t / "r.json", "--progress",
                      "none"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const nlohmann::json lat = ReadJson(t / "r.json")["tests"][0];
  ASSERT_EQ(lat["name"], "lat");
  EXPECT_TRUE(lat["steady_state"]["reached"].get<bool>()) << lat["steady_state"];
  EXPECT_TRUE(Has(lat["steady_state"].dump(), "rw=65/35 bs=4KiB")) << lat["steady_state"];
}

TEST(PtsE2E, EveryTestOnAFile) {
  TempDir t;
  // The file is made first with `run`, then tested with short rounds and small matrices.
  ASSERT_EQ(
      RunSsdlab({"run", "--target", t / "f", "--size", "64MiB", "--rw", "write", "--bs", "1MiB"})
          .exit_code,
      0);
  Proc p = RunSsdlab({"pts",         "--target",
                      t / "f",       "--db",
                      t / "r.db",    "--run",
                      "file",        "--json",
                      t / "r.json",  "--round",
                      "2s",          "--max-rounds",
                      "5",           "--window",
                      "2",           "--wipc",
                      "1x",          "--iops-bs",
                      "64KiB,4KiB",  "--iops-mixes",
                      "100/0,0/100", "--tp-bs",
                      "1MiB",        "--lat-bs",
                      "4KiB",        "--lat-mixes",
                      "100/0,0/100", "--lvi-threads",
                      "1,2",         "--lvi-qds",
                      "1,4",         "--lvi-bs",
                      "4KiB",        "--lvi-mixes",
                      "0/100",       "--lvi-warmup",
                      "100ms",       "--lvi-measure",
                      "500ms",       "--wsat-round",
                      "1s",          "--wsat-max-rounds",
                      "3",           "--hir-waits",
                      "500ms,1s",    "--hir-cycles",
                      "2",           "--hir-write",
                      "500ms",       "--hir-baseline",
                      "1s",          "--xsr",
                      "1s,1s,1s",    "--dirth-threads",
                      "2,1",         "--dirth-qds",
                      "4,1",         "--dirth-hist",
                      "500ms",       "--op",
                      "25",          "--progress",
                      "json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = ReadJson(t / "r.json");
  ASSERT_EQ(doc["tests"].size(), ssdlab::results::PtsTests().size());
  for (const json& test : doc["tests"]) {
    EXPECT_EQ(test["status"], "done") << test["name"];
    EXPECT_FALSE(test["results"].empty()) << test["name"];
  }
  EXPECT_EQ((*FindTest(doc, "iops"))["results"]["purge_method"], "punch-hole");
  EXPECT_EQ((*FindTest(doc, "iops"))["results"]["cells"].size(), 4u);
  // --progress json: every stderr line before the summary is a JSON event.
  int events = 0, hir_cycles = 0;
  std::istringstream in(p.err);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    json e = json::parse(line);
    ASSERT_TRUE(e.contains("stage")) << line;
    // The run's own events (its start as a note, its end, the verdicts) are not progress.
    const std::string stage = e["stage"];
    if (stage == "note" || stage == "end" || stage == "verdict") continue;
    EXPECT_TRUE(e.contains("test") && e.contains("eta_test_s")) << line;
    // An event that reports a measurement reports its p99 with it (HIR's cycles once did not).
    if (e["iops"].is_number() && e["iops"].get<double>() > 0) {
      EXPECT_TRUE(e["p99_ns"].is_number() && e["p99_ns"].get<double>() > 0) << line;
    }
    hir_cycles += e.value("test", "") == "hir" && e.value("stage", "") == "cycle";
    ++events;
  }
  EXPECT_GT(events, 20);
  EXPECT_GT(hir_cycles, 0);
}

// --time-scale: the spec's durations over N on the drive at scale N (explicit flags win), the
// scale written into the stored target; auto takes the scale the target sets.
TEST(PtsE2E, TimeScaleDividesTheSpecsDurationsAndScalesTheTarget) {
  TempDir t;
  const std::vector<std::string> quick = {"--spec",
                                          "review",
                                          "--tests",
                                          "iops,wsat",
                                          "--iops-bs",
                                          "4KiB",
                                          "--iops-mixes",
                                          "0/100",
                                          "--round",
                                          "2s",
                                          "--progress",
                                          "none",
                                          "--wsat-max-rounds",
                                          "2"};
  struct Case {
    std::string target, time_scale, stored_target;
    uint32_t n;
  };
  for (const Case& c :
       {Case{"sim:tiny?capacity=2GiB", "3", "sim:tiny?capacity=2GiB&scale=3", 3},
        Case{"sim:tiny?scale=4&capacity=2GiB", "auto", "sim:tiny?capacity=2GiB&scale=4", 4}}) {
    const std::string json_path = t / ("r" + c.time_scale + ".json");
    Proc p =
        RunSsdlab(Args({"pts", "--target", c.target, "--db", t / "r.db", "--run",
                        "ts" + c.time_scale, "--time-scale", c.time_scale, "--json", json_path},
                       quick));
    ASSERT_EQ(p.exit_code, 0) << p.err;
    const json config = ReadJson(json_path)["context"]["config"];
    EXPECT_EQ(config["args"]["target"], c.stored_target);
    EXPECT_EQ(config["args"]["time_scale"], std::to_string(c.n));
    const json& o = config["options"];
    EXPECT_EQ(o["time_scale"], c.n);
    EXPECT_EQ(o["round_ns"], 2'000'000'000u) << "--round given: kept";
    EXPECT_EQ(o["wsat_round_ns"], 60'000'000'000u / c.n);
    EXPECT_EQ(o["hir_wait_ns"][0], 5'000'000'000u / c.n);
  }
}

TEST(PtsE2E, BadInputs) {
  TempDir t;
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--tests", "iops,speed"},
       "unknown test 'speed'"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--window", "9", "--max-rounds", "5"},
       "larger than --max-rounds"},
      {{"pts", "--db", t / "r.db", "--resume", "ghost"}, "no run named 'ghost'"},
      {{"pts", "--target", "sim:nosuch", "--db", t / "r.db"}, "nosuch"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--spec", "pts-x"}, "unknown spec"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--round", "1 fortnight"}, "--round"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--iops-mixes", "70/20"},
       "add up to 100"},
      {{"show", "ghost", "--db", t / "r.db"}, "no run named 'ghost'"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--time-scale", "0"},
       "--time-scale: must be at least 1"},
      {{"pts", "--target", t / "disk.img", "--db", t / "r.db", "--time-scale", "4"},
       "simulated drives only"},
      {{"pts", "--target", "sim:tiny?scale=2", "--db", t / "r.db", "--time-scale", "4"},
       "sets scale=2, not scale=4"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--wdpc-capacity", "-1x"},
       "--wdpc-capacity '-1x' is not a multiple like 2x"},
  };
  for (const Case& c : cases) {
    Proc p = RunSsdlab(c.args);
    EXPECT_EQ(p.exit_code, 2) << c.expect << ": " << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_NE(p.err.find(c.expect), std::string::npos) << p.err;
  }
  // A database of another program.
  ASSERT_EQ(Shell("printf 'hello' > " + (t / "notdb")), 0);
  Proc notdb = RunSsdlab({"pts", "--target", "sim:tiny", "--db", t / "notdb"});
  EXPECT_EQ(notdb.exit_code, 2);
  EXPECT_NE(notdb.err.find("not an SQLite database"), std::string::npos) << notdb.err;
  sqlite3* db;
  ASSERT_EQ(sqlite3_open((t / "other.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE invoices(id INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  Proc other = RunSsdlab({"ls", "--db", t / "other.db"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("another program"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace ssdlab::test
