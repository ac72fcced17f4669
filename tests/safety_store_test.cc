// What ssdlab does not own, round two, for the results stores: copies that arrive whole or not
// at all (a copy killed or failing mid-run leaves nothing), damaged runs skipped and counted,
// `ls` naming only the damaged run, database passwords never printed, imports refusing fields
// of the wrong type or range in one line, and `run --mpi` refusing targets of different sizes.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "e2e_util.h"
#include "store/pg_test_server.h"
#include "store/store.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

PhaseResult Sample(uint64_t base) {
  PhaseResult r;
  r.measured_ns = 1'000'000'000;
  for (uint64_t i = 1; i <= 100; ++i) {
    r.dirs[0].ios++;
    r.dirs[0].bytes += 4096;
    r.dirs[0].latency.Record(base + i * 41);
  }
  IntervalSample iv;
  iv.t_end_ns = 1'000'000'000;
  iv.dirs[0] = {100, 409600, 100 * base, base + 4100};
  r.intervals.push_back(iv);
  return r;
}

// Stores run `name` in `where`: 2 tests of `rounds` rounds of 2 cells, done.
void WriteRun(const std::string& where, const std::string& name, int rounds) {
  auto s = Store::Open(where);
  ASSERT_TRUE(s.ok()) << s.status().message();
  TargetInfo t;
  t.path = "sim:tiny";
  t.kind = "sim";
  auto run = (*s)->CreateRun(name, "pts", {{"spec", "review"}}, {{"host", "h"}}, t);
  ASSERT_TRUE(run.ok()) << run.status().message();
  for (int seq = 0; seq < 2; ++seq) {
    auto test = (*s)->BeginTest(*run, seq, seq ? "tp" : "iops", {});
    ASSERT_TRUE(test.ok()) << test.status().message();
    for (int round = 0; round < rounds; ++round) {
      std::vector<StoredPhase> phases = {{round, "bs=4KiB", {}, Sample(1000 + round)},
                                         {round, "bs=8KiB", {}, Sample(2000 + round)}};
      ASSERT_TRUE((*s)->CommitRound(*test, round, phases, {{"iops", 100 + round}}).ok());
    }
    ASSERT_TRUE((*s)->FinishTest(*test, {{"reached", true}}, {{"x", seq}}).ok());
  }
  ASSERT_TRUE((*s)->SetRunStatus(*run, "done").ok());
}

void Sql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err;
  sqlite3_free(err);
  sqlite3_close(db);
}

// Damages run `run`'s last stored histogram (one 8-byte word: an odd count), in its last test's
// last round.
void DamageLastHistogram(const std::string& db, const std::string& run) {
  Sql(db,
      "UPDATE histograms SET buckets=zeroblob(8) WHERE phase_id=(SELECT max(p.id) FROM phases p "
      "JOIN tests t ON t.id=p.test_id JOIN runs r ON r.id=t.run_id WHERE r.name='" +
          run + "')");
}

std::string RunNames(const std::string& db) {
  std::string names;
  for (const std::string& r : SqlRows(db, "SELECT name || ':' || status FROM runs ORDER BY id"))
    names += r + " ";
  return names;
}

