// One test suite for both store implementations: the SQLite file and a PostgreSQL database of
// a private server started in a temporary directory (skipped, naming why, only when the
// PostgreSQL server binaries are absent).
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "store/copy.h"
#include "store/pg_test_server.h"
#include "store/store.h"
#include "store/test_util.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

PhaseResult Sample(uint64_t base) {
  PhaseResult r = storetest::ReadPhase(1'000'000'000, 500, base, 41);
  r.dirs[1].ios = 2;
  r.dirs[1].bytes = 8192;
  r.dirs[1].latency.Record(base * 3);
  r.dirs[1].latency.Record(987654321);
  for (int k = 0; k < 3; ++k) {
    IntervalSample iv;
    iv.t_begin_ns = k * 100'000'000ull;
    iv.t_end_ns = (k + 1) * 100'000'000ull;
    iv.dirs[0] = {100u + k, 409600, 100 * base, base + 7, 11 * base + k, base + 3};
    iv.dirs[1] = {static_cast<uint64_t>(k + 1), 4096ull * (k + 1), 5 * base, base, 2 * base, base};
    r.intervals.push_back(iv);
  }
  r.cpu_user_s = 0.125;
  r.counters_name = "sim";
  r.counters = {{"write_amplification", 1.75}, {"erases", 9}};
  r.notes = {"filled first"};
  return r;
}

// `lag`: the series' submission lag was stored (false: a database older than the lag columns,
// whose rows read as zero lag).
void ExpectSamePhase(const PhaseResult& got, const PhaseResult& want, bool lag = true) {
  EXPECT_EQ(got.measured_ns, want.measured_ns);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(got.dirs[d].ios, want.dirs[d].ios) << d;
    EXPECT_EQ(got.dirs[d].bytes, want.dirs[d].bytes) << d;
    EXPECT_EQ(got.dirs[d].latency.NonEmptyBuckets(), want.dirs[d].latency.NonEmptyBuckets());
    EXPECT_EQ(got.dirs[d].latency.min(), want.dirs[d].latency.min());
    EXPECT_EQ(got.dirs[d].latency.max(), want.dirs[d].latency.max());
    EXPECT_EQ(got.dirs[d].latency.sum(), want.dirs[d].latency.sum());
    EXPECT_DOUBLE_EQ(got.dirs[d].latency.sum_sq(), want.dirs[d].latency.sum_sq());
  }
  ASSERT_EQ(got.intervals.size(), want.intervals.size());
  for (size_t i = 0; i < got.intervals.size(); ++i)
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(got.intervals[i].dirs[d].ios, want.intervals[i].dirs[d].ios);
      EXPECT_EQ(got.intervals[i].dirs[d].lat_sum_ns, want.intervals[i].dirs[d].lat_sum_ns);
      EXPECT_EQ(got.intervals[i].t_end_ns, want.intervals[i].t_end_ns);
      EXPECT_EQ(got.intervals[i].dirs[d].lag_sum_ns,
                lag ? want.intervals[i].dirs[d].lag_sum_ns : 0);
      EXPECT_EQ(got.intervals[i].dirs[d].lag_max_ns,
                lag ? want.intervals[i].dirs[d].lag_max_ns : 0);
    }
  EXPECT_DOUBLE_EQ(got.cpu_user_s, want.cpu_user_s);
  EXPECT_EQ(got.counters, want.counters);
  EXPECT_EQ(got.notes, want.notes);
}

// Writes run `name`: 2 tests x 3 rounds x 2 cells, finished and done.
void WriteRun(Store& s, const std::string& name, uint64_t base) {
  TargetInfo t;
  t.path = "sim:tiny";
  t.kind = "sim";
  t.size_bytes = 1ull << 32;
  t.model = "model " + name;
  auto run = s.CreateRun(name, "pts", {{"spec", "review"}}, {{"host", "h"}}, t);
  ASSERT_TRUE(run.ok()) << run.status().message();
  for (int seq = 0; seq < 2; ++seq) {
    auto test = s.BeginTest(*run, seq, seq ? "throughput" : "iops", {{"seq", seq}});
    ASSERT_TRUE(test.ok()) << test.status().message();
    for (int round = 0; round < 3; ++round) {
      std::vector<StoredPhase> phases = {
          {round, "bs=4KiB", {{"qd", 32}}, Sample(base + round)},
          {round, "bs=8KiB", {{"qd", 32}}, Sample(base * 2 + round)}};
      Status st = s.CommitRound(*test, round, phases, {{"iops", 100.5 + round}});
      ASSERT_TRUE(st.ok()) << st.message();
    }
    ASSERT_TRUE(s.FinishTest(*test, {{"reached", true}}, {{"x", seq}}).ok());
  }
  ASSERT_TRUE(s.SetRunStatus(*run, "done").ok());
}

