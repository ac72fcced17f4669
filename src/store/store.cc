#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "stats/histogram_codec.h"
#include "store/pg_plugin.h"
#include "store/schema.h"
#include "store/sqlite_store.h"
#include "workload/spec.h"

namespace ssdlab {
namespace {

using nlohmann::json;

// A prepared statement with positional binding (1-based) and RAII finalization.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) s_ = nullptr;
  }
  ~Stmt() { sqlite3_finalize(s_); }
  bool ok() const { return s_ != nullptr; }
  Stmt& Bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& Bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  Stmt& Bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& BindBlob(int i, const void* p, size_t n) {
    sqlite3_bind_blob(s_, i, p, static_cast<int>(n), SQLITE_TRANSIENT);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return s_ ? sqlite3_step(s_) : SQLITE_ERROR; }
  int64_t Int(int col) const { return sqlite3_column_int64(s_, col); }
  double Real(int col) const { return sqlite3_column_double(s_, col); }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(s_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  // The column's JSON; an unparsable text is recorded in damage() and read as null.
  json Json(int col, const std::string& name) {
    std::string t = Text(col);
    if (t.empty()) return json();
    json j = json::parse(t, nullptr, false);
    if (j.is_discarded()) {
      if (damage_.empty()) damage_ = "the " + name + " is not valid JSON";
      return json();
    }
    return j;
  }
  const std::string& damage() const { return damage_; }
  // Reading rows one by one: forgets the damage of the rows before.
  void ForgetDamage() { damage_.clear(); }
  std::vector<uint64_t> Words(int col) const {
    const void* p = sqlite3_column_blob(s_, col);
    size_t n = static_cast<size_t>(sqlite3_column_bytes(s_, col)) / 8;
    std::vector<uint64_t> v(n);
    if (n) std::memcpy(v.data(), p, n * 8);
    return v;
  }
  Status Done(const char* what) {
    int rc = Step();
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::Ok();
    return Status::Io(std::string(what) + ": " + sqlite3_errmsg(db_));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  std::string damage_;
};

// Why a read of `what` stopped: the SQLite error of a damaged file, or the damage found.
Status Damaged(const std::string& what, const std::string& detail) {
  return Status::Io("damaged " + what + " in the database: " + detail +
                    " (restore it from a backup, or try sqlite3 .recover)");
}

// Reads every row of `q` with `row`; fails when the statement ends on an error (a damaged
// page) rather than on its last row.
template <typename F>
Status EachRow(sqlite3* db, Stmt& q, const std::string& what, F row) {
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) row();
  if (rc != SQLITE_DONE) return Damaged(what, sqlite3_errmsg(db));
  if (!q.damage().empty()) return Damaged(what, q.damage());
  return Status::Ok();
}

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, finished_at TEXT NOT NULL DEFAULT '', config TEXT NOT NULL,
  context TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS targets(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id), path TEXT, kind TEXT, size_bytes INTEGER,
  logical_block_bytes INTEGER, physical_block_bytes INTEGER, model TEXT, serial TEXT,
  firmware TEXT, details TEXT);
CREATE TABLE IF NOT EXISTS tests(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,
  name TEXT NOT NULL, status TEXT NOT NULL, params TEXT NOT NULL, steady_state TEXT NOT NULL DEFAULT '',
  results TEXT NOT NULL DEFAULT '', UNIQUE(run_id, name));
CREATE TABLE IF NOT EXISTS rounds(
  test_id INTEGER NOT NULL REFERENCES tests(id), round INTEGER NOT NULL, tracking TEXT NOT NULL,
  committed_at TEXT NOT NULL, PRIMARY KEY(test_id, round));
CREATE TABLE IF NOT EXISTS phases(
  id INTEGER PRIMARY KEY, test_id INTEGER NOT NULL REFERENCES tests(id), round INTEGER NOT NULL,
  cell TEXT NOT NULL, workload TEXT NOT NULL, measured_ns INTEGER NOT NULL,
  io_errors INTEGER NOT NULL, interrupted INTEGER NOT NULL, cpu_user_s REAL, cpu_sys_s REAL,
  counters TEXT NOT NULL, notes TEXT NOT NULL, UNIQUE(test_id, round, cell));