// `db copy` of a run killed while it is half-way through the run leaves nothing of it, and a
// retry copies it whole. The copy blocks deterministically: the test holds an exclusive lock
// on the source's time-series table, which the copy reads for each round after it has started
// writing the run into the destination.
TEST(SafetyStore, DbCopyKilledHalfWayLeavesNothingAndARetryCopiesTheRunWhole) {
  START_PG(server);
  auto url = server->NewDatabase("src");
  ASSERT_TRUE(url.ok()) << url.status().message();
  WriteRun(*url, "r", 5);
  TempDir t;
  const std::string dst = t / "k.db";
  PGconn* lock = PQconnectdb(url->c_str());
  ASSERT_EQ(PQstatus(lock), CONNECTION_OK) << PQerrorMessage(lock);
  auto exec = [&](PGconn* c, const std::string& sql) {
    PGresult* r = PQexec(c, sql.c_str());
    const ExecStatusType st = PQresultStatus(r);
    std::string value = st == PGRES_TUPLES_OK && PQntuples(r) ? PQgetvalue(r, 0, 0) : "";
    EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) << PQerrorMessage(c);
    PQclear(r);
    return value;
  };
  exec(lock, "BEGIN; LOCK TABLE series IN ACCESS EXCLUSIVE MODE");
  pid_t pid =
      StartSsdlab({"db", "copy", "--from", *url, "--to", dst, "--run", "r"}, t / "out", t / "err");
  // Wait until the copy waits for the lock while reading a round of the run (a state, not a
  // time: polled until it is reached).
  PGconn* watch = PQconnectdb(url->c_str());
  ASSERT_EQ(PQstatus(watch), CONNECTION_OK) << PQerrorMessage(watch);
  bool waiting = false;
  for (int i = 0; i < 6000 && !waiting; ++i) {
    waiting = exec(watch,
                   "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND "
                   "query LIKE '%FROM series%'") != "0";
    if (!waiting) usleep(10'000);
  }
  PQfinish(watch);
  ASSERT_TRUE(waiting) << "the copy never reached the locked table; " << ReadFile(t / "err");
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  EXPECT_EQ(Wait(pid), 128 + SIGKILL);
  exec(lock, "ROLLBACK");
  PQfinish(lock);
  // The destination was created, but holds nothing of the run.
  EXPECT_EQ(RunNames(dst), "") << "a killed copy left a half run behind";
  EXPECT_TRUE(SqlRows(dst, "SELECT * FROM tests").empty());
  // A retry is not refused and copies it whole.
  Proc again = RunSsdlab({"db", "copy", "--from", *url, "--to", dst, "--run", "r"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Has(again.out, "1 of 1 runs copied")) << again.out;
  Proc a = RunSsdlab({"show", "--json", "--db", *url, "r"});
  Proc b = RunSsdlab({"show", "--json", "--db", dst, "r"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(json::parse(a.out)["tests"], json::parse(b.out)["tests"]);
  EXPECT_EQ(SqlRows(dst, "SELECT count(*) FROM rounds"), std::vector<std::string>{"10"});
}

// A copy that fails on a damaged histogram in the run's last round leaves nothing of the run
// (it is one transaction of the destination), says so, and exits 3.
TEST(SafetyStore, DbCopyFailingLateInARunLeavesNothingOfIt) {
  TempDir t;
  const std::string src = t / "src.db", dst = t / "dst.db";
  WriteRun(src, "r", 4);
  DamageLastHistogram(src, "r");
  Proc copy = RunSsdlab({"db", "copy", "--from", src, "--to", dst, "--run", "r"});
  EXPECT_EQ(copy.exit_code, 3) << copy.err;
  EXPECT_TRUE(Has(copy.out, "0 of 1 runs copied, 1 damaged skipped")) << copy.out;
  EXPECT_TRUE(Has(copy.err, "run 'r': --from: damaged phases")) << copy.err;
  EXPECT_EQ(CountLines(copy.err), 1) << copy.err;
  EXPECT_EQ(RunNames(dst), "") << "a failed copy left a half run behind";
  EXPECT_TRUE(SqlRows(dst, "SELECT * FROM phases").empty());
}

// Copying every run: the undamaged ones are copied, whatever their place after a damaged one;
// the damaged ones (a record, a histogram) are skipped, named and counted; the exit is 3.
TEST(SafetyStore, DbCopyOfAllRunsCopiesEveryUndamagedOneAndCountsTheDamaged) {
  TempDir t;
  const std::string src = t / "src.db", dst = t / "dst.db";
  for (const char* name : {"a", "b", "c", "d"}) WriteRun(src, name, 2);
  Sql(src, "UPDATE runs SET config='{nope' WHERE name='a'");
  DamageLastHistogram(src, "c");
  Proc copy = RunSsdlab({"db", "copy", "--from", src, "--to", dst});
  EXPECT_EQ(copy.exit_code, 3) << copy.err;
  EXPECT_TRUE(Has(copy.out, "2 of 4 runs copied, 2 damaged skipped")) << copy.out;
  EXPECT_TRUE(Has(copy.out, "copied b\n")) << copy.out;
  EXPECT_TRUE(Has(copy.out, "copied d\n")) << copy.out;
  EXPECT_TRUE(Has(copy.err, "run 'a': --from: damaged record of the run")) << copy.err;
  EXPECT_TRUE(Has(copy.err, "run 'c': --from: damaged phases")) << copy.err;
  EXPECT_EQ(RunNames(dst), "b:done d:done ");
}

// `ls` marks the damaged run DAMAGED and only it: the damage of one row is not carried on to
// the rows after it.
TEST(SafetyStore, LsMarksOnlyTheDamagedRunDamaged) {
  TempDir t;
  const std::string db = t / "r.db";
  for (const char* name : {"a", "b", "c"}) WriteRun(db, name, 1);
  Sql(db, "UPDATE runs SET context='[1' WHERE name='a'");
  Proc ls = RunSsdlab({"ls", "--db", db});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  std::map<std::string, bool> damaged;
  std::istringstream lines(ls.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name, kind, status;
    words >> name >> kind >> status;
    if (name != "run") damaged[name] = status == "DAMAGED";
  }
  EXPECT_EQ(damaged, (std::map<std::string, bool>{{"a", true}, {"b", false}, {"c", false}}))
      << ls.out;
}

// A database password (in the URL's user information or as a password= parameter) is never
// printed: not in a run's closing line, an import's, a copy's, nor in any error.
TEST(SafetyStore, DatabasePasswordsAreNeverPrinted) {
  START_PG(server);
  auto plain = server->NewDatabase("lab");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  // postgresql://ssdlab@/lab?host=DIR -> with a password (the test server trusts the socket).
  std::string url = *plain;
  url.replace(url.find("ssdlab@"), 7, "ssdlab:s3cret@");
  TempDir t;
  std::vector<Proc> runs;
  const std::vector<std::string> pts = {
      "pts",    "--target",     "sim:tiny",    "--db",       url,       "--run", "p",
      "--spec", "review",       "--tests",     "iops",       "--round", "2s",    "--iops-bs",
      "4KiB",   "--iops-mixes", "100/0,0/100", "--progress", "none"};
  runs.push_back(RunSsdlab(pts));
  EXPECT_EQ(runs.back().exit_code, 0) << runs.back().err;
  EXPECT_TRUE(Has(runs.back().err, "ssdlab:***@")) << runs.back().err;
  Write(t / "fig.csv",
        "test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,"
        "lat_p99_99_us,lat_max_us,role,source\niops,4k,100,1,32,,90000,,,,,,,calibration,x\n");
  runs.push_back(RunSsdlab({"import", t / "fig.csv", "--db", url, "--run", "pub"}));
  EXPECT_EQ(runs.back().exit_code, 0) << runs.back().err;
  EXPECT_TRUE(Has(runs.back().out, "ssdlab:***@")) << runs.back().out;
  runs.push_back(RunSsdlab({"import", t / "fig.csv", "--db", url, "--run", "pub"}));  // exists
  EXPECT_EQ(runs.back().exit_code, 2);
  runs.push_back(RunSsdlab({"db", "copy", "--from", url, "--to", t / "k.db", "--run", "none"}));
  EXPECT_EQ(runs.back().exit_code, 2);
  const std::string nosock = "?host=" + t / "nosock";
  runs.push_back(RunSsdlab({"ls", "--db", "postgresql://u:s3cret@/nowhere" + nosock}));
  EXPECT_EQ(runs.back().exit_code, 3);
  runs.push_back(RunSsdlab({"ls", "--db", "postgresql:///nowhere" + nosock + "&password=s3cret"}));
  EXPECT_EQ(runs.back().exit_code, 3);
  EXPECT_TRUE(Has(runs.back().err, "password=***")) << runs.back().err;
  for (const Proc& p : runs) {
    EXPECT_FALSE(Has(p.out, "s3cret")) << p.out;
    EXPECT_FALSE(Has(p.err, "s3cret")) << p.err;
  }
}

// An import of a field of the wrong type or out of range: exit 2, one line naming the file and
// the field, and nothing stored.
TEST(SafetyStore, ImportRefusesFieldsOfTheWrongTypeOrRangeNamingThem) {
  TempDir t;
  const std::string db = t / "r.db";
  // One fio job whose fields are each replaced in turn: {field path, replacement, expected}.
  const json good = json::parse(R"({"jobs": [{"jobname": "rr",
      "job options": {"rw": "randrw", "rwmixread": "70", "bs": "4k", "iodepth": "32",
                      "numjobs": "2"},
      "read": {"iops": 5000, "bw_bytes": 20480000, "total_ios": 1000,
               "clat_ns": {"mean": 79000.0, "percentile": {"99.000000": 150000}}},
      "write": {"iops": 2000, "bw_bytes": 8192000, "total_ios": 400,
                "clat_ns": {"mean": 90000.0}}}]})");
  Write(t / "good.json", good.dump());
  ASSERT_EQ(RunSsdlab({"import", t / "good.json", "--db", db, "--run", "good"}).exit_code, 0);
  struct Case {
    std::string pointer;
    json value;
    std::string names;
  };
  const std::vector<Case> fio = {
      {"/jobs/0/read/total_ios", "1000", "read.total_ios is not a number >= 0"},
      {"/jobs/0/read/clat_ns/mean", -5.0, "read.clat_ns.mean is not a number >= 0"},
      {"/jobs/0/write/iops", json::object(), "write.iops is not a number >= 0"},
      {"/jobs/0/read/clat_ns/percentile/99.000000", "x", "percentile.99.000000 is not"},
      {"/jobs/0/read/clat_ns", 3, "read.clat_ns is not an object"},
      {"/jobs/0/jobname", 7, "jobs[0].jobname is not a string"},
      {"/jobs/0/job options/bs", "0", "bs '0' is not a size > 0"},
      {"/jobs/0/job options/rwmixread", "250", "rwmixread '250' is not a percentage"},
      {"/jobs/0/job options/numjobs", "0", "numjobs '0' is not a whole number >= 1"},
      {"/jobs/0/job options/iodepth", "0", "iodepth '0' is not a whole number >= 1"},
      {"/jobs/0/job options/rw", true, "option rw is not a string"},
      {"/jobs/0/job options/rw", "sideways", "rw 'sideways' is not one of"},
  };
  int n = 0;
  for (const Case& c : fio) {
    json doc = good;
    doc[json::json_pointer(c.pointer)] = c.value;
    const std::string file = t / ("bad" + std::to_string(++n) + ".json");
    Write(file, doc.dump());
    Proc p = RunSsdlab({"import", file, "--db", db, "--run", "bad" + std::to_string(n)});
    EXPECT_EQ(p.exit_code, 2) << c.pointer << ": " << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_TRUE(Has(p.err, file + ": job ") || Has(p.err, file + ": jobs[0]")) << p.err;
    EXPECT_TRUE(Has(p.err, c.names)) << c.pointer << ": " << p.err;
  }
  // The CSV of published figures: counts of at least 1, figures above 0.
  const std::string header =
      "test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,"
      "lat_p99_99_us,lat_max_us,role,source\n";
  const std::vector<std::pair<std::string, std::string>> csv = {
      {"iops,4k,100,0,32,,90000,,,,,,,calibration,x", "threads '0' is not a whole number >= 1"},
      {"iops,4k,100,1,0,,90000,,,,,,,calibration,x", "qd '0' is not a whole number >= 1"},
      {"iops,4k,100,1,2.5,,90000,,,,,,,calibration,x", "qd '2.5' is not a whole number >= 1"},
      {"iops,4k,100,1,32,,0,,,,,,,calibration,x", "iops '0' is not a number > 0"},
      {"lat,4k,100,1,1,,,,-80,,,,,calibration,x", "lat_mean_us '-80' is not a number > 0"},
      {"iops,4k,250,1,32,,90000,,,,,,,calibration,x", "read_pct '250' is not a percentage"},
      {"iops,0,100,1,32,,90000,,,,,,,calibration,x", "block_size '0' is not a size"},
  };
  for (const auto& [row, names] : csv) {
    const std::string file = t / ("bad" + std::to_string(++n) + ".csv");
    Write(file, header + row + "\n");
    Proc p = RunSsdlab({"import", file, "--db", db, "--run", "bad" + std::to_string(n)});
    EXPECT_EQ(p.exit_code, 2) << row << ": " << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_TRUE(Has(p.err, file + ":2: " + names)) << p.err;
  }
  EXPECT_EQ(RunNames(db), "good:done ");
}