// Checks run `name` as WriteRun(…, base) left it (`lag`: as ExpectSamePhase).
void ExpectRun(Store& s, const std::string& name, uint64_t base, bool lag = true) {
  auto run = s.FindRun(name);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->config["spec"], "review");
  EXPECT_EQ(s.LoadTarget(run->id)->model, "model " + name);
  auto tests = s.ListTests(run->id);
  ASSERT_TRUE(tests.ok());
  ASSERT_EQ(tests->size(), 2u);
  for (const TestRecord& t : *tests) {
    EXPECT_EQ(t.status, "done");
    EXPECT_EQ(t.results["x"], t.seq);
    auto rounds = s.LoadRounds(t.id);
    ASSERT_TRUE(rounds.ok());
    ASSERT_EQ(rounds->size(), 3u);
    EXPECT_DOUBLE_EQ((*rounds)[2].tracking["iops"].get<double>(), 102.5);
    auto phases = s.LoadPhases(t.id);
    ASSERT_TRUE(phases.ok()) << phases.status().message();
    ASSERT_EQ(phases->size(), 6u);
    for (const StoredPhase& p : *phases) {
      uint64_t b = (p.cell == "bs=4KiB" ? base : base * 2) + p.round;
      ExpectSamePhase(p.result, Sample(b), lag);
    }
  }
}

// ---- the two implementations -----------------------------------------------------------