CREATE TABLE IF NOT EXISTS histograms(
  phase_id INTEGER NOT NULL REFERENCES phases(id), direction INTEGER NOT NULL,
  ios INTEGER NOT NULL, bytes INTEGER NOT NULL, min_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL,
  sum_ns INTEGER NOT NULL, sum_sq_ns2 REAL NOT NULL, buckets BLOB,
  PRIMARY KEY(phase_id, direction));
CREATE TABLE IF NOT EXISTS series(
  phase_id INTEGER NOT NULL REFERENCES phases(id), idx INTEGER NOT NULL,
  t_begin_ns INTEGER NOT NULL, t_end_ns INTEGER NOT NULL, direction INTEGER NOT NULL,
  ios INTEGER NOT NULL, bytes INTEGER NOT NULL, lat_sum_ns INTEGER NOT NULL,
  lat_max_ns INTEGER NOT NULL, PRIMARY KEY(phase_id, idx, direction));
)sql";

}  // namespace

Result<std::unique_ptr<Store>> SqliteStore::Open(const std::string& path, Mode mode) {
  const std::string where = "--db " + path;
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  if (!exists && mode != Mode::kCreate) return Status::NotFound(where + " does not exist");
  if (exists && S_ISDIR(st.st_mode)) return Status::Invalid(where + " is a directory");
  const bool writes = mode != Mode::kReadOnly;
  if (writes) {
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (dir.empty()) dir = ".";
    if (exists && access(path.c_str(), W_OK) != 0)
      return Status::Refused(where + " is read-only (" + std::strerror(errno) + ")");
    if (access(dir.c_str(), W_OK) != 0)
      return Status::Refused(where + ": its directory " + dir + " is not writable (" +
                             std::strerror(errno) +
                             "; SQLite keeps its journal beside the database)");
  }
  if (exists && st.st_size == 0 && !writes)
    return Status::Invalid(where + " is an empty file, not an ssdlab database");
  sqlite3* db = nullptr;
  int flags = writes ? SQLITE_OPEN_READWRITE | (mode == Mode::kCreate ? SQLITE_OPEN_CREATE : 0)
                     : SQLITE_OPEN_READONLY;
  // On a read-only filesystem SQLite cannot create the WAL index beside the database; the file
  // cannot change there either, so it is opened as immutable.
  std::string name = path;
  if (!writes) {
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) {
      name = "file:" + std::filesystem::absolute(path).string() + "?immutable=1";
      flags |= SQLITE_OPEN_URI;
    }
  }
  int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Status::Invalid(where + ": cannot open: " + msg);
  }
  int fd = open(path.c_str(), (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  std::unique_ptr<SqliteStore> s(new SqliteStore(db, path));
  s->lock_fd_ = fd;
  sqlite3_busy_timeout(db, 5000);
  // Is this an ssdlab database, an empty file, or something else?
  auto unreadable = [&](int code) -> Status {
    if (code == SQLITE_NOTADB) return Status::Invalid(where + " is not an SQLite database");
    if (code == SQLITE_CORRUPT)
      return Status::Invalid(where + " is damaged (" + sqlite3_errmsg(db) +
                             "); restore it from a backup or try sqlite3 .recover");
    return Status::Invalid(where + ": cannot read it (" + sqlite3_errmsg(db) + ")");
  };
  Stmt tables(db, "SELECT name FROM sqlite_master WHERE type='table'");
  if (!tables.ok()) return unreadable(sqlite3_errcode(db));
  std::vector<std::string> names;
  while ((rc = tables.Step()) == SQLITE_ROW) names.push_back(tables.Text(0));
  if (rc != SQLITE_DONE) return unreadable(rc);
  if (names.empty() && mode != Mode::kCreate)
    return Status::Invalid(where + " is empty, not an ssdlab database");
  if (!names.empty()) {
    bool has_meta = std::find(names.begin(), names.end(), "meta") != names.end();
    std::string app, version;
    if (has_meta) {
      Stmt m(db, "SELECT key, value FROM meta");
      while ((rc = m.Step()) == SQLITE_ROW) {
        if (m.Text(0) == "app") app = m.Text(1);
        if (m.Text(0) == "schema_version") version = m.Text(1);
      }
      if (rc != SQLITE_DONE) return unreadable(rc);
    }
    if (app != "ssdlab")
      return Status::Invalid(where +
                             " is an SQLite database of another program; refusing to use it");
    auto v = std::strtol(version.c_str(), nullptr, 10);
    if (v > kStoreSchemaVersion) return Status::Invalid(NewerSchema(where, static_cast<int>(v)));
    s->schema_version_ = static_cast<int>(v);
  }
  if (!writes) return std::unique_ptr<Store>(std::move(s));
  // Several processes opening one new file at once (a fleet's ranks): switching it to WAL needs
  // a lock SQLite does not wait for, so a busy answer is retried for as long as the busy timeout.
  Status ready;
  for (int waited_ms = 0;; waited_ms += 20) {
    ready = s->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    if (ready.ok()) ready = s->Migrate();
    const int code = sqlite3_errcode(db) & 0xff;
    if (ready.ok() || (code != SQLITE_BUSY && code != SQLITE_LOCKED) || waited_ms >= 5000) break;
    usleep(20 * 1000);
  }
  SSDLAB_RETURN_IF_ERROR(ready.WithContext(where));
  return std::unique_ptr<Store>(std::move(s));
}

Status SqliteStore::Migrate() {
  // One writer at a time: a concurrent opener waits (busy timeout), then sees the new version.
  SSDLAB_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  auto fail = [&](Status st) {
    Exec("ROLLBACK").ok();
    return st;
  };
  if (Status st = Exec(kSchema); !st.ok()) return fail(st);
  if (Status st = Exec("INSERT OR IGNORE INTO meta VALUES('app','ssdlab'); INSERT OR IGNORE INTO "
                       "meta VALUES('schema_version','1');");
      !st.ok())
    return fail(st);
  Stmt v(db_, "SELECT value FROM meta WHERE key='schema_version'");
  if (v.Step() != SQLITE_ROW) return fail(Status::Io("database: no schema version"));
  int version = static_cast<int>(std::strtol(v.Text(0).c_str(), nullptr, 10));
  for (const SchemaMigration& m : kMigrations) {
    if (m.version <= version) continue;
    if (Status st = Exec(m.sqlite); !st.ok()) return fail(st);
    version = m.version;
  }
  if (Status st = Exec("UPDATE meta SET value='" + std::to_string(version) +
                       "' WHERE key='schema_version'");
      !st.ok())
    return fail(st);
  schema_version_ = version;
  return Exec("COMMIT");
}

namespace {
// Run locks live on bytes far beyond any database's size, which SQLite never locks.
constexpr off_t kLockBase = off_t{1} << 50;

bool SetOfdLock(int fd, int64_t run_id, short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = kLockBase + run_id;
  fl.l_len = 1;
  return fcntl(fd, F_OFD_SETLK, &fl) == 0;
}
}  // namespace

Result<RunLock> SqliteStore::LockRun(int64_t run_id, const std::string& run_name) {
  if (lock_fd_ < 0)
    return Status::Io("--db " + path_ + ": cannot open it to lock run '" + run_name + "'");
  if (!SetOfdLock(lock_fd_, run_id, F_WRLCK)) {
    if (errno == EAGAIN || errno == EACCES) return Status::Refused(RunLockedMessage(run_name));
    return Status::Io("--db " + path_ + ": cannot lock run '" + run_name +
                      "': " + std::strerror(errno));
  }
  // Unlock without closing: closing a descriptor of the database would drop SQLite's own
  // (process-wide POSIX) locks on it.
  return RunLock([fd = lock_fd_, run_id] { SetOfdLock(fd, run_id, F_UNLCK); });
}

Status SqliteStore::BeginWrites() {
  const std::string savepoint = "SAVEPOINT ssdlab_" + std::to_string(writes_depth_);
  SSDLAB_RETURN_IF_ERROR(Exec(writes_depth_ == 0 ? "BEGIN" : savepoint));
  ++writes_depth_;
  return Status::Ok();
}

Status SqliteStore::CommitWrites() {
  --writes_depth_;
  if (writes_depth_ > 0) return Exec("RELEASE ssdlab_" + std::to_string(writes_depth_));
  Status st = Exec("COMMIT");
  if (!st.ok()) Exec("ROLLBACK").ok();  // a failed COMMIT may leave the transaction open
  return st;
}

void SqliteStore::RollbackWrites() {
  --writes_depth_;
  const std::string savepoint = "ssdlab_" + std::to_string(writes_depth_);
  // SQLite rolls the whole transaction back itself after some errors (a full disk, I/O); then
  // there is nothing left to roll back.
  if (sqlite3_get_autocommit(db_)) return;
  if (writes_depth_ > 0)
    Exec("ROLLBACK TO " + savepoint + "; RELEASE " + savepoint).ok();
  else
    Exec("ROLLBACK").ok();
}

SqliteStore::~SqliteStore() {
  sqlite3_close(db_);
  if (lock_fd_ >= 0) close(lock_fd_);
}

Status SqliteStore::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return Status::Io("database: " + msg);
  }
  return Status::Ok();
}

