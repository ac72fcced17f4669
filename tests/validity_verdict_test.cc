// End-to-end tests of the validity of ssdlab's verdicts and figures (issue 44, the verdict
// slice): steady state judged only on windows wholly after preconditioning, verdicts that show
// both rules' evidence and a test's own end, `pts --require-steady-state`, 64-bit seeds as
// strings, `sim describe --json` numbers, and `trace stats`' per-device sequentiality and mean
// rate of a sparse trace. All on the simulator or on files under the test's temporary area.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

// The line of `show`'s output for test `name` ("" when none).
std::string ShowLine(const std::string& out, const std::string& name) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  " + name + " ", 0) == 0) return line;
  }
  return "";
}

// ---------------------------------------------------------------- defect 4

// LVI's workload-dependent preconditioning with --wdpc-capacity: the rounds write random 4 KiB
// until 1x the range is written; steady state may be judged only on a window of rounds that
// all start after the round in which that amount was reached. The old code judged the window
// ending with that round, whose rounds ran before preconditioning had completed.
TEST(ValidityVerdict, SteadyStateWindowLiesWhollyAfterPreconditioning) {
  TempDir t;
  Proc p =
      RunSsdlab({"pts",   "--target",    "sim:tiny",  "--db",         t / "r.db", "--run",
                 "w",     "--spec",      "review",    "--tests",      "lvi",      "--wdpc-capacity",
                 "1x",    "--round",     "1s",        "--max-rounds", "12",       "--lvi-threads",
                 "1",     "--lvi-qds",   "1",         "--lvi-warmup", "10ms",     "--lvi-measure",
                 "100ms", "--lvi-mixes", "0/100",     "--lvi-bs",     "4KiB",     "--progress",
                 "none",  "--json",      t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json doc = ReadJson(t / "r.json");
  const json* lvi = FindTest(doc, "lvi");
  ASSERT_NE(lvi, nullptr);
  const json& ss = (*lvi)["steady_state"];
  // Bytes written by each preconditioning round: its 4 KiB IOPS x its 1 s.
  const double range = (*lvi)["results"]["range_bytes"].get<double>();
  double written = 0;
  int complete = -1;  // 0-based round in which 1x the range was written
  const json& rounds = (*lvi)["rounds"];
  for (size_t i = 0; i < rounds.size() && complete < 0; ++i) {
    const json& tr = rounds[i]["tracking"];
    ASSERT_TRUE(tr.contains("precondition rw=0/100 bs=4KiB iops")) << tr;
    written += tr["precondition rw=0/100 bs=4KiB iops"].get<double>() * 1.0 * 4096;
    if (written >= range * (1 - 1e-9)) complete = static_cast<int>(i);
  }
  ASSERT_GE(complete, 0) << "1x the range was never written in " << rounds.size() << " rounds";
  EXPECT_EQ(ss["first_judged_round"].get<int>(), complete + 1) << ss;
  if (ss["reached"].get<bool>()) {
    EXPECT_GT(ss["window_first_round"].get<int>(), complete)
        << "the window starts in or before round " << complete + 1
        << ", in which preconditioning completed: " << ss;
  }
  // The rounds judged are those after it: at least a whole window of them was run.
  EXPECT_GE(static_cast<int>(rounds.size()),
            complete + 1 + (ss["reached"].get<bool>() ? ss["window"].get<int>() : 0));
}

// ---------------------------------------------------------------- defect 5

// A quick IOPS test by the review rule: `show` and the report name the rule that decided with
// its figure, and SNIA's outcome with its data and slope excursions, from the stored verdict.
TEST(ValidityVerdict, VerdictShowsBothRulesWithTheirValues) {
  TempDir t;
  Proc p = RunSsdlab({"pts",   "--target",     "sim:tiny", "--db",      t / "r.db",  "--run",
                      "v",     "--spec",       "review",   "--tests",   "iops",      "--round",
                      "1s",    "--max-rounds", "8",        "--iops-bs", "4KiB",      "--iops-mixes",
                      "0/100", "--progress",   "none",     "--json",    t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json ss = (*FindTest(ReadJson(t / "r.json"), "iops"))["steady_state"];
  ASSERT_TRUE(ss.contains("criteria")) << ss;
  EXPECT_EQ(ss["criteria"]["rule"], "review-band");
  EXPECT_EQ(ss["criteria"]["max_range_pct"], 20.0);
  EXPECT_EQ(ss["criteria"]["max_slope_pct"], 10.0);
  EXPECT_EQ(ss["criteria"]["band_pct"], 10.0);
  ASSERT_TRUE(ss.contains("snia_met") && ss.contains("band_met")) << ss;
  EXPECT_EQ(ss["band_met"], ss["reached"]) << "the review rule decides under --spec review";
  Proc show = RunSsdlab({"show", "v", "--db", t / "r.db"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const std::string line = ShowLine(show.out, "iops");
  EXPECT_TRUE(Has(line, "by the review rule (fitted line")) << show.out;
  EXPECT_TRUE(Has(line, "band 10%")) << line;
  // SNIA's outcome with its figures, whichever it is.
  if (ss["snia_met"].get<bool>()) {
    EXPECT_TRUE(Has(line, "SNIA's rule met too (data excursion")) << line;
  } else {
    EXPECT_TRUE(Has(line, "exceeds SNIA's")) << line;
  }
  Proc report = RunSsdlab({"report", "v", "--db", t / "r.db", "-o", t / "r.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(Has(ReadFile(t / "r.html"), "by the review rule (fitted line"));
}

// WSAT ends at its own capacity limit: one 1 s round of sim:tiny writes more than 0.01x of it.
// The verdict says so, not "STEADY STATE NOT REACHED after 1 rounds", and
// --require-steady-state does not fail on it.
TEST(ValidityVerdict, WsatEndedByItsOwnCapacitySaysSo) {
  TempDir t;
  Proc p = RunSsdlab(
      {"pts",    "--target",        "sim:tiny", "--db",       t / "r.db", "--run",
       "ws",     "--spec",          "review",   "--tests",    "wsat",     "--wsat-round",
       "1s",     "--wsat-capacity", "0.01x",    "--progress", "none",     "--require-steady-state",
       "--json", t / "r.json"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  const json ss = (*FindTest(ReadJson(t / "r.json"), "wsat"))["steady_state"];
  EXPECT_EQ(ss["rounds_run"], 1) << ss;
  EXPECT_EQ(ss["end"], "capacity") << ss;
  Proc show = RunSsdlab({"show", "ws", "--db", t / "r.db"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const std::string line = ShowLine(show.out, "wsat");
  EXPECT_TRUE(Has(line, "ended at 0.01x capacity, the spec's end")) << show.out;
  EXPECT_FALSE(Has(line, "NOT REACHED")) << line;
}

// `pts --require-steady-state`: exit status 4 when a test ran out of rounds before steady
// state (4 rounds, the first of them fresh), 0 without the flag; the verdicts are still stored.
TEST(ValidityVerdict, RequireSteadyStateExitsFourWhenATestMissedIt) {
  TempDir t;
  const std::vector<std::string> quick = {"--target",     "sim:tiny", "--spec",     "review",
                                          "--tests",      "iops",     "--round",    "1s",
                                          "--max-rounds", "4",        "--iops-bs",  "4KiB",
                                          "--iops-mixes", "0/100",    "--progress", "none"};
  Proc plain = RunSsdlab(Args({"pts", "--db", t / "a.db"}, quick));
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  Proc req = RunSsdlab(Args({"pts", "--db", t / "b.db", "--require-steady-state"}, quick));
  EXPECT_EQ(req.exit_code, 4) << req.err;
  EXPECT_TRUE(Has(req.err, "--require-steady-state: iops did not reach steady state")) << req.err;
  EXPECT_TRUE(Has(req.err, "STEADY STATE NOT REACHED after 4 rounds (the round limit)")) << req.err;
  Proc help = RunSsdlab({"pts", "--help"});
  EXPECT_TRUE(Has(help.out, "--require-steady-state")) << help.out;
}

// ---------------------------------------------------------------- defect 6

// A seed above 2^53 survives every JSON document ssdlab writes (as a decimal string: a reader
// that keeps numbers as doubles would round 9990447348439510779 to 9990447348439511000), and
// ssdlab reads its own documents back with it intact (the report's set-up table).
TEST(ValidityVerdict, SeedsAbove2To53AreWrittenAsStrings) {
  TempDir t;
  const std::string seed = "9990447348439510779";
  Proc run = RunSsdlab({"run", "--target", "sim:tiny", "--rw", "randwrite", "--bs", "4KiB",
                        "--runtime", "20ms", "--seed", seed, "--json", t / "run.json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json r = ReadJson(t / "run.json");
  EXPECT_EQ(r["context"]["seed"], json(seed)) << r["context"]["seed"];
  EXPECT_EQ(r["context"]["workload"]["seed"], json(seed)) << r["context"]["workload"]["seed"];

  Proc pts = RunSsdlab({"pts",       "--target",   "sim:tiny",     "--db",         t / "p.db",
                        "--run",     "s",          "--spec",       "review",       "--tests",
                        "iops",      "--round",    "1s",           "--max-rounds", "4",
                        "--iops-bs", "4KiB",       "--iops-mixes", "0/100",        "--seed",
                        seed,        "--progress", "none",         "--json",       t / "p.json"});
  ASSERT_EQ(pts.exit_code, 0) << pts.err;
  for (const std::string& doc_path : {t / "p.json", std::string()}) {
    json doc;
    if (doc_path.empty()) {
      Proc show = RunSsdlab({"show", "s", "--db", t / "p.db", "--json"});
      ASSERT_EQ(show.exit_code, 0) << show.err;
      doc = json::parse(show.out);
    } else {
      doc = ReadJson(doc_path);
    }
    const json* iops = FindTest(doc, "iops");
    ASSERT_NE(iops, nullptr);
    // Every seed of the document is a string of digits (the options' and each cell's).
    const json& cells = (*iops)["results"]["cells"];
    ASSERT_FALSE(cells.empty());
    for (const json& c : cells) EXPECT_TRUE(c["workload"]["seed"].is_string()) << c["workload"];
    const std::string dump = doc.dump();
    EXPECT_TRUE(Has(dump, "\"seed\":\"" + seed + "\"")) << "the options' seed, as a string";
    EXPECT_FALSE(Has(dump, "\"seed\":9")) << "no seed as a number";
  }
  Proc report = RunSsdlab({"report", "s", "--db", t / "p.db", "-o", t / "p.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(Has(ReadFile(t / "p.html"), seed)) << "the report's seed, all 64 bits";
}

// `sim describe --json`: numeric figures are JSON numbers (texts stay texts).
TEST(ValidityVerdict, SimDescribeJsonGivesNumbersAsNumbers) {
  Proc p = RunSsdlab({"sim", "describe", "tiny", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json doc = json::parse(p.out);
  std::map<std::string, json> by_key;
  for (const json& f : doc) by_key[f["key"].get<std::string>()] = f["value"];
  for (const char* k : {"dies", "pages_per_block", "user_bytes_simulated", "raw_bytes_full", "op",
                        "analytic_wa", "write_iops_4k_steady", "blocks_simulated"}) {
    ASSERT_TRUE(by_key.count(k)) << k;
    EXPECT_TRUE(by_key[k].is_number()) << k << ": " << by_key[k];
  }
  EXPECT_TRUE(by_key["dies"].is_number_unsigned());
  EXPECT_TRUE(by_key["preset"].is_string());
  EXPECT_TRUE(by_key["gc"].is_string());
}

// `trace stats`: sequentiality per device, as documented. One write on device 0, 16 random
// writes on device 1, then the write on device 0 that follows its first: 1 of 18 sequential.
// With one window for all devices, device 1's 16 I/Os pushed device 0's end out: 0%.
TEST(ValidityVerdict, TraceStatsSequentialWindowIsPerDevice) {
  TempDir t;
  std::ofstream f(t / "spc.csv");
  f << "0,0,4096,w,0.000\n";
  for (int i = 0; i < 16; ++i) f << "1," << (1000 + 64 * i) << ",4096,w,0.00" << i / 10 << "\n";
  f << "0,8,4096,w,0.002\n";
  f.close();
  Proc p = RunSsdlab({"trace", "stats", t / "spc.csv", "--json", t / "s.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json s = ReadJson(t / "s.json");
  EXPECT_EQ(s["trace"]["records"], 18) << s["trace"];
  EXPECT_NEAR(s["sequential_pct"].get<double>(), 100.0 / 18, 1e-9) << s["sequential_pct"];
}

// `trace stats` on a sparse trace (3 I/Os over a minute): the mean rate is a figure, not 0.
TEST(ValidityVerdict, TraceStatsMeanRateOfASparseTraceIsNotZero) {
  TempDir t;
  std::ofstream f(t / "spc.csv");
  f << "0,0,4096,w,0\n0,800,4096,w,30\n0,1600,4096,r,60\n";
  f.close();
  Proc p = RunSsdlab({"trace", "stats", t / "spc.csv"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_FALSE(Has(p.out, "mean 0 IOPS")) << p.out;
  EXPECT_TRUE(Has(p.out, "mean 0.03333 IOPS (2 per minute)")) << p.out;
}

}  // namespace
}  // namespace ssdlab::test