struct SqliteKind {
  static constexpr const char* kName = "sqlite";
  static constexpr const char* kOneWord = "zeroblob(8)";  // a histogram blob of one word
  static void Prepare() {}
  static std::string NewStore(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("ssdlab_both_" + std::to_string(getpid()));
    fs::create_directories(dir);
    return (dir / (name + ".db")).string();
  }
  static void Raw(const std::string& where, const std::string& sql) {
    sqlite3* db;
    ASSERT_EQ(sqlite3_open(where.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err;
    sqlite3_free(err);
    sqlite3_close(db);
  }
  static void Cleanup() {
    fs::remove_all(fs::temp_directory_path() / ("ssdlab_both_" + std::to_string(getpid())));
  }
};

struct PgKind {
  static constexpr const char* kName = "postgresql";
  static constexpr const char* kOneWord = "'\\x0000000000000000'::bytea";
  static std::unique_ptr<PgTestServer>& Server() {
    static std::unique_ptr<PgTestServer> s;
    return s;
  }
  static inline std::string skip_reason;
  static void Prepare() {
    if (Server() || !skip_reason.empty()) return;
    auto s = PgTestServer::Start();
    if (s.ok())
      Server() = std::move(s.value());
    else if (s.status().code() == Code::kUnsupported)
      skip_reason = s.status().message();
    else
      FAIL() << s.status().message();
  }
  static std::string NewStore(const std::string& name) {
    auto url = Server()->NewDatabase(name);
    EXPECT_TRUE(url.ok()) << url.status().message();
    return url.ok() ? *url : "";
  }
  static void Raw(const std::string& where, const std::string& sql) {
    PGconn* c = PQconnectdb(where.c_str());
    PGresult* r = PQexec(c, sql.c_str());
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    PQclear(r);
    PQfinish(c);
  }
  static void Cleanup() { Server().reset(); }
};

template <typename K>
class BothStores : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { K::Cleanup(); }
  void SetUp() override {
    K::Prepare();
    if constexpr (std::is_same_v<K, PgKind>) {
      if (!PgKind::skip_reason.empty()) GTEST_SKIP() << PgKind::skip_reason;
    }
  }
  std::string NewStore(const std::string& name) { return K::NewStore(name); }
  std::unique_ptr<Store> Open(const std::string& where, Store::Mode mode = Store::Mode::kCreate) {
    auto s = Store::Open(where, mode);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(s.value()) : nullptr;
  }
};

struct KindNames {
  template <typename K>
  static std::string GetName(int) {
    return K::kName;
  }
};
using Kinds = ::testing::Types<SqliteKind, PgKind>;
TYPED_TEST_SUITE(BothStores, Kinds, KindNames);

TYPED_TEST(BothStores, RoundTripOfEverythingARunHolds) {
  const std::string where = this->NewStore("roundtrip");
  {
    auto s = this->Open(where);
    ASSERT_TRUE(s);
    WriteRun(*s, "r1", 1000);
    auto test = s->BeginTest(s->FindRun("r1")->id, 0, "iops", {});
    ASSERT_TRUE(test.ok());
    EXPECT_EQ(*test, s->ListTests(s->FindRun("r1")->id)->at(0).id) << "BeginTest is idempotent";
  }
  auto s = this->Open(where, Store::Mode::kReadOnly);
  ASSERT_TRUE(s);
  ExpectRun(*s, "r1", 1000);
  auto doc = s->RunJson("r1");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ((*doc)["tests"].size(), 2u);
  EXPECT_EQ((*doc)["context"]["status"], "done");
  EXPECT_EQ(s->FindRun("nope").status().code(), Code::kNotFound);
}

TYPED_TEST(BothStores, ADuplicateRunNameIsRefusedAndARoundRepeatedReplacesIt) {
  auto s = this->Open(this->NewStore("dup"));
  ASSERT_TRUE(s);
  TargetInfo t;
  auto run = s->CreateRun("dup", "pts", {}, {}, t);
  ASSERT_TRUE(run.ok());
  auto again = s->CreateRun("dup", "pts", {}, {}, t);
  EXPECT_EQ(again.status().code(), Code::kInvalidArgument);
  EXPECT_NE(again.status().message().find("already exists"), std::string::npos);
  // The store is usable after the refused insert (its transaction was rolled back).
  auto test = s->BeginTest(*run, 0, "iops", {});
  ASSERT_TRUE(test.ok()) << test.status().message();
  ASSERT_TRUE(s->CommitRound(*test, 0, {{0, "c", {}, Sample(5)}}, {{"v", 1}}).ok());
  ASSERT_TRUE(s->CommitRound(*test, 0, {{0, "c", {}, Sample(9)}}, {{"v", 2}}).ok());
  auto phases = s->LoadPhases(*test);
  ASSERT_TRUE(phases.ok());
  ASSERT_EQ(phases->size(), 1u);
  ExpectSamePhase((*phases)[0].result, Sample(9));
  EXPECT_EQ(s->LoadRounds(*test)->at(0).tracking["v"], 2);
}

TYPED_TEST(BothStores, ReadOnlyNeverCreatesOrWrites) {
  const std::string where = this->NewStore("ro");
  auto missing = Store::Open(where, Store::Mode::kReadOnly);
  EXPECT_EQ(missing.status().code(), Code::kNotFound) << missing.status().message();
  EXPECT_EQ(Store::Open(where, Store::Mode::kExisting).status().code(), Code::kNotFound);
  { ASSERT_TRUE(this->Open(where)); }
  auto ro = this->Open(where, Store::Mode::kReadOnly);
  ASSERT_TRUE(ro);
  TargetInfo t;
  EXPECT_FALSE(ro->CreateRun("x", "pts", {}, {}, t).ok());
  EXPECT_TRUE(ro->ListRuns().empty());
}

TYPED_TEST(BothStores, AnOlderSchemaIsMigratedOnOpenAndANewerOneRefused) {
  const std::string where = this->NewStore("schema");
  {
    auto s = this->Open(where);
    ASSERT_TRUE(s);
    WriteRun(*s, "old", 50);
  }
  // Make it a version-1 database, as an older ssdlab left it.
  TypeParam::Raw(where,
                 "ALTER TABLE runs DROP COLUMN fleet; ALTER TABLE series DROP COLUMN lag_sum_ns; "
                 "ALTER TABLE series DROP COLUMN lag_max_ns; UPDATE meta SET value='1' WHERE "
                 "key='schema_version'");
  {
    auto ro = this->Open(where, Store::Mode::kReadOnly);  // readable without migrating
    ASSERT_TRUE(ro);
    EXPECT_EQ(ro->FindRun("old")->fleet, "");
    ExpectRun(*ro, "old", 50, /*lag=*/false);
  }
  {
    auto s = this->Open(where);  // a writing open migrates
    ASSERT_TRUE(s);
    auto run = s->FindRun("old");
    ASSERT_TRUE(run.ok());
    ASSERT_TRUE(s->SetRunFleet(run->id, "rack-a").ok());
    EXPECT_EQ(s->FindRun("old")->fleet, "rack-a");
    ExpectRun(*s, "old", 50, /*lag=*/false);
    WriteRun(*s, "new", 60);  // the migrated series holds the lag
    ExpectRun(*s, "new", 60);
    EXPECT_EQ(s->RunJson("old")->at("context")["fleet"], "rack-a");
  }
  TypeParam::Raw(where, "UPDATE meta SET value='99' WHERE key='schema_version'");
  for (auto mode : {Store::Mode::kCreate, Store::Mode::kReadOnly}) {
    auto newer = Store::Open(where, mode);
    EXPECT_EQ(newer.status().code(), Code::kInvalidArgument);
    EXPECT_NE(newer.status().message().find("schema version 99, newer than this ssdlab's"),
              std::string::npos)
        << newer.status().message();
  }
}

TYPED_TEST(BothStores, ARunIsLockedWhileOneWriterHoldsIt) {
  const std::string where = this->NewStore("locks");
  auto a = this->Open(where);
  auto b = this->Open(where);
  ASSERT_TRUE(a && b);
  TargetInfo t;
  auto run = a->CreateRun("r", "pts", {}, {}, t);
  auto run2 = a->CreateRun("r2", "pts", {}, {}, t);
  ASSERT_TRUE(run.ok() && run2.ok());
  std::optional<RunLock> lock;
  {
    auto l = a->LockRun(*run, "r");
    ASSERT_TRUE(l.ok()) << l.status().message();
    lock.emplace(std::move(l.value()));
  }
  auto second = b->LockRun(*run, "r");
  EXPECT_EQ(second.status().code(), Code::kPermission);
  EXPECT_NE(second.status().message().find("another ssdlab process"), std::string::npos);
  EXPECT_TRUE(b->LockRun(*run2, "r2").ok()) << "other runs are not affected";
  lock.reset();
  EXPECT_TRUE(b->LockRun(*run, "r").ok()) << "the lock goes with its holder";
  EXPECT_TRUE(a->SetRunStatus(*run, "done").ok());
}

TYPED_TEST(BothStores, TwoProcessesWritingAtOnceLoseNothing) {
  const std::string where = this->NewStore("concurrent");
  // Both processes open the new store at once (each creates or finds the schema), then write
  // their runs round by round, interleaved with the other's.
  constexpr int kRunsEach = 4;
  std::vector<pid_t> kids;
  for (int host = 0; host < 2; ++host) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      {
        auto s = Store::Open(where);
        if (!s.ok()) {
          fprintf(stderr, "host %d: %s\n", host, s.status().message().c_str());
          _exit(2);
        }
        for (int i = 0; i < kRunsEach; ++i) {
          WriteRun(**s, "h" + std::to_string(host) + "-r" + std::to_string(i), 100 * host + i);
          if (::testing::Test::HasFailure()) rc = 1;
        }
      }
      _exit(rc);  // not exit(): the parent's static objects (the server) are not ours
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(k, &status, 0), k);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer exited " << status;
  }
  auto s = this->Open(where, Store::Mode::kReadOnly);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->ListRuns().size(), 2u * kRunsEach);
  for (int host = 0; host < 2; ++host)
    for (int i = 0; i < kRunsEach; ++i)
      ExpectRun(*s, "h" + std::to_string(host) + "-r" + std::to_string(i), 100 * host + i);
}

