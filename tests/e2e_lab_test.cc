// The lab: results in PostgreSQL (a private server in a temporary directory), MPI ranks as
// clients of one load and as the drives of a fleet (mpirun on this machine, 2-4 ranks).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "e2e_util.h"
#include "store/pg_test_server.h"
#include "store/store.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

// The directions' bucket lists summed over the clients.
std::map<std::string, std::map<uint64_t, uint64_t>> SumOfClients(const json& mpi) {
  std::map<std::string, std::map<uint64_t, uint64_t>> sum;
  for (const json& c : mpi["clients"])
    for (auto& [dir, r] : c["results"].items())
      if (dir != "total" && r["ios"].get<uint64_t>())
        for (const json& b : r["histogram"]) sum[dir][b[0].get<uint64_t>()] += b[1].get<uint64_t>();
  return sum;
}

TEST(LabE2E, MultiClientMergedHistogramIsTheBucketSumOfTheRanks) {
  TempDir t;
  Proc p = RunMpi(2, {"run", "--mpi", "--target", "sim:tiny?seed=%r", "--rw", "randrw", "--bs",
                      "4KiB", "--qd", "8", "--runtime", "2s", "--range-per-rank", "--interval",
                      "500ms", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_TRUE(Has(p.out, "2 clients (MPI ranks), start skew")) << p.out;
  json doc = ReadJson(t / "r.json");
  const json& mpi = doc["mpi"];
  EXPECT_EQ(mpi["ranks"], 2);
  ASSERT_EQ(mpi["clients"].size(), 2u);
  EXPECT_TRUE(mpi["start_skew_ns"].is_number());
  // Each rank had its own half of the range.
  const json& c0 = mpi["clients"][0];
  const json& c1 = mpi["clients"][1];
  EXPECT_EQ(c0["target"], "sim:tiny?seed=0");
  EXPECT_EQ(c1["target"], "sim:tiny?seed=1");
  EXPECT_EQ(c0["range_end_bytes"], c1["range_begin_bytes"]);
  // The aggregate histogram is exactly the sum of the ranks' buckets; counts add up.
  auto sum = SumOfClients(mpi);
  ASSERT_EQ(sum.size(), 2u) << "reads and writes";
  for (auto& [dir, buckets] : sum) {
    std::map<uint64_t, uint64_t> got;
    for (const json& b : doc["results"][dir]["histogram"])
      got[b[0].get<uint64_t>()] = b[1].get<uint64_t>();
    EXPECT_EQ(got, sum[dir]) << dir;
    uint64_t ios = 0;
    for (auto [low, n] : got) ios += n;
    EXPECT_EQ(ios,
              c0["results"][dir]["ios"].get<uint64_t>() + c1["results"][dir]["ios"].get<uint64_t>())
        << dir;
    EXPECT_EQ(doc["results"][dir]["ios"].get<uint64_t>(), ios) << dir;
  }
  // The aggregate time series is the ranks' series summed interval by interval.
  ASSERT_EQ(doc["intervals"].size(), c0["intervals"].size());
  for (size_t i = 0; i < doc["intervals"].size(); ++i)
    EXPECT_EQ(doc["intervals"][i]["read"]["ios"].get<uint64_t>(),
              c0["intervals"][i]["read"]["ios"].get<uint64_t>() +
                  c1["intervals"][i]["read"]["ios"].get<uint64_t>());
}

TEST(LabE2E, WithoutMpirunTheLabFlagsSayHowToStartThem) {
  TempDir t;
  Proc run = RunSsdlab({"run", "--mpi", "--target", "sim:tiny", "--runtime", "1s"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Has(run.err, "mpirun -n N")) << run.err;
  Proc range = RunSsdlab({"run", "--range-per-rank", "--target", "sim:tiny", "--runtime", "1s"});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_TRUE(Has(range.err, "--range-per-rank needs --mpi")) << range.err;
  std::ofstream(t / "map") << "0 sim:tiny\n";
  Proc pts = RunSsdlab({"pts", "--target-map", t / "map", "--db", t / "r.db"});
  EXPECT_EQ(pts.exit_code, 2);
  EXPECT_TRUE(Has(pts.err, "started by mpirun")) << pts.err;
  Proc mpi = RunSsdlab({"pts", "--mpi", "--target", "sim:tiny", "--db", t / "r.db"});
  EXPECT_EQ(mpi.exit_code, 2);
  EXPECT_TRUE(Has(mpi.err, "mpirun -n N")) << mpi.err;
  Proc share = RunSsdlab({"pts", "--range-per-rank", "--target", "sim:tiny", "--db", t / "r.db"});
  EXPECT_EQ(share.exit_code, 2);
  EXPECT_TRUE(Has(share.err, "--range-per-rank needs --mpi")) << share.err;
}

const std::vector<std::string> kQuickPts = {"--spec",       "review",     "--tests",   "iops",
                                            "--round",      "2s",         "--iops-bs", "4KiB",
                                            "--iops-mixes", "100/0,0/100"};

TEST(LabE2E, FleetPtsOnFourSimulatedDrivesWritesFourCompleteRunsIntoPostgreSQL) {
  START_PG(server);
  auto url = server->NewDatabase("fleet");
  ASSERT_TRUE(url.ok()) << url.status().message();
  TempDir t;
  // Rank 3's drive is refused (an unknown preset): the others finish and are stored.
  std::ofstream(t / "map") << "# rank target\n0 sim:tiny?seed=0\n1 sim:tiny?seed=1\n"
                              "2 sim:tiny?seed=2\n3 sim:no-such-preset\n";
  std::vector<std::string> args = {"pts", "--target-map", t / "map", "--db", *url, "--run", "rack"};
  args.insert(args.end(), kQuickPts.begin(), kQuickPts.end());
  Proc p = RunMpi(4, args);
  EXPECT_NE(p.exit_code, 0) << p.out;
  EXPECT_TRUE(Has(p.out, "fleet rack: 4 ranks")) << p.out;
  EXPECT_TRUE(Has(p.out, "1 of 4 ranks failed")) << p.out;
  EXPECT_TRUE(Has(p.out, "no-such-preset")) << p.out;
  Proc ls = RunSsdlab({"ls", "--db", *url});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  for (int r = 0; r < 3; ++r) {
    Proc show = RunSsdlab({"show", "--json", "--db", *url, "rack-r" + std::to_string(r)});
    ASSERT_EQ(show.exit_code, 0) << show.err;
    json doc = json::parse(show.out);
    EXPECT_EQ(doc["context"]["status"], "done");
    EXPECT_EQ(doc["context"]["fleet"], "rack");
    EXPECT_EQ(doc["tests"][0]["status"], "done");
  }
  // The drive fixed, --resume runs the rank that did not finish and leaves the others be.
  std::ofstream(t / "map") << "0 sim:tiny?seed=0\n1 sim:tiny?seed=1\n2 sim:tiny?seed=2\n"
                              "3 sim:tiny?seed=3\n";
  std::vector<std::string> resume = {"pts",      "--target-map", t / "map",  "--db",         *url,
                                     "--resume", "rack",         "--report", t / "rack.html"};
  resume.insert(resume.end(), kQuickPts.begin(), kQuickPts.end());
  Proc again = RunMpi(4, resume);
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_TRUE(Has(again.out, "already done")) << again.out;
  int done = 0;
  Proc ls2 = RunSsdlab({"ls", "--db", *url});
  for (int r = 0; r < 4; ++r) {
    Proc show = RunSsdlab({"show", "--json", "--db", *url, "rack-r" + std::to_string(r)});
    ASSERT_EQ(show.exit_code, 0) << show.err;
    json doc = json::parse(show.out);
    done += doc["context"]["status"] == "done" && doc["tests"][0]["status"] == "done";
  }
  EXPECT_EQ(done, 4) << ls2.out;
  // Rank 0 wrote the comparison report of the four drives.
  std::string html = ReadFile(t / "rack.html");
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(Has(html, "rack-r" + std::to_string(r))) << r;
}

TEST(LabE2E, DbCopyMovesRunsFromSqliteIntoPostgreSQLAndReportsReadIt) {
  START_PG(server);
  auto url = server->NewDatabase("lab");
  ASSERT_TRUE(url.ok()) << url.status().message();
  TempDir t;
  std::vector<std::string> args = {"pts",   "--target", "sim:tiny",   "--db", t / "laptop.db",
                                   "--run", "laptop-1", "--progress", "none"};
  args.insert(args.end(), kQuickPts.begin(), kQuickPts.end());
  ASSERT_EQ(RunSsdlab(args).exit_code, 0);
  Proc copy = RunSsdlab({"db", "copy", "--from", t / "laptop.db", "--to", *url});
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  EXPECT_TRUE(Has(copy.out, "1 of 1 runs copied")) << copy.out;
  Proc a = RunSsdlab({"show", "--json", "--db", t / "laptop.db", "laptop-1"});
  Proc b = RunSsdlab({"show", "--json", "--db", *url, "laptop-1"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);  // the same document: times, host and versions are the run's
  Proc report = RunSsdlab({"report", "--db", *url, "laptop-1", "-o", t / "r.html"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  Proc twice = RunSsdlab({"db", "copy", "--from", t / "laptop.db", "--to", *url});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_TRUE(Has(twice.err,
                  "--to already has a run named 'laptop-1'; copy it under another "
                  "name with --as NAME"))
      << twice.err;
  Proc both = RunSsdlab({"db", "copy", "--from", t / "laptop.db", "--to", *url, "--as", "x"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(Has(both.err, "--as names the copy of one run: give exactly one --run")) << both.err;
  Proc renamed = RunSsdlab(
      {"db", "copy", "--from", t / "laptop.db", "--to", *url, "--run", "laptop-1", "--as", "l2"});
  ASSERT_EQ(renamed.exit_code, 0) << renamed.err;
  json l2 = json::parse(RunSsdlab({"show", "--json", "--db", *url, "l2"}).out);
  l2["context"]["run"] = "laptop-1";
  EXPECT_EQ(l2, json::parse(a.out));
  Proc bad = RunSsdlab({"ls", "--db", "postgresql://nobody@/nowhere?host=" + t / "nosock"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_TRUE(Has(bad.err, "cannot connect")) << bad.err;
}

// Every phase stored for run `run` in `db`, in test, round and cell order.
std::vector<StoredPhase> StoredPhases(const std::string& db, const std::string& run) {
  std::vector<StoredPhase> out;
  auto s = Store::Open(db, Store::Mode::kReadOnly);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return out;
  auto r = (*s)->FindRun(run);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return out;
  auto tests = (*s)->ListTests(r->id);
  EXPECT_TRUE(tests.ok());
  if (!tests.ok()) return out;
  for (const TestRecord& t : tests.value()) {
    auto phases = (*s)->LoadPhases(t.id);
    EXPECT_TRUE(phases.ok());
    if (phases.ok()) out.insert(out.end(), phases->begin(), phases->end());
  }
  return out;
}

// A direction's buckets from a JSON histogram ([[low, count], ...]).
std::map<uint64_t, uint64_t> Buckets(const json& histogram) {
  std::map<uint64_t, uint64_t> out;
  for (const json& b : histogram) out[b[0].get<uint64_t>()] += b[1].get<uint64_t>();
  return out;
}

TEST(LabE2E, MultiClientPtsStoresTheExactMergeOfTheRanksAndJudgesItOnce) {
  TempDir t;
  std::vector<std::string> args = {"pts",
                                   "--mpi",
                                   "--target",
                                   "sim:tiny",
                                   "--db",
                                   t / "r.db",
                                   "--run",
                                   "array",
                                   "--range-per-rank",
                                   "--clients-log",
                                   t / "clients.jsonl"};
  args.insert(args.end(), kQuickPts.begin(), kQuickPts.end());
  Proc p = RunMpi(2, args);
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_TRUE(Has(p.out, "2 clients (MPI ranks) on sim:tiny")) << p.out;
  // One battery, judged once on the merged figures: one verdict line, one stored run.
  size_t verdicts = 0;
  for (size_t at = 0; (at = p.out.find("  iops   done", at)) != std::string::npos; ++at) ++verdicts;
  EXPECT_EQ(verdicts, 1u) << p.out;
  Proc ls = RunSsdlab({"ls", "--db", t / "r.db"});
  EXPECT_EQ(CountLines(ls.out), 2) << ls.out;  // the header and the one run
  Proc show = RunSsdlab({"show", "--json", "--db", t / "r.db", "array"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  json doc = json::parse(show.out);
  EXPECT_EQ(doc["context"]["mpi"]["ranks"], 2);
  EXPECT_EQ(doc["context"]["mpi"]["range_per_rank"], true);
  ASSERT_EQ(doc["tests"].size(), 1u);
  EXPECT_TRUE(doc["tests"][0]["steady_state"].contains("reached"));
  // Every stored phase (the preconditioning and each round's cells) is the bucket-by-bucket sum
  // of the two ranks' phases, which each loaded its own half of the range.
  std::vector<StoredPhase> stored = StoredPhases(t / "r.db", "array");
  std::vector<json> logged;
  {
    std::ifstream in(t / "clients.jsonl");
    for (std::string line; std::getline(in, line);) logged.push_back(json::parse(line));
  }
  ASSERT_EQ(stored.size(), logged.size());
  ASSERT_GE(stored.size(), 3u);
  for (size_t i = 0; i < stored.size(); ++i) {
    const json& clients = logged[i]["clients"];
    ASSERT_EQ(clients.size(), 2u);
    EXPECT_EQ(clients[0]["range_end_bytes"], clients[1]["range_begin_bytes"]) << i;
    for (int d = 0; d < 2; ++d) {
      const char* dir = d == 0 ? "read" : "write";
      std::map<uint64_t, uint64_t> sum;
      uint64_t ios = 0;
      for (const json& c : clients) {
        for (auto [low, n] : Buckets(c["results"][dir]["histogram"])) sum[low] += n;
        ios += c["results"][dir]["ios"].get<uint64_t>();
      }
      std::map<uint64_t, uint64_t> got;
      for (auto [low, n] : stored[i].result.dirs[d].latency.NonEmptyBuckets()) got[low] = n;
      EXPECT_EQ(got, sum) << stored[i].cell << " " << dir;
      EXPECT_EQ(stored[i].result.dirs[d].ios, ios) << stored[i].cell << " " << dir;
    }
    EXPECT_GT(stored[i].result.Total().ios, 0u) << stored[i].cell;
  }
}

// The stored content of every run in a SQLite store that does not depend on when it ran: the
// tests (results included), rounds (not their commit time), phases, histograms and series.
std::vector<std::string> StoredContent(const std::string& db) {
  std::vector<std::string> out;
  for (const char* sql :
       {"SELECT seq, name, status, params, steady_state, results FROM tests ORDER BY id",
        "SELECT test_id, round, tracking FROM rounds ORDER BY test_id, round",
        "SELECT id, test_id, round, cell, workload, measured_ns, io_errors, interrupted, "
        "cpu_user_s, cpu_sys_s, counters, notes FROM phases ORDER BY id",
        "SELECT * FROM histograms ORDER BY phase_id, direction",
        "SELECT * FROM series ORDER BY phase_id, idx, direction"}) {
    for (std::string& row : SqlRows(db, sql)) out.push_back(std::move(row));
  }
  return out;
}

// Runs `command args` as one process and under `mpirun -n 2` (which must say `note`), into
// one.db and two.db; expects both stores and --json documents to hold the same results, byte
// for byte, and returns the spread run's document.
json ExpectSpreadStoresWhatOneProcessStores(const TempDir& t, std::vector<std::string> command,
                                            const std::vector<std::string>& args,
                                            const std::string& note) {
  command.insert(command.end(), args.begin(), args.end());
  std::vector<std::string> one = command, two = command;
  for (auto [cmd, name] : {std::pair{&one, "one"}, std::pair{&two, "two"}})
    cmd->insert(cmd->end(), {"--db", t / (std::string(name) + ".db"), "--json",
                             t / (std::string(name) + ".json")});
  Proc single = RunSsdlab(one);
  EXPECT_EQ(single.exit_code, 0) << single.err;
  Proc spread = RunMpi(2, two);
  EXPECT_EQ(spread.exit_code, 0) << spread.out;
  EXPECT_TRUE(Has(spread.out, note)) << spread.out;
  std::vector<std::string> a = StoredContent(t / "one.db"), b = StoredContent(t / "two.db");
  EXPECT_GT(a.size(), 5u);
  EXPECT_EQ(a, b);
  json ja = ReadJson(t / "one.json"), jb = ReadJson(t / "two.json");
  EXPECT_EQ(ja["tests"].dump(), jb["tests"].dump());
  return jb;
}

TEST(LabE2E, PtsOnOneSimulatedDriveUnderMpirunStoresWhatOneProcessStores) {
  TempDir t;
  // Three tests: IOPS and LAT on rank 0, TP on rank 1.
  json doc = ExpectSpreadStoresWhatOneProcessStores(
      t, {"pts"},
      {"--target",     "sim:tiny?seed=5", "--run",           "x",      "--spec",     "review",
       "--tests",      "iops,tp,lat",     "--round",         "1s",     "--iops-bs",  "4KiB",
       "--iops-mixes", "0/100",           "--tp-bs",         "128KiB", "--lat-bs",   "4KiB",
       "--lat-mixes",  "0/100",           "--temp-interval", "0",      "--progress", "none"},
      "3 tests spread over 2 ranks");
  ASSERT_EQ(doc["tests"].size(), 3u);
  for (const json& test : doc["tests"]) EXPECT_EQ(test["status"], "done") << test["name"];
}

TEST(LabE2E, PtsOnSeveralSimThreadsStoresWhatOneThreadStores) {
  TempDir t;
  std::vector<std::string> args = {"pts",
                                   "--target",
                                   "sim:tiny?seed=7",
                                   "--run",
                                   "x",
                                   "--spec",
                                   "review",
                                   "--tests",
                                   "iops,tp,lat,hir",
                                   "--round",
                                   "1s",
                                   "--iops-bs",
                                   "4KiB",
                                   "--iops-mixes",
                                   "0/100",
                                   "--tp-bs",
                                   "128KiB",
                                   "--lat-bs",
                                   "4KiB",
                                   "--lat-mixes",
                                   "0/100",
                                   "--hir-cycles",
                                   "3",
                                   "--temp-interval",
                                   "0",
                                   "--progress",
                                   "none"};
  for (const char* n : {"1", "3"}) {
    Proc p = RunSsdlab(Args(args, {"--sim-threads", n, "--db", t / (std::string(n) + ".db"),
                                   "--json", t / (std::string(n) + ".json")}));
    ASSERT_EQ(p.exit_code, 0) << p.err;
    EXPECT_EQ(Has(p.err, "4 tests on 3 threads at once"), std::string(n) == "3") << p.err;
  }
  std::vector<std::string> one = StoredContent(t / "1.db"), three = StoredContent(t / "3.db");
  EXPECT_GT(one.size(), 20u);
  EXPECT_EQ(one, three);
  EXPECT_EQ(ReadJson(t / "1.json")["tests"].dump(), ReadJson(t / "3.json")["tests"].dump());
}

TEST(LabE2E, OpAdvisorUnderMpirunSpreadsItsPointsAndStoresWhatOneProcessStores) {
  TempDir t;
  // Long enough (virtual time) for garbage collection: each OP point sustains its own IOPS.
  json doc = ExpectSpreadStoresWhatOneProcessStores(
      t, {"profile", "op-advisor"},
      {"--target", "sim:tiny?seed=3", "--run", "op", "--op", "0,10,20", "--time", "20s",
       "--interval", "1s", "--temp-interval", "0", "--progress", "none"},
      "op-advisor points spread over 2 ranks");
  std::set<double> sustained;
  for (const json& pt : doc["tests"][0]["results"]["levels"][0]["results"]["points"])
    sustained.insert(pt["sustained_iops"].get<double>());
  EXPECT_EQ(sustained.size(), 3u) << "three points, each its own figure";
}

TEST(LabE2E, WorkThatIsNotIndependentRunsOnRankZeroAloneUnderMpirun) {
  TempDir t;
  // Without a purge the tests carry the drive's state from one to the next: not spread.
  std::vector<std::string> args = {"pts",   "--target", "sim:tiny", "--db", t / "r.db",
                                   "--run", "alone",    "--purge",  "none"};
  args.insert(args.end(), kQuickPts.begin(), kQuickPts.end());
  Proc p = RunMpi(2, args);
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_TRUE(Has(p.out, "not spread over 2 ranks (--purge none")) << p.out;
  Proc show = RunSsdlab({"show", "--json", "--db", t / "r.db", "alone"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(json::parse(show.out)["tests"][0]["status"], "done");
  Proc cdm =
      RunMpi(2, {"profile", "cdm", "--target", "sim:tiny", "--db", t / "r.db", "--run", "cdm",
                 "--size", "64MiB", "--passes", "1", "--time", "1s", "--progress", "none"});
  ASSERT_EQ(cdm.exit_code, 0) << cdm.out;
  EXPECT_TRUE(Has(cdm.out, "only the op-advisor's points are spread")) << cdm.out;
  Proc ls = RunSsdlab({"ls", "--db", t / "r.db"});
  EXPECT_EQ(CountLines(ls.out), 3) << ls.out;  // the header, one pts run, one profile run
}

TEST(LabE2E, PtsReportWritesTheRunsReportAtTheEnd) {
  TempDir t;
  std::vector<std::string> args = {"pts",   "--target", "sim:tiny", "--db",         t / "r.db",
                                   "--run", "solo",     "--report", t / "solo.html"};
  args.insert(args.end(), kQuickPts.begin(), kQuickPts.end());
  Proc p = RunSsdlab(args);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(Has(ReadFile(t / "solo.html"), "solo"));
  Proc bad = RunSsdlab(
      {"pts", "--target", "sim:tiny", "--db", t / "r2.db", "--report", t / "no-such-dir/x.html"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_TRUE(Has(bad.err, "--report")) << bad.err;
}

TEST(LabE2E, FleetReportNamesEveryRanksDrive) {
  TempDir t;
  std::vector<std::string> args = {"pts",  "--target", "sim:tiny?seed=%r",
                                   "--db", t / "f.db", "--run",
                                   "rack", "--report", t / "fleet.html"};
  args.insert(args.end(), kQuickPts.begin(), kQuickPts.end());
  Proc p = RunMpi(2, args);
  ASSERT_EQ(p.exit_code, 0) << p.out;
  std::string html = ReadFile(t / "fleet.html");
  EXPECT_TRUE(Has(html, "rack-r0")) << p.out;
  EXPECT_TRUE(Has(html, "rack-r1")) << p.out;
  EXPECT_TRUE(Has(html, "sim:tiny?seed=0"));
  EXPECT_TRUE(Has(html, "sim:tiny?seed=1"));
}

}  // namespace
}  // namespace ssdlab::test