Result<int64_t> SqliteStore::CreateRun(const std::string& name, const std::string& kind,
                                       const json& config, const json& context,
                                       const TargetInfo& t) {
  SSDLAB_RETURN_IF_ERROR(BeginWrites());
  Stmt ins(db_,
           "INSERT INTO runs(name, kind, status, created_at, config, context) VALUES(?,?,?,?,?,?)");
  ins.Bind(1, name)
      .Bind(2, kind)
      .Bind(3, std::string("running"))
      .Bind(4, NowIso())
      .Bind(5, config.dump())
      .Bind(6, context.dump());
  if (ins.Step() != SQLITE_DONE) {
    std::string msg = sqlite3_errmsg(db_);
    RollbackWrites();
    if (msg.find("UNIQUE") != std::string::npos)
      return Status::Invalid("a run named '" + name +
                             "' already exists; pick another --run name or --resume it");
    return Status::Io("database: " + msg);
  }
  int64_t id = sqlite3_last_insert_rowid(db_);
  Stmt tg(db_, "INSERT INTO targets VALUES(?,?,?,?,?,?,?,?,?,?)");
  tg.Bind(1, id)
      .Bind(2, t.path)
      .Bind(3, t.kind)
      .Bind(4, static_cast<int64_t>(t.size_bytes))
      .Bind(5, static_cast<int64_t>(t.logical_block_bytes))
      .Bind(6, static_cast<int64_t>(t.physical_block_bytes))
      .Bind(7, t.model)
      .Bind(8, t.serial)
      .Bind(9, t.firmware)
      .Bind(10, std::string("{}"));
  if (Status st = tg.Done("storing the target"); !st.ok()) {
    RollbackWrites();
    return st;
  }
  SSDLAB_RETURN_IF_ERROR(CommitWrites());
  return id;
}