// `run --mpi` refuses ranks whose targets differ in size, before anything is written (here a
// --prefill), as `pts --mpi` does.
TEST(SafetyStore, RunMpiRefusesTargetsOfDifferentSizesBeforeWriting) {
  if (Shell("command -v mpirun >/dev/null") != 0) GTEST_SKIP() << "no mpirun";
  TempDir t;
  // Two sparse files: nothing allocated until something writes them.
  ASSERT_EQ(Shell("truncate -s 8M '" + t / "f0" + "' && truncate -s 16M '" + t / "f1" + "'"), 0);
  Proc p;
  p.exit_code = Shell(
      "mpirun --allow-run-as-root --oversubscribe -n 2 " SSDLAB_BINARY " run --mpi --target '" +
          t / "f%r" + "' --rw randread --bs 4KiB --runtime 200ms --prefill --buffered 2>&1",
      &p.out);
  EXPECT_NE(p.exit_code, 0) << p.out;
  EXPECT_TRUE(Has(p.out, "rank 1's target " + t / "f1" + " is 16777216 bytes, rank 0's " +
                             t / "f0" + " 8388608 bytes"))
      << p.out;
  for (int r = 0; r < 2; ++r) {
    struct stat st {};
    ASSERT_EQ(stat((t / ("f" + std::to_string(r))).c_str(), &st), 0);
    EXPECT_EQ(st.st_blocks, 0) << "f" << r << " was written (prefilled)";
  }
}