// Copies into the other implementation and back: the run arrives whole and unchanged.
TYPED_TEST(BothStores, CopyMovesARunWholeBetweenTheImplementations) {
  const std::string here = this->NewStore("copy_src");
  // The other kind: a PostgreSQL store copies to a file, an SQLite store to a database (when
  // the server is available), else to another file.
  std::string there;
  if constexpr (std::is_same_v<TypeParam, PgKind>) {
    there = SqliteKind::NewStore("copy_dst");
  } else {
    PgKind::Prepare();
    there = PgKind::skip_reason.empty() ? PgKind::NewStore("copy_dst")
                                        : SqliteKind::NewStore("copy_dst");
  }
  auto from = this->Open(here);
  auto to = this->Open(there);
  ASSERT_TRUE(from && to);
  WriteRun(*from, "laptop", 77);
  ASSERT_TRUE(from->SetRunFleet(from->FindRun("laptop")->id, "bench").ok());
  Status st = CopyRun(*from, *to, "laptop").status;
  ASSERT_TRUE(st.ok()) << st.message();
  ExpectRun(*to, "laptop", 77);
  EXPECT_EQ(to->FindRun("laptop")->fleet, "bench");
  EXPECT_EQ(from->RunJson("laptop")->at("tests"), to->RunJson("laptop")->at("tests"));
  Status twice = CopyRun(*from, *to, "laptop").status;
  EXPECT_EQ(twice.code(), Code::kInvalidArgument) << twice.message();
  // A run being written is not copied half-way.
  WriteRun(*from, "busy", 3);
  auto lock = from->LockRun(from->FindRun("busy")->id, "busy");
  ASSERT_TRUE(lock.ok());
  auto other = this->Open(here);
  EXPECT_EQ(CopyRun(*other, *to, "busy").status.code(), Code::kPermission);
  EXPECT_EQ(to->FindRun("busy").status().code(), Code::kNotFound);
}