namespace {
RunRecord ReadRun(Stmt& q) {
  q.ForgetDamage();  // each row is judged alone
  RunRecord r;
  r.id = q.Int(0);
  r.name = q.Text(1);
  r.kind = q.Text(2);
  r.status = q.Text(3);
  r.created_at = q.Text(4);
  r.finished_at = q.Text(5);
  r.config = q.Json(6, "config");
  r.context = q.Json(7, "context");
  r.fleet = q.Text(8);
  if (q.damage().empty() && (!r.config.is_object() || !r.context.is_object()))
    r.damage = "the config or context is not a JSON object";
  else
    r.damage = q.damage();
  return r;
}
}  // namespace

Result<RunRecord> SqliteStore::FindRun(const std::string& name) {
  Stmt q(db_, ("SELECT " + RunColumns() + " FROM runs WHERE name=?").c_str());
  q.Bind(1, name);
  int rc = q.Step();
  if (rc == SQLITE_DONE) return Status::NotFound("no run named '" + name + "' in the database");
  if (rc != SQLITE_ROW) return Damaged("record of run '" + name + "'", sqlite3_errmsg(db_));
  RunRecord r = ReadRun(q);
  if (!r.damage.empty()) return Damaged("record of run '" + name + "'", r.damage);
  return r;
}

std::vector<RunRecord> SqliteStore::ListRuns() {
  std::vector<RunRecord> out;
  Stmt q(db_, ("SELECT " + RunColumns() + " FROM runs ORDER BY id").c_str());
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) out.push_back(ReadRun(q));
  if (rc != SQLITE_DONE) {
    RunRecord r;
    r.name = "?";
    r.damage = std::string("the list of runs stops here: ") + sqlite3_errmsg(db_);
    out.push_back(r);
  }
  return out;
}

