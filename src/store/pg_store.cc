#include "store/pg_store.h"

#include <libpq-fe.h>

#include <charconv>
#include <cstring>

#include "base/secrets.h"
#include "base/strings.h"
#include "store/sql_store.h"

namespace ssdlab {
namespace {

// Session-level advisory locks of ssdlab live in this key space (the first of two int4 keys);
// the schema lock is transaction-level.
constexpr int kRunLockSpace = 0x55D1AB;

// Hosts opening a new database at once: the first creates the schema, the others wait on the
// lock (key 0x55D1AB0000000001).
constexpr SqlDialect kPostgres = {{"BIGSERIAL PRIMARY KEY", "BIGINT", "DOUBLE PRECISION", "BYTEA"},
                                  "BEGIN; SELECT pg_advisory_xact_lock(6183911779844751361)",
                                  ""};

// Row `i` of a result; values are text (libpq's text format), bytea escaped.
class PgRow final : public SqlRow {
 public:
  PgRow(const PGresult* r, int i) : r_(r), i_(i) {}
  int64_t Int(int col) const override { return std::strtoll(PQgetvalue(r_, i_, col), nullptr, 10); }
  double Real(int col) const override { return std::strtod(PQgetvalue(r_, i_, col), nullptr); }
  std::string Text(int col) const override {
    return PQgetisnull(r_, i_, col) ? "" : PQgetvalue(r_, i_, col);
  }
  std::vector<uint64_t> Words(int col) const override {
    size_t n = 0;
    unsigned char* bytes =
        PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r_, i_, col)), &n);
    std::vector<uint64_t> v(bytes ? n / 8 : 0);
    if (!v.empty()) std::memcpy(v.data(), bytes, v.size() * 8);
    PQfreemem(bytes);
    return v;
  }

 private:
  const PGresult* r_;
  int i_;
};

// A parameter as libpq takes it: text, except bytes (binary).
std::string PgText(const SqlParam& p) {
  if (const auto* i = std::get_if<int64_t>(&p)) return std::to_string(*i);
  if (const auto* r = std::get_if<double>(&p)) {
    char buf[64];
    auto end = std::to_chars(buf, buf + sizeof buf, *r).ptr;  // shortest text that reads back
    return std::string(buf, end);
  }
  if (const auto* t = std::get_if<std::string>(&p)) return *t;
  const auto& w = std::get<SqlBytes>(p).words;
  return std::string(reinterpret_cast<const char*>(w.data()), w.size() * 8);
}

using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

// The PostgreSQL driver (sql_store.h).
class PgStore final : public SqlStore {
 public:
  static Result<std::unique_ptr<Store>> Open(const std::string& url, Mode mode);
  PgStore(pg_conn* conn, std::string where)
      : SqlStore(kPostgres), conn_(conn), where_(std::move(where)) {}
  ~PgStore() override { PQfinish(conn_); }
  Result<RunLock> LockRun(int64_t run_id, const std::string& run_name) override;

 private:
  // One statement (or several, without parameters); the result, cleared by the caller.
  Result<PGresult*> Query(const std::string& sql, const std::vector<SqlParam>& params);
  Status Each(const std::string& what, const std::string& sql, const std::vector<SqlParam>& params,
              const std::function<void(const SqlRow&)>& row) override;
  Status Exec(const std::string& sql) override {
    auto r = Query(sql, {});
    if (r.ok()) PQclear(*r);
    return r.status();
  }
  Status CommitTransaction() override;
  bool InTransaction() override { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }
  bool LastFailureWasDuplicate() const override { return last_sqlstate_ == "23505"; }

  pg_conn* conn_;
  std::string where_;          // "--db URL" without a password, for messages
  std::string last_sqlstate_;  // of the last failed query ("23505": a unique violation)
};

Result<PGresult*> PgStore::Query(const std::string& sql, const std::vector<SqlParam>& params) {
  std::vector<std::string> texts;
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  texts.reserve(params.size());
  for (const SqlParam& p : params) {
    texts.push_back(PgText(p));
    values.push_back(texts.back().data());
    lengths.push_back(static_cast<int>(texts.back().size()));
    formats.push_back(std::holds_alternative<SqlBytes>(p) ? 1 : 0);
  }
  PGresult* r = params.empty()
                    ? PQexec(conn_, sql.c_str())  // may hold several statements (the schema)
                    : PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                                   values.data(), lengths.data(), formats.data(), 0);
  ExecStatusType st = PQresultStatus(r);
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
    last_sqlstate_.clear();
    return r;
  }
  ResultPtr failed(r, PQclear);
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state ? state : "";
  // libpq's messages end in a newline: only trailing newlines and spaces are taken.
  std::string msg(r ? TrimRight(PQresultErrorMessage(r), "\n ") : "");
  if (msg.empty()) msg = TrimRight(PQerrorMessage(conn_), "\n ");
  return Status::Io("database " + where_.substr(5) + ": " + msg);
}

