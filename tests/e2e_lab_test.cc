// The lab: results in PostgreSQL (a private server in a temporary directory), MPI ranks as
// clients of one load and as the drives of a fleet (mpirun on this machine, 2-4 ranks).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "e2e_util.h"
#include "store/pg_test_server.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

const std::string kMpirun = "mpirun --allow-run-as-root --oversubscribe ";

// `mpirun -n N ssdlab args...`; stdout and stderr of all ranks in out.
Proc RunMpi(int n, const std::vector<std::string>& args) {
  std::string cmd = kMpirun + "-n " + std::to_string(n) + " " + SSDLAB_BINARY;
  for (const std::string& a : args) cmd += " '" + a + "'";
  Proc p;
  p.exit_code = Shell(cmd + " 2>&1", &p.out);
  p.err = p.out;
  return p;
}

// A private PostgreSQL server for the test, or a skip naming why there is none.
#define START_PG(server)                                                     \
  auto started_##server = PgTestServer::Start();                             \
  if (started_##server.status().code() == Code::kUnsupported)                \
    GTEST_SKIP() << started_##server.status().message();                     \
  ASSERT_TRUE(started_##server.ok()) << started_##server.status().message(); \
  std::unique_ptr<PgTestServer> server = std::move(started_##server.value())

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
  std::vector<std::string> resume = {"pts", "--target-map", t / "map", "--db",
                                     *url,  "--resume",     "rack"};
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
  EXPECT_EQ(json::parse(a.out)["tests"], json::parse(b.out)["tests"]);
  Proc report = RunSsdlab({"report", "--db", *url, "laptop-1", "-o", t / "r.html"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  Proc twice = RunSsdlab({"db", "copy", "--from", t / "laptop.db", "--to", *url});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_TRUE(Has(twice.err, "already exists")) << twice.err;
  Proc bad = RunSsdlab({"ls", "--db", "postgresql://nobody@/nowhere?host=" + t / "nosock"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_TRUE(Has(bad.err, "cannot connect")) << bad.err;
}

}  // namespace
}  // namespace ssdlab::test