Status SqliteStore::SetRunStatus(int64_t run_id, const std::string& status) {
  Stmt q(db_, "UPDATE runs SET status=?, finished_at=? WHERE id=?");
  q.Bind(1, status).Bind(2, status == "running" ? std::string() : NowIso()).Bind(3, run_id);
  return q.Done("updating the run");
}

Status SqliteStore::SetRunFleet(int64_t run_id, const std::string& fleet) {
  Stmt q(db_, "UPDATE runs SET fleet=? WHERE id=?");
  q.Bind(1, fleet).Bind(2, run_id);
  return q.Done("grouping the run under its fleet");
}

Status SqliteStore::SetRunTimes(int64_t run_id, const std::string& created_at,
                                const std::string& finished_at) {
  Stmt q(db_, "UPDATE runs SET created_at=?, finished_at=? WHERE id=?");
  q.Bind(1, created_at).Bind(2, finished_at).Bind(3, run_id);
  return q.Done("setting the run's times");
}

std::string SqliteStore::RunColumns() const {
  // A read-only open of a version-1 file (not migrated) has no fleet column.
  return std::string("id, name, kind, status, created_at, finished_at, config, context, ") +
         (schema_version_ >= 2 ? "fleet" : "''");
}

Result<TargetInfo> SqliteStore::LoadTarget(int64_t run_id) {
  Stmt q(db_,
         "SELECT path, kind, size_bytes, logical_block_bytes, physical_block_bytes, model, serial, "
         "firmware FROM targets WHERE run_id=?");
  q.Bind(1, run_id);
  if (q.Step() != SQLITE_ROW) return Status::NotFound("run has no target record");
  TargetInfo t;
  t.path = q.Text(0);
  t.kind = q.Text(1);
  t.size_bytes = static_cast<uint64_t>(q.Int(2));
  t.logical_block_bytes = static_cast<uint32_t>(q.Int(3));
  t.physical_block_bytes = static_cast<uint32_t>(q.Int(4));
  t.model = q.Text(5);
  t.serial = q.Text(6);
  t.firmware = q.Text(7);
  return t;
}

Result<int64_t> SqliteStore::BeginTest(int64_t run_id, int seq, const std::string& name,
                                       const json& params) {
  Stmt find(db_, "SELECT id FROM tests WHERE run_id=? AND name=?");
  find.Bind(1, run_id).Bind(2, name);
  if (find.Step() == SQLITE_ROW) return find.Int(0);
  Stmt ins(db_, "INSERT INTO tests(run_id, seq, name, status, params) VALUES(?,?,?,?,?)");
  ins.Bind(1, run_id)
      .Bind(2, static_cast<int64_t>(seq))
      .Bind(3, name)
      .Bind(4, std::string("running"))
      .Bind(5, params.dump());
  SSDLAB_RETURN_IF_ERROR(ins.Done("storing a test"));
  return sqlite3_last_insert_rowid(db_);
}

Result<std::vector<TestRecord>> SqliteStore::ListTests(int64_t run_id) {
  std::vector<TestRecord> out;
  Stmt q(db_,
         "SELECT id, seq, name, status, params, steady_state, results FROM tests WHERE run_id=? "
         "ORDER BY seq");
  q.Bind(1, run_id);
  SSDLAB_RETURN_IF_ERROR(EachRow(db_, q, "tests", [&] {
    TestRecord t;
    t.id = q.Int(0);
    t.seq = static_cast<int>(q.Int(1));
    t.name = q.Text(2);
    t.status = q.Text(3);
    t.params = q.Json(4, "test parameters");
    t.steady_state = q.Json(5, "steady-state verdict of test " + t.name);
    t.results = q.Json(6, "results of test " + t.name);
    out.push_back(std::move(t));
  }));
  return out;
}