// A copy that fails late (a damaged histogram in the last round of the last test) leaves
// nothing of the run in the destination: it is one transaction there, as a killed copy is.
TYPED_TEST(BothStores, ACopyThatFailsLateLeavesNothingOfTheRun) {
  const std::string src = this->NewStore("late_src");
  const std::string dst = this->NewStore("late_dst");
  {
    auto from = this->Open(src);
    ASSERT_TRUE(from);
    WriteRun(*from, "late", 5);
    WriteRun(*from, "good", 6);
  }
  TypeParam::Raw(src, std::string("UPDATE histograms SET buckets=") + TypeParam::kOneWord +
                          " WHERE phase_id=(SELECT max(p.id) FROM phases p JOIN tests t ON "
                          "t.id=p.test_id JOIN runs r ON r.id=t.run_id WHERE r.name='late')");
  auto from = this->Open(src, Store::Mode::kExisting);
  auto to = this->Open(dst);
  ASSERT_TRUE(from && to);
  CopyResult late = CopyRun(*from, *to, "late");
  EXPECT_EQ(late.status.code(), Code::kIoError);
  EXPECT_TRUE(late.damaged);
  EXPECT_NE(late.status.message().find("--from: damaged phases"), std::string::npos)
      << late.status.message();
  EXPECT_EQ(to->FindRun("late").status().code(), Code::kNotFound);
  EXPECT_TRUE(to->ListRuns().empty());
  // The destination is usable after the rollback; a sound run copies whole.
  CopyResult good = CopyRun(*from, *to, "good");
  ASSERT_TRUE(good.status.ok()) << good.status.message();
  EXPECT_FALSE(good.damaged);
  ExpectRun(*to, "good", 6);
  ASSERT_EQ(to->ListRuns().size(), 1u);
}

