#include "store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "store/test_util.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ssdlab_store_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& n) { return (dir_ / n).string(); }
  fs::path dir_;
};

PhaseResult SamplePhase(uint64_t base) {
  PhaseResult r = storetest::ReadPhase(2'000'000'000, 1000, base, 37);
  r.dirs[1].ios = 1;
  r.dirs[1].bytes = 8192;
  r.dirs[1].latency.Record(123456789);
  IntervalSample iv;
  iv.t_begin_ns = 0;
  iv.t_end_ns = 1'000'000'000;
  iv.dirs[0] = {500, 2048000, 500 * base, base + 999};
  r.intervals = {iv, iv};
  r.counters_name = "sim";
  r.counters = {{"write_amplification", 2.5}, {"erases", 42}};
  r.notes = {"a note"};
  return r;
}

TEST_F(StoreTest, RoundTripOfRunsTestsRoundsAndPhases) {
  auto store = Store::Open(Path("r.db"));
  ASSERT_TRUE(store.ok()) << store.status().message();
  TargetInfo t;
  t.path = "sim:tiny";
  t.kind = "sim";
  t.size_bytes = 1 << 30;
  auto run = (*store)->CreateRun("r1", "pts", {{"spec", "review"}}, {{"host", "h"}}, t);
  ASSERT_TRUE(run.ok()) << run.status().message();
  auto test = (*store)->BeginTest(*run, 0, "iops", {{"bs", 4096}});
  ASSERT_TRUE(test.ok());
  EXPECT_EQ((*store)->BeginTest(*run, 0, "iops", {}).value(), *test) << "BeginTest is idempotent";
  for (int round = 0; round < 3; ++round) {
    StoredPhase a{round, "bs=4KiB rw=100/0", {{"qd", 32}}, SamplePhase(1000 * (round + 1))};
    StoredPhase b{round, "bs=8KiB rw=100/0", {{"qd", 32}}, SamplePhase(7)};
    ASSERT_TRUE((*store)->CommitRound(*test, round, {a, b}, {{"iops", 100.0 + round}}).ok());
  }
  ASSERT_TRUE((*store)->FinishTest(*test, {{"reached", true}}, {{"x", 1}}).ok());
  ASSERT_TRUE((*store)->SetRunStatus(*run, "done").ok());
  store->reset();

  auto again = Store::Open(Path("r.db"));
  ASSERT_TRUE(again.ok());
  auto found = (*again)->FindRun("r1");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->status, "done");
  EXPECT_EQ(found->config["spec"], "review");
  EXPECT_EQ((*again)->LoadTarget(found->id)->size_bytes, 1u << 30);
  auto listed = (*again)->ListTests(found->id);
  ASSERT_TRUE(listed.ok());
  const std::vector<TestRecord>& tests = listed.value();
  ASSERT_EQ(tests.size(), 1u);
  EXPECT_EQ(tests[0].status, "done");
  EXPECT_TRUE(tests[0].steady_state["reached"].get<bool>());
  auto rounds = (*again)->LoadRounds(tests[0].id);
  ASSERT_TRUE(rounds.ok());
  ASSERT_EQ(rounds->size(), 3u);
  EXPECT_DOUBLE_EQ((*rounds)[2].tracking["iops"].get<double>(), 102.0);
  auto phases = (*again)->LoadPhases(tests[0].id, 1);
  ASSERT_TRUE(phases.ok());
  ASSERT_EQ(phases->size(), 2u);
  const PhaseResult& got = (*phases)[0].result;
  PhaseResult want = SamplePhase(2000);
  EXPECT_EQ((*phases)[0].cell, "bs=4KiB rw=100/0");
  EXPECT_EQ(got.measured_ns, want.measured_ns);
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(got.dirs[d].ios, want.dirs[d].ios);
    EXPECT_EQ(got.dirs[d].bytes, want.dirs[d].bytes);
    EXPECT_EQ(got.dirs[d].latency.NonEmptyBuckets(), want.dirs[d].latency.NonEmptyBuckets());
    EXPECT_EQ(got.dirs[d].latency.max(), want.dirs[d].latency.max());
    EXPECT_DOUBLE_EQ(got.dirs[d].latency.Mean(), want.dirs[d].latency.Mean());
    EXPECT_NEAR(got.dirs[d].latency.Stddev(), want.dirs[d].latency.Stddev(), 1e-6);
    EXPECT_DOUBLE_EQ(got.dirs[d].latency.Percentile(99.9), want.dirs[d].latency.Percentile(99.9));
  }
  ASSERT_EQ(got.intervals.size(), 2u);
  EXPECT_EQ(got.intervals[1].dirs[0].ios, 500u);
  EXPECT_EQ(got.counters_name, "sim");
  ASSERT_EQ(got.counters.size(), 2u);
  EXPECT_DOUBLE_EQ(got.counters[0].second, 2.5);
  EXPECT_EQ(got.notes, std::vector<std::string>{"a note"});
  EXPECT_EQ((*again)->LoadPhases(tests[0].id)->size(), 6u);
}

