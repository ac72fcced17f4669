#include "store/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "store/sql_store.h"

namespace ssdlab {
namespace {

// One writer migrates at a time: a concurrent opener waits (busy timeout), then sees the new
// version.
constexpr SqlDialect kSqlite = {{"INTEGER PRIMARY KEY", "INTEGER", "REAL", "BLOB"},
                                "BEGIN IMMEDIATE",
                                " (restore it from a backup, or try sqlite3 .recover)"};

// The row a stepping statement stands on.
class SqliteRow final : public SqlRow {
 public:
  explicit SqliteRow(sqlite3_stmt* s) : s_(s) {}
  int64_t Int(int col) const override { return sqlite3_column_int64(s_, col); }
  double Real(int col) const override { return sqlite3_column_double(s_, col); }
  std::string Text(int col) const override {
    const unsigned char* t = sqlite3_column_text(s_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  std::vector<uint64_t> Words(int col) const override {
    const void* p = sqlite3_column_blob(s_, col);
    const size_t n = static_cast<size_t>(sqlite3_column_bytes(s_, col)) / 8;
    std::vector<uint64_t> v(n);
    if (n) std::memcpy(v.data(), p, n * 8);
    return v;
  }

 private:
  sqlite3_stmt* s_;
};

void Bind(sqlite3_stmt* s, int at, const SqlParam& p) {
  if (const auto* i = std::get_if<int64_t>(&p)) {
    sqlite3_bind_int64(s, at, *i);
  } else if (const auto* r = std::get_if<double>(&p)) {
    sqlite3_bind_double(s, at, *r);
  } else if (const auto* t = std::get_if<std::string>(&p)) {
    sqlite3_bind_text(s, at, t->data(), static_cast<int>(t->size()), SQLITE_TRANSIENT);
  } else {
    const auto& w = std::get<SqlBytes>(p).words;
    sqlite3_bind_blob(s, at, w.data(), static_cast<int>(w.size() * 8), SQLITE_TRANSIENT);
  }
}

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

// The SQLite driver (sql_store.h).
class SqliteStore final : public SqlStore {
 public:
  static Result<std::unique_ptr<Store>> Open(const std::string& path, Mode mode);
  SqliteStore(sqlite3* db, std::string path) : SqlStore(kSqlite), db_(db), path_(std::move(path)) {}
  ~SqliteStore() override {
    sqlite3_close(db_);
    if (lock_fd_ >= 0) close(lock_fd_);
  }
  Result<RunLock> LockRun(int64_t run_id, const std::string& run_name) override;

 private:
  Status Each(const std::string& what, const std::string& sql, const std::vector<SqlParam>& params,
              const std::function<void(const SqlRow&)>& row) override;
  Status Exec(const std::string& sql) override;
  Status CommitTransaction() override {
    Status st = Exec("COMMIT");
    if (!st.ok()) Exec("ROLLBACK").ok();  // a failed COMMIT may leave the transaction open
    return st;
  }
  bool InTransaction() override { return !sqlite3_get_autocommit(db_); }
  bool LastFailureWasDuplicate() const override {
    return last_error_ == SQLITE_CONSTRAINT_UNIQUE || last_error_ == SQLITE_CONSTRAINT_PRIMARYKEY;
  }

  sqlite3* db_;
  std::string path_;
  int lock_fd_ = -1;    // the database file, for run locks
  int last_error_ = 0;  // SQLite's extended code of the last failed statement (0: none)
};

Result<std::unique_ptr<Store>> SqliteStore::Open(const std::string& path, Mode mode) {
  const std::string where = "--db " + path;
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  if (!exists && mode != Mode::kCreate) return Status::NotFound(where + " does not exist");
  if (exists && S_ISDIR(st.st_mode)) return Status::Invalid(where + " is a directory");
  const bool writes = mode != Mode::kReadOnly;
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (writes) {
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
  if (!writes && access(dir.c_str(), W_OK) != 0) {
    name = "file:" + std::filesystem::absolute(path).string() + "?immutable=1";
    flags |= SQLITE_OPEN_URI;
  }
  if (sqlite3_open_v2(name.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Status::Invalid(where + ": cannot open: " + msg);
  }
  auto s = std::make_unique<SqliteStore>(db, path);
  s->lock_fd_ = open(path.c_str(), (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  sqlite3_busy_timeout(db, 5000);
  // Is this an ssdlab database, an empty file, or something else?
  auto unreadable = [&]() -> Status {
    const int code = s->last_error_ & 0xff;
    if (code == SQLITE_NOTADB) return Status::Invalid(where + " is not an SQLite database");
    if (code == SQLITE_CORRUPT)
      return Status::Invalid(where + " is damaged (" + sqlite3_errmsg(db) +
                             "); restore it from a backup or try sqlite3 .recover");
    return Status::Invalid(where + ": cannot read it (" + sqlite3_errmsg(db) + ")");
  };
  std::vector<std::string> names;
  if (!s->Each("tables", "SELECT name FROM sqlite_master WHERE type='table'", {},
               [&](const SqlRow& r) { names.push_back(r.Text(0)); })
           .ok())
    return unreadable();
  if (names.empty() && mode != Mode::kCreate)
    return Status::Invalid(where + " is empty, not an ssdlab database");
  if (!names.empty()) {
    std::string app, version;
    if (std::find(names.begin(), names.end(), "meta") != names.end() &&
        !s->Each("meta", "SELECT key, value FROM meta", {}, [&](const SqlRow& r) {
            if (r.Text(0) == "app") app = r.Text(1);
            if (r.Text(0) == "schema_version") version = r.Text(1);
          }).ok())
      return unreadable();
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
    if (ready.ok()) ready = s->Migrate(where);
    const int code = sqlite3_errcode(db) & 0xff;
    if (ready.ok() || (code != SQLITE_BUSY && code != SQLITE_LOCKED) || waited_ms >= 5000) break;
    usleep(20 * 1000);
  }
  SSDLAB_RETURN_IF_ERROR(ready.WithContext(where));
  return std::unique_ptr<Store>(std::move(s));
}

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

Status SqliteStore::Each(const std::string& what, const std::string& sql,
                         const std::vector<SqlParam>& params,
                         const std::function<void(const SqlRow&)>& row) {
  sqlite3_stmt* s = nullptr;
  auto fail = [&] {
    last_error_ = sqlite3_extended_errcode(db_);
    std::string msg = sqlite3_errmsg(db_);
    sqlite3_finalize(s);
    // A read that fails is a damaged file (or page); a write names what it stored.
    if (sql.rfind("SELECT", 0) == 0) return Damaged(what, msg);
    return Status::Io(what + ": " + msg);
  };
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &s, nullptr) != SQLITE_OK)
    return fail();
  // `$N` is parameter N wherever it appears (SQLite numbers named parameters by first use).
  for (size_t i = 0; i < params.size(); ++i) {
    const int at = sqlite3_bind_parameter_index(s, ("$" + std::to_string(i + 1)).c_str());
    if (at > 0) Bind(s, at, params[i]);
  }
  const SqliteRow current(s);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) row(current);
  if (rc != SQLITE_DONE) return fail();
  sqlite3_finalize(s);
  last_error_ = 0;
  return Status::Ok();
}

Status SqliteStore::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    last_error_ = sqlite3_extended_errcode(db_);
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return Status::Io("database: " + msg);
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, Store::Mode mode) {
  return SqliteStore::Open(path, mode);
}

}  // namespace ssdlab