Status PgStore::Each(const std::string& what, const std::string& sql,
                     const std::vector<SqlParam>& params,
                     const std::function<void(const SqlRow&)>& row) {
  auto r = Query(sql, params);
  if (!r.ok()) return r.status().WithContext(what);
  ResultPtr rows(*r, PQclear);
  for (int i = 0, n = PQntuples(rows.get()); i < n; ++i) row(PgRow(rows.get(), i));
  return Status::Ok();
}

Status PgStore::CommitTransaction() {
  SSDLAB_ASSIGN_OR_RETURN(PGresult * r, Query("COMMIT", {}));
  ResultPtr done(r, PQclear);
  // A transaction that saw an error is rolled back by its COMMIT, which does not fail.
  if (std::strcmp(PQcmdStatus(r), "COMMIT") != 0)
    return Status::Io("database " + where_.substr(5) + ": rolled back");
  return Status::Ok();
}

Result<std::unique_ptr<Store>> PgStore::Open(const std::string& url, Mode mode) {
  const std::string where = "--db " + MaskSecrets(url);
  PGconn* conn = PQconnectdb(url.c_str());
  if (!conn) return Status::Io(where + ": cannot connect: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg(TrimRight(PQerrorMessage(conn), "\n "));
    for (char& c : msg)
      if (c == '\n') c = ' ';
    PQfinish(conn);
    return Status::Io(where + ": cannot connect: " + msg);
  }
  // "relation already exists, skipping" and the like are not for the user.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  auto s = std::make_unique<PgStore>(conn, where);
  const bool writes = mode != Mode::kReadOnly;
  if (!writes) SSDLAB_RETURN_IF_ERROR(s->Exec("SET default_transaction_read_only = on"));
  bool has_meta = false;
  int64_t tables = 0;
  SSDLAB_RETURN_IF_ERROR(
      s->Each("the tables",
              "SELECT to_regclass('meta') IS NOT NULL, (SELECT count(*) FROM pg_tables WHERE "
              "schemaname = current_schema())",
              {}, [&](const SqlRow& r) {
                has_meta = r.Text(0) == "t";
                tables = r.Int(1);
              }));
  if (!has_meta && tables > 0)
    return Status::Invalid(where +
                           " is a PostgreSQL database of another program (it has tables "
                           "but no ssdlab schema); refusing to use it");
  if (!has_meta && mode != Mode::kCreate)
    return Status::NotFound(where + " holds no ssdlab results yet (no schema)");
  if (has_meta) {
    std::string app, version;
    SSDLAB_RETURN_IF_ERROR(s->Each("meta", "SELECT key, value FROM meta", {}, [&](const SqlRow& r) {
      if (r.Text(0) == "app") app = r.Text(1);
      if (r.Text(0) == "schema_version") version = r.Text(1);
    }));
    if (app != "ssdlab")
      return Status::Invalid(where + " is a database of another program; refusing to use it");
    int v = static_cast<int>(std::strtol(version.c_str(), nullptr, 10));
    if (v > kStoreSchemaVersion) return Status::Invalid(NewerSchema(where, v));
    s->schema_version_ = v;
  }
  if (writes) SSDLAB_RETURN_IF_ERROR(s->Migrate(where).WithContext(where));
  return std::unique_ptr<Store>(std::move(s));
}

Result<RunLock> PgStore::LockRun(int64_t run_id, const std::string& run_name) {
  const std::string key = std::to_string(kRunLockSpace) + ", " + std::to_string(run_id) + "::int";
  bool locked = false;
  SSDLAB_RETURN_IF_ERROR(Each("locking the run", "SELECT pg_try_advisory_lock(" + key + ")", {},
                              [&](const SqlRow& r) { locked = r.Text(0) == "t"; }));
  if (!locked) return Status::Refused(RunLockedMessage(run_name));
  return RunLock([this, key] { Exec("SELECT pg_advisory_unlock(" + key + ")").ok(); });
}

}  // namespace

Result<std::unique_ptr<Store>> OpenPgStore(const std::string& url, Store::Mode mode) {
  return PgStore::Open(url, mode);
}

}  // namespace ssdlab