TEST_F(StoreTest, Refusals) {
  auto store = Store::Open(Path("r.db"));
  ASSERT_TRUE(store.ok());
  TargetInfo t;
  ASSERT_TRUE((*store)->CreateRun("dup", "pts", {}, {}, t).ok());
  auto dup = (*store)->CreateRun("dup", "pts", {}, {}, t);
  EXPECT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("already exists"), std::string::npos);
  EXPECT_EQ((*store)->FindRun("nope").status().code(), Code::kNotFound);

  // Another program's SQLite database.
  sqlite3* db;
  ASSERT_EQ(sqlite3_open(Path("other.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE customers(id INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto other = Store::Open(Path("other.db"));
  EXPECT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("another program"), std::string::npos);
  // Not SQLite at all.
  std::ofstream(Path("text.db")) << "this is not a database, just some text that is long enough\n";
  auto text = Store::Open(Path("text.db"));
  EXPECT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not an SQLite database"), std::string::npos)
      << text.status().message();
  // Missing directory.
  EXPECT_FALSE(Store::Open(Path("missing/dir/r.db")).ok());
}

TEST_F(StoreTest, ModesNeverCreateOrWriteWhatTheyOnlyRead) {
  // Read-only and existing modes refuse a missing file and create nothing.
  auto missing = Store::Open(Path("none.db"), Store::Mode::kReadOnly);
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(Store::Open(Path("none.db"), Store::Mode::kExisting).status().code(), Code::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(Path("none.db")));
  // An empty file stays empty (ls once wrote a schema into it).
  std::ofstream(Path("empty.db")).close();
  auto empty = Store::Open(Path("empty.db"), Store::Mode::kReadOnly);
  EXPECT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty"), std::string::npos) << empty.status().message();
  EXPECT_EQ(std::filesystem::file_size(Path("empty.db")), 0u);
  // A read-only file is called read-only, not "not an SQLite database".
  ASSERT_TRUE(Store::Open(Path("ro.db")).ok());
  chmod(Path("ro.db").c_str(), 0444);
  if (geteuid() != 0) {  // root writes through permissions; the message is then not reachable
    auto ro = Store::Open(Path("ro.db"));
    EXPECT_EQ(ro.status().code(), Code::kPermission);
    EXPECT_NE(ro.status().message().find("read-only"), std::string::npos) << ro.status().message();
  }
  EXPECT_TRUE(Store::Open(Path("ro.db"), Store::Mode::kReadOnly).ok());
}

TEST_F(StoreTest, DamagedJsonIsAnErrorNamingWhatIsDamaged) {
  {
    auto store = Store::Open(Path("d.db"));
    ASSERT_TRUE(store.ok());
    TargetInfo t;
    auto run = (*store)->CreateRun("r", "pts", {{"a", 1}}, {{"b", 2}}, t);
    ASSERT_TRUE(run.ok());
    auto test = (*store)->BeginTest(*run, 0, "iops", {});
    ASSERT_TRUE(test.ok());
    ASSERT_TRUE((*store)->CommitRound(*test, 0, {{0, "c", {}, SamplePhase(5)}}, {{"x", 1}}).ok());
    ASSERT_TRUE((*store)->FinishTest(*test, {{"reached", true}}, {{"x", 1}}).ok());
  }
  sqlite3* db;
  ASSERT_EQ(sqlite3_open(Path("d.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE tests SET results='{\"x\": 1'; UPDATE rounds SET tracking='nope'; "
                         "UPDATE runs SET context='[1'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = Store::Open(Path("d.db"), Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto run = (*store)->FindRun("r");
  EXPECT_EQ(run.status().code(), Code::kIoError);
  EXPECT_NE(run.status().message().find("record of run 'r'"), std::string::npos)
      << run.status().message();
  EXPECT_NE(run.status().message().find("context"), std::string::npos) << run.status().message();
  std::vector<RunRecord> all = (*store)->ListRuns();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_FALSE(all[0].damage.empty());
  auto tests = (*store)->ListTests(all[0].id);
  EXPECT_FALSE(tests.ok());
  EXPECT_NE(tests.status().message().find("results of test iops"), std::string::npos)
      << tests.status().message();
  EXPECT_FALSE((*store)->LoadRounds(1).ok());
}

TEST_F(StoreTest, ARunIsLockedWhileOneProcessWritesIt) {
  auto store = Store::Open(Path("l.db"));
  ASSERT_TRUE(store.ok());
  TargetInfo t;
  auto run = (*store)->CreateRun("r", "pts", {}, {}, t);
  ASSERT_TRUE(run.ok());
  auto lock = (*store)->LockRun(*run, "r");
  ASSERT_TRUE(lock.ok()) << lock.status().message();
  // Another open of the database (another process's view: OFD locks conflict between opens).
  auto other = Store::Open(Path("l.db"));
  ASSERT_TRUE(other.ok());
  auto second = (*other)->LockRun(*run, "r");
  EXPECT_EQ(second.status().code(), Code::kPermission);
  EXPECT_NE(second.status().message().find("another ssdlab process"), std::string::npos);
  // Other runs are not affected, and the lock goes with its holder.
  auto run2 = (*other)->CreateRun("r2", "pts", {}, {}, t);
  ASSERT_TRUE(run2.ok());
  EXPECT_TRUE((*other)->LockRun(*run2, "r2").ok());
  { RunLock gone = std::move(lock.value()); }
  EXPECT_TRUE((*other)->LockRun(*run, "r").ok());
  // The database is still usable by the first store after the unlock (SQLite's locks kept).
  EXPECT_TRUE((*store)->SetRunStatus(*run, "done").ok());
}

}  // namespace
}  // namespace ssdlab