// A large import (60,000 cells) makes a report of a few megabytes, not one of every cell: its
// tables show the first cells and its charts every k-th point, each saying so.
TEST(SafetyStore, ReportOfALargeImportStaysSmall) {
  TempDir t;
  std::string csv =
      "test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,"
      "lat_p99_99_us,lat_max_us,role,source\n";
  for (int i = 0; i < 30000; ++i) {
    csv += "wsat,4k,0,4,32," + std::to_string(i * 0.01) + "," + std::to_string(20000 + i % 977) +
           ",," + std::to_string(100 + i % 13) + ",,,,,calibration,lab\n";
    csv += "iops,4k," + std::to_string(i % 101) + ",1," + std::to_string(1 + i % 256) + ",," +
           std::to_string(50000 + i % 1013) + ",,,,,,,predicted,lab\n";
  }
  Write(t / "big.csv", csv);
  const std::string db = t / "r.db";
  Proc imp = RunSsdlab({"import", t / "big.csv", "--db", db, "--run", "big"});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  EXPECT_TRUE(Has(imp.out, "imported 60000 cells")) << imp.out;
  Proc report = RunSsdlab({"report", "big", "--db", db, "-o", t / "r.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  struct stat st {};
  ASSERT_EQ(stat((t / "r.html").c_str(), &st), 0);
  EXPECT_LT(st.st_size, 5 << 20) << "the README promises reports under 5 MB";
  const std::string html = ReadFile(t / "r.html");
  EXPECT_TRUE(Has(html, "The first 1000 of 30000 cells")) << "the table says what it leaves out";
  EXPECT_TRUE(Has(html, "2000 of 30000 points drawn")) << "the curve says it is thinned";
}

}  // namespace
}  // namespace ssdlab::test