Result<int64_t> SqliteStore::InsertPhase(int64_t test_id, const StoredPhase& p) {
  const PhaseResult& r = p.result;
  // {"name": ..., "values": [[key, value], ...]}: an array keeps the backend's order.
  json counters = CountersJson(r);
  json notes = r.notes;
  // A phase stored again (a round repeated) replaces the old one, its histograms and series.
  for (const char* table : {"histograms", "series"}) {
    Stmt del(db_, (std::string("DELETE FROM ") + table +
                   " WHERE phase_id IN (SELECT id FROM phases WHERE test_id=? AND round=? AND "
                   "cell=?)")
                      .c_str());
    del.Bind(1, test_id).Bind(2, static_cast<int64_t>(p.round)).Bind(3, p.cell);
    SSDLAB_RETURN_IF_ERROR(del.Done("replacing a phase"));
  }
  Stmt ins(db_,
           "INSERT OR REPLACE INTO phases(test_id, round, cell, workload, measured_ns, io_errors, "
           "interrupted, cpu_user_s, cpu_sys_s, counters, notes) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
  ins.Bind(1, test_id)
      .Bind(2, static_cast<int64_t>(p.round))
      .Bind(3, p.cell)
      .Bind(4, p.workload.dump())
      .Bind(5, static_cast<int64_t>(r.measured_ns))
      .Bind(6, static_cast<int64_t>(r.io_errors))
      .Bind(7, static_cast<int64_t>(r.interrupted))
      .Bind(8, r.cpu_user_s)
      .Bind(9, r.cpu_sys_s)
      .Bind(10, counters.dump())
      .Bind(11, notes.dump());
  SSDLAB_RETURN_IF_ERROR(ins.Done("storing a phase"));
  int64_t id = sqlite3_last_insert_rowid(db_);
  for (int d = 0; d < kDirections; ++d) {
    const DirectionStats& ds = r.dirs[d];
    if (ds.ios == 0) continue;
    std::vector<uint64_t> words = HistogramWords(ds.latency);
    Stmt h(db_, "INSERT INTO histograms VALUES(?,?,?,?,?,?,?,?,?)");
    h.Bind(1, id)
        .Bind(2, static_cast<int64_t>(d))
        .Bind(3, static_cast<int64_t>(ds.ios))
        .Bind(4, static_cast<int64_t>(ds.bytes))
        .Bind(5, static_cast<int64_t>(ds.latency.min()))
        .Bind(6, static_cast<int64_t>(ds.latency.max()))
        .Bind(7, static_cast<int64_t>(ds.latency.sum()))
        .Bind(8, ds.latency.sum_sq())
        .BindBlob(9, words.data(), words.size() * 8);
    SSDLAB_RETURN_IF_ERROR(h.Done("storing a histogram"));
  }
  for (size_t i = 0; i < r.intervals.size(); ++i) {
    const IntervalSample& iv = r.intervals[i];
    for (int d = 0; d < kDirections; ++d) {
      const auto& x = iv.dirs[d];
      if (x.ios == 0 && d != 0) continue;
      Stmt row(db_, "INSERT INTO series VALUES(?,?,?,?,?,?,?,?,?,?,?)");
      row.Bind(1, id)
          .Bind(2, static_cast<int64_t>(i))
          .Bind(3, static_cast<int64_t>(iv.t_begin_ns))
          .Bind(4, static_cast<int64_t>(iv.t_end_ns))
          .Bind(5, static_cast<int64_t>(d))
          .Bind(6, static_cast<int64_t>(x.ios))
          .Bind(7, static_cast<int64_t>(x.bytes))
          .Bind(8, static_cast<int64_t>(x.lat_sum_ns))
          .Bind(9, static_cast<int64_t>(x.lat_max_ns))
          .Bind(10, static_cast<int64_t>(x.lag_sum_ns))
          .Bind(11, static_cast<int64_t>(x.lag_max_ns));
      SSDLAB_RETURN_IF_ERROR(row.Done("storing a time series"));
    }
  }
  return id;
}

Status SqliteStore::CommitRound(int64_t test_id, int round, const std::vector<StoredPhase>& phases,
                                const json& tracking) {
  SSDLAB_RETURN_IF_ERROR(BeginWrites());
  auto fail = [&](const Status& s) {
    RollbackWrites();
    return s;
  };
  for (const StoredPhase& p : phases) {
    auto id = InsertPhase(test_id, p);
    if (!id.ok()) return fail(id.status());
  }
  Stmt r(db_, "INSERT OR REPLACE INTO rounds VALUES(?,?,?,?)");
  r.Bind(1, test_id)
      .Bind(2, static_cast<int64_t>(round))
      .Bind(3, tracking.dump())
      .Bind(4, NowIso());
  if (Status s = r.Done("storing a round"); !s.ok()) return fail(s);
  return CommitWrites();
}

Status SqliteStore::FinishTest(int64_t test_id, const json& steady_state, const json& results) {
  Stmt q(db_, "UPDATE tests SET status='done', steady_state=?, results=? WHERE id=?");
  q.Bind(1, steady_state.dump()).Bind(2, results.dump()).Bind(3, test_id);
  return q.Done("finishing a test");
}

Result<std::vector<StoredRound>> SqliteStore::LoadRounds(int64_t test_id) {
  std::vector<StoredRound> out;
  Stmt q(db_, "SELECT round, tracking FROM rounds WHERE test_id=? ORDER BY round");
  q.Bind(1, test_id);
  SSDLAB_RETURN_IF_ERROR(EachRow(db_, q, "rounds", [&] {
    out.push_back({static_cast<int>(q.Int(0)), q.Json(1, "round tracking values")});
  }));
  return out;
}

Result<std::vector<StoredPhase>> SqliteStore::LoadPhases(int64_t test_id, int round) {
  std::vector<StoredPhase> out;
  std::vector<int64_t> ids;
  Stmt q(db_,
         "SELECT id, round, cell, workload, measured_ns, io_errors, interrupted, cpu_user_s, "
         "cpu_sys_s, counters, notes FROM phases WHERE test_id=? AND (?<0 OR round=?) ORDER BY "
         "round, id");
  q.Bind(1, test_id).Bind(2, static_cast<int64_t>(round)).Bind(3, static_cast<int64_t>(round));
  std::string bad;
  SSDLAB_RETURN_IF_ERROR(EachRow(db_, q, "phases", [&] {
    StoredPhase p;
    ids.push_back(q.Int(0));
    p.round = static_cast<int>(q.Int(1));
    p.cell = q.Text(2);
    p.workload = q.Json(3, "workload of cell " + p.cell);
    PhaseResult& r = p.result;
    r.measured_ns = static_cast<uint64_t>(q.Int(4));
    r.io_errors = static_cast<uint64_t>(q.Int(5));
    r.interrupted = q.Int(6) != 0;
    r.cpu_user_s = q.Real(7);
    r.cpu_sys_s = q.Real(8);
    json counters = q.Json(9, "counters of cell " + p.cell);
    json notes = q.Json(10, "notes of cell " + p.cell);
    if (!ReadCountersAndNotes(counters, notes, r) && bad.empty())
      bad = "the counters or notes of cell " + p.cell + " have the wrong shape";
    out.push_back(std::move(p));
  }));
  if (!bad.empty()) return Damaged("phases", bad);
  for (size_t i = 0; i < out.size(); ++i) {
    PhaseResult& r = out[i].result;
    Stmt h(db_,
           "SELECT direction, ios, bytes, min_ns, max_ns, sum_ns, sum_sq_ns2, buckets FROM "
           "histograms WHERE phase_id=?");
    h.Bind(1, ids[i]);
    SSDLAB_RETURN_IF_ERROR(EachRow(db_, h, "histograms", [&] {
      int d = static_cast<int>(h.Int(0));
      std::vector<uint64_t> w = h.Words(7);
      if (d < 0 || d >= kDirections || w.size() % 2) {
        if (bad.empty()) bad = "a histogram of cell " + out[i].cell + " is malformed";
        return;
      }
      std::vector<std::pair<uint64_t, uint64_t>> buckets = BucketsOfWords(w);
      r.dirs[d].ios = static_cast<uint64_t>(h.Int(1));
      r.dirs[d].bytes = static_cast<uint64_t>(h.Int(2));
      r.dirs[d].latency = Histogram::FromBuckets(buckets, static_cast<uint64_t>(h.Int(3)),
                                                 static_cast<uint64_t>(h.Int(4)),
                                                 static_cast<uint64_t>(h.Int(5)), h.Real(6));
    }));
    // A read-only open of a file older than version 4 (not migrated) has no lag columns.
    const std::string series_sql =
        std::string(
            "SELECT idx, t_begin_ns, t_end_ns, direction, ios, bytes, lat_sum_ns, "
            "lat_max_ns, ") +
        (schema_version_ >= 4 ? "lag_sum_ns, lag_max_ns" : "0, 0") +
        " FROM series WHERE phase_id=? ORDER BY idx, direction";
    Stmt s(db_, series_sql.c_str());
    s.Bind(1, ids[i]);
    SSDLAB_RETURN_IF_ERROR(EachRow(db_, s, "time series", [&] {
      int64_t idx = s.Int(0);
      int d = static_cast<int>(s.Int(3));
      if (idx < 0 || idx > (int64_t{1} << 24) || d < 0 || d >= kDirections) {
        if (bad.empty()) bad = "a time-series row of cell " + out[i].cell + " is out of range";
        return;
      }
      if (r.intervals.size() <= static_cast<size_t>(idx))
        r.intervals.resize(static_cast<size_t>(idx) + 1);
      IntervalSample& iv = r.intervals[static_cast<size_t>(idx)];
      iv.t_begin_ns = static_cast<uint64_t>(s.Int(1));
      iv.t_end_ns = static_cast<uint64_t>(s.Int(2));
      iv.dirs[d] = {static_cast<uint64_t>(s.Int(4)), static_cast<uint64_t>(s.Int(5)),
                    static_cast<uint64_t>(s.Int(6)), static_cast<uint64_t>(s.Int(7)),
                    static_cast<uint64_t>(s.Int(8)), static_cast<uint64_t>(s.Int(9))};
    }));
    if (!bad.empty()) return Damaged("phases", bad);
  }
  return out;
}

Result<Store::Transaction> Store::Transaction::Begin(Store& store) {
  SSDLAB_RETURN_IF_ERROR(store.BeginWrites());
  return Transaction(&store);
}

Status Store::Transaction::Commit() {
  Store* s = store_;
  store_ = nullptr;
  return s->CommitWrites();
}

bool Store::IsUrl(const std::string& where) {
  return where.rfind("postgresql://", 0) == 0 || where.rfind("postgres://", 0) == 0;
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& where, Mode mode) {
  if (IsUrl(where)) {
    SSDLAB_ASSIGN_OR_RETURN(void* open, PluginSymbol(kPgPlugin, kPgOpenSymbol));
    return reinterpret_cast<PgOpenFn>(open)(where, mode);
  }
  return SqliteStore::Open(where, mode);
}

Result<json> Store::RunJson(const std::string& run_name) {
  SSDLAB_ASSIGN_OR_RETURN(RunRecord run, FindRun(run_name));
  auto stored_tests = ListTests(run.id);
  if (!stored_tests.ok()) return stored_tests.status().WithContext("run '" + run_name + "'");
  json doc;
  doc["schema_version"] = 1;
  json ctx = run.context;
  ctx["run"] = run.name;
  ctx["status"] = run.status;
  ctx["created_at"] = run.created_at;
  ctx["finished_at"] = run.finished_at;
  ctx["config"] = run.config;
  if (!run.fleet.empty()) ctx["fleet"] = run.fleet;
  doc["context"] = ctx;
  json tests = json::array();
  for (const TestRecord& t : stored_tests.value()) {
    if (t.status == "done" && !t.results.is_object())
      return Status::Io("run '" + run_name + "': the stored results of test " + t.name +
                        " are damaged (not a JSON object)");
    json rounds =
        t.results.is_object() && t.results.contains("rounds") ? t.results["rounds"] : json::array();
    if (rounds.empty()) {
      auto stored = LoadRounds(t.id);
      if (!stored.ok())
        return stored.status().WithContext("run '" + run_name + "', test " + t.name);
      for (const StoredRound& r : stored.value())
        rounds.push_back({{"round", r.round}, {"tracking", r.tracking}});
    }
    json results = t.results.is_object() ? t.results : json::object();
    results.erase("rounds");
    tests.push_back({{"name", t.name},
                     {"status", t.status},
                     {"steady_state", t.steady_state.is_null() ? json::object() : t.steady_state},
                     {"rounds", rounds},
                     {"results", results}});
  }
  doc["tests"] = tests;
  return doc;
}

}  // namespace ssdlab