// BeginWrites .. RollbackWrites undoes everything, the writes that are transactions of their
// own included; a refused write inside (a duplicate name) undoes only itself.
TYPED_TEST(BothStores, ATransactionIsStoredWholeOrNotAtAll) {
  const std::string where = this->NewStore("tx");
  auto s = this->Open(where);
  ASSERT_TRUE(s);
  {
    auto tx = Store::Transaction::Begin(*s);
    ASSERT_TRUE(tx.ok()) << tx.status().message();
    WriteRun(*s, "dropped", 4);
  }  // not committed
  EXPECT_TRUE(s->ListRuns().empty());
  {
    auto tx = Store::Transaction::Begin(*s);
    ASSERT_TRUE(tx.ok());
    WriteRun(*s, "kept", 8);
    TargetInfo t;
    EXPECT_EQ(s->CreateRun("kept", "pts", {}, {}, t).status().code(), Code::kInvalidArgument);
    ASSERT_TRUE(tx->Commit().ok());
  }
  ExpectRun(*s, "kept", 8);
  auto other = this->Open(where, Store::Mode::kReadOnly);
  ASSERT_TRUE(other);
  ExpectRun(*other, "kept", 8);
  EXPECT_EQ(other->ListRuns().size(), 1u);
}

// One damaged run record does not make the ones after it damaged.
TYPED_TEST(BothStores, DamageOfOneRunRecordIsItsOwn) {
  const std::string where = this->NewStore("damage_rows");
  {
    auto s = this->Open(where);
    ASSERT_TRUE(s);
    TargetInfo t;
    for (const char* name : {"a", "b", "c", "d"})
      ASSERT_TRUE(s->CreateRun(name, "pts", {{"x", 1}}, {{"y", 2}}, t).ok());
  }
  TypeParam::Raw(where, "UPDATE runs SET config='{nope' WHERE name='b'");
  auto s = this->Open(where, Store::Mode::kReadOnly);
  ASSERT_TRUE(s);
  std::vector<RunRecord> all = s->ListRuns();
  ASSERT_EQ(all.size(), 4u);
  for (const RunRecord& r : all)
    EXPECT_EQ(r.damage.empty(), r.name != "b") << r.name << ": " << r.damage;
  EXPECT_TRUE(s->FindRun("c").ok());
}

// `db copy` keeps the document: SQLite -> PostgreSQL -> SQLite gives the same run JSON (times,
// status, config, context, tests and rounds) and the same phases; a name taken in the
// destination is refused unless the copy is given another.
TEST(CopyBetweenStores, ARunCopiedThereAndBackIsTheSameDocument) {
  PgKind::Prepare();
  if (!PgKind::skip_reason.empty()) GTEST_SKIP() << PgKind::skip_reason;
  const std::string first = SqliteKind::NewStore("copy_first");
  const std::string pg = PgKind::NewStore("copy_pg");
  const std::string back = SqliteKind::NewStore("copy_back");
  auto open = [](const std::string& where) {
    auto s = Store::Open(where);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(s.value()) : nullptr;
  };
  auto a = open(first), b = open(pg), c = open(back);
  ASSERT_TRUE(a && b && c);
  WriteRun(*a, "r", 7);
  // Times of a run measured earlier than the copy (a copy made at once could not tell them).
  ASSERT_TRUE(
      a->SetRunTimes(a->FindRun("r")->id, "2026-01-02T09:18:00Z", "2026-01-02T09:19:30Z").ok());
  auto original = a->RunJson("r");
  ASSERT_TRUE(original.ok()) << original.status().message();
  ASSERT_TRUE(CopyRun(*a, *b, "r").status.ok());
  CopyResult there_and_back = CopyRun(*b, *c, "r");
  ASSERT_TRUE(there_and_back.status.ok()) << there_and_back.status.message();
  EXPECT_EQ(b->RunJson("r")->dump(), original->dump());
  EXPECT_EQ(c->RunJson("r")->dump(), original->dump());
  ExpectRun(*c, "r", 7);

  CopyResult again = CopyRun(*b, *c, "r");
  EXPECT_EQ(again.status.code(), Code::kInvalidArgument);
  EXPECT_NE(again.status.message().find("--to already has a run named 'r'"), std::string::npos)
      << again.status.message();
  ASSERT_TRUE(CopyRun(*b, *c, "r", "r2").status.ok());
  nlohmann::json renamed = *c->RunJson("r2");
  EXPECT_EQ(renamed["context"]["run"], "r2");
  renamed["context"]["run"] = "r";
  EXPECT_EQ(renamed.dump(), original->dump());
}

}  // namespace
}  // namespace ssdlab
