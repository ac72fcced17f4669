#include "store/pg_store.h"

#include <libpq-fe.h>

#include <charconv>
#include <cstring>
#include <map>

#include "base/secrets.h"
#include "base/strings.h"
#include "stats/histogram_codec.h"
#include "store/schema.h"
#include "workload/spec.h"

namespace ssdlab {

using nlohmann::json;

// A query's result, cleared when destroyed; values are text (libpq's text format).
class PgStore::Rows {
 public:
  explicit Rows(PGresult* r) : r_(r) {}
  Rows(Rows&& o) noexcept : r_(o.r_), damage_(std::move(o.damage_)) { o.r_ = nullptr; }
  Rows& operator=(Rows&&) = delete;
  ~Rows() { PQclear(r_); }
  int size() const { return PQntuples(r_); }
  std::string Text(int row, int col) const {
    return PQgetisnull(r_, row, col) ? "" : PQgetvalue(r_, row, col);
  }
  int64_t Int(int row, int col) const {
    return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10);
  }
  double Real(int row, int col) const { return std::strtod(PQgetvalue(r_, row, col), nullptr); }
  // The column's JSON; an unparsable text is recorded in damage() and read as null.
  json Json(int row, int col, const std::string& name) {
    std::string t = Text(row, col);
    if (t.empty()) return json();
    json j = json::parse(t, nullptr, false);
    if (j.is_discarded()) {
      if (damage_.empty()) damage_ = "the " + name + " is not valid JSON";
      return json();
    }
    return j;
  }
  // A bytea column of little-endian uint64 words.
  std::vector<uint64_t> Words(int row, int col) const {
    size_t n = 0;
    unsigned char* bytes =
        PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r_, row, col)), &n);
    std::vector<uint64_t> v(bytes ? n / 8 : 0);
    if (!v.empty()) std::memcpy(v.data(), bytes, v.size() * 8);
    PQfreemem(bytes);
    return v;
  }
  const std::string& damage() const { return damage_; }
  // Reading rows one by one: forgets the damage of the rows before.
  void ForgetDamage() { damage_.clear(); }
  // The command's tag ("COMMIT", "ROLLBACK", "INSERT 0 1").
  std::string Tag() const { return PQcmdStatus(r_); }

 private:
  PGresult* r_;
  std::string damage_;
};

namespace {

using Param = PgStore::Param;

Param P(const std::string& s) { return {s, false}; }
Param P(int64_t v) { return {std::to_string(v), false}; }
Param P(uint64_t v) { return {std::to_string(static_cast<int64_t>(v)), false}; }
Param P(int v) { return {std::to_string(v), false}; }
Param P(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back exactly
  return {std::string(buf, r.ptr), false};
}
Param Blob(const std::vector<uint64_t>& words) {
  return {std::string(reinterpret_cast<const char*>(words.data()), words.size() * 8), true};
}

Status Damaged(const std::string& what, const std::string& detail) {
  return Status::Io("damaged " + what + " in the database: " + detail);
}

// Session-level advisory locks of ssdlab live in this key space (the first of two int4 keys);
// the schema lock is transaction-level.
constexpr int kRunLockSpace = 0x55D1AB;
constexpr int64_t kSchemaLockKey = 0x55D1AB0000000001;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, finished_at TEXT NOT NULL DEFAULT '', config TEXT NOT NULL,
  context TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS targets(
  run_id BIGINT PRIMARY KEY REFERENCES runs(id), path TEXT, kind TEXT, size_bytes BIGINT,
  logical_block_bytes BIGINT, physical_block_bytes BIGINT, model TEXT, serial TEXT,
  firmware TEXT, details TEXT);
CREATE TABLE IF NOT EXISTS tests(
  id BIGSERIAL PRIMARY KEY, run_id BIGINT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,
  name TEXT NOT NULL, status TEXT NOT NULL, params TEXT NOT NULL,
  steady_state TEXT NOT NULL DEFAULT '', results TEXT NOT NULL DEFAULT '', UNIQUE(run_id, name));
CREATE TABLE IF NOT EXISTS rounds(
  test_id BIGINT NOT NULL REFERENCES tests(id), round INTEGER NOT NULL, tracking TEXT NOT NULL,
  committed_at TEXT NOT NULL, PRIMARY KEY(test_id, round));
CREATE TABLE IF NOT EXISTS phases(
  id BIGSERIAL PRIMARY KEY, test_id BIGINT NOT NULL REFERENCES tests(id), round INTEGER NOT NULL,
  cell TEXT NOT NULL, workload TEXT NOT NULL, measured_ns BIGINT NOT NULL,
  io_errors BIGINT NOT NULL, interrupted INTEGER NOT NULL, cpu_user_s DOUBLE PRECISION,
  cpu_sys_s DOUBLE PRECISION, counters TEXT NOT NULL, notes TEXT NOT NULL,
  UNIQUE(test_id, round, cell));
CREATE TABLE IF NOT EXISTS histograms(
  phase_id BIGINT NOT NULL REFERENCES phases(id) ON DELETE CASCADE, direction INTEGER NOT NULL,
  ios BIGINT NOT NULL, bytes BIGINT NOT NULL, min_ns BIGINT NOT NULL, max_ns BIGINT NOT NULL,
  sum_ns BIGINT NOT NULL, sum_sq_ns2 DOUBLE PRECISION NOT NULL, buckets BYTEA,
  PRIMARY KEY(phase_id, direction));
CREATE TABLE IF NOT EXISTS series(
  phase_id BIGINT NOT NULL REFERENCES phases(id) ON DELETE CASCADE, idx INTEGER NOT NULL,
  t_begin_ns BIGINT NOT NULL, t_end_ns BIGINT NOT NULL, direction INTEGER NOT NULL,
  ios BIGINT NOT NULL, bytes BIGINT NOT NULL, lat_sum_ns BIGINT NOT NULL,
  lat_max_ns BIGINT NOT NULL, PRIMARY KEY(phase_id, idx, direction));
)sql";

}  // namespace

PgStore::~PgStore() { PQfinish(conn_); }

Result<PgStore::Rows> PgStore::Query(const std::string& sql, const std::vector<Param>& params) {
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  for (const Param& p : params) {
    values.push_back(p.value.data());
    lengths.push_back(static_cast<int>(p.value.size()));
    formats.push_back(p.binary ? 1 : 0);
  }
  PGresult* r = params.empty()
                    ? PQexec(conn_, sql.c_str())  // may hold several statements (the schema)
                    : PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                                   values.data(), lengths.data(), formats.data(), 0);
  Rows rows(r);
  ExecStatusType st = PQresultStatus(r);
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
    last_sqlstate_.clear();
    return rows;
  }
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state ? state : "";
  // libpq's messages end in a newline: only trailing newlines and spaces are taken.
  std::string msg(r ? TrimRight(PQresultErrorMessage(r), "\n ") : "");
  if (msg.empty()) msg = TrimRight(PQerrorMessage(conn_), "\n ");
  return Status::Io("database " + where_.substr(5) + ": " + msg);
}

Status PgStore::Exec(const std::string& sql, const std::vector<Param>& params) {
  return Query(sql, params).status();
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
  std::unique_ptr<PgStore> s(new PgStore(conn, where));
  const bool writes = mode != Mode::kReadOnly;
  if (!writes) SSDLAB_RETURN_IF_ERROR(s->Exec("SET default_transaction_read_only = on"));
  SSDLAB_ASSIGN_OR_RETURN(
      Rows probe,
      s->Query("SELECT to_regclass('meta') IS NOT NULL, (SELECT count(*) FROM pg_tables WHERE "
               "schemaname = current_schema())"));
  const bool has_meta = probe.Text(0, 0) == "t";
  const int64_t tables = probe.Int(0, 1);
  if (!has_meta && tables > 0)
    return Status::Invalid(where +
                           " is a PostgreSQL database of another program (it has tables "
                           "but no ssdlab schema); refusing to use it");
  if (!has_meta && mode != Mode::kCreate)
    return Status::NotFound(where + " holds no ssdlab results yet (no schema)");
  if (has_meta) {
    SSDLAB_ASSIGN_OR_RETURN(Rows m, s->Query("SELECT key, value FROM meta"));
    std::string app, version;
    for (int i = 0; i < m.size(); ++i) {
      if (m.Text(i, 0) == "app") app = m.Text(i, 1);
      if (m.Text(i, 0) == "schema_version") version = m.Text(i, 1);
    }
    if (app != "ssdlab")
      return Status::Invalid(where + " is a database of another program; refusing to use it");
    int v = static_cast<int>(std::strtol(version.c_str(), nullptr, 10));
    if (v > kStoreSchemaVersion) return Status::Invalid(NewerSchema(where, v));
    s->schema_version_ = v;
  }
  if (writes) SSDLAB_RETURN_IF_ERROR(s->Migrate().WithContext(where));
  return std::unique_ptr<Store>(std::move(s));
}

Status PgStore::Migrate() {
  SSDLAB_RETURN_IF_ERROR(Exec("BEGIN"));
  auto fail = [&](Status st) {
    Exec("ROLLBACK").ok();
    return st;
  };
  // Hosts opening a new database at once: the first creates the schema, the others wait here.
  if (Status st = Exec("SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLockKey) + ")");
      !st.ok())
    return fail(st);
  if (Status st = Exec(kSchema); !st.ok()) return fail(st);
  if (Status st = Exec("INSERT INTO meta VALUES('app','ssdlab'),('schema_version','1') ON "
                       "CONFLICT DO NOTHING");
      !st.ok())
    return fail(st);
  auto v = Query("SELECT value FROM meta WHERE key='schema_version'");
  if (!v.ok()) return fail(v.status());
  int version = static_cast<int>(std::strtol(v->Text(0, 0).c_str(), nullptr, 10));
  if (version > kStoreSchemaVersion) return fail(Status::Invalid(NewerSchema(where_, version)));
  for (const SchemaMigration& m : kMigrations) {
    if (m.version <= version) continue;
    if (Status st = Exec(m.postgres); !st.ok()) return fail(st);
    version = m.version;
  }
  if (Status st = Exec("UPDATE meta SET value=$1 WHERE key='schema_version'", {P(version)});
      !st.ok())
    return fail(st);
  schema_version_ = version;
  return Exec("COMMIT");
}

Result<RunLock> PgStore::LockRun(int64_t run_id, const std::string& run_name) {
  const std::string key = std::to_string(kRunLockSpace) + ", " + std::to_string(run_id) + "::int";
  SSDLAB_ASSIGN_OR_RETURN(Rows r, Query("SELECT pg_try_advisory_lock(" + key + ")"));
  if (r.Text(0, 0) != "t") return Status::Refused(RunLockedMessage(run_name));
  return RunLock([this, key] { Exec("SELECT pg_advisory_unlock(" + key + ")").ok(); });
}

Status PgStore::BeginWrites() {
  SSDLAB_RETURN_IF_ERROR(
      Exec(writes_depth_ == 0 ? "BEGIN" : "SAVEPOINT ssdlab_" + std::to_string(writes_depth_)));
  ++writes_depth_;
  return Status::Ok();
}

Status PgStore::CommitWrites() {
  --writes_depth_;
  if (writes_depth_ > 0) return Exec("RELEASE SAVEPOINT ssdlab_" + std::to_string(writes_depth_));
  SSDLAB_ASSIGN_OR_RETURN(Rows done, Query("COMMIT"));
  // A transaction that saw an error is rolled back by its COMMIT, which does not fail.
  if (done.Tag() != "COMMIT") return Status::Io("database " + where_.substr(5) + ": rolled back");
  return Status::Ok();
}

void PgStore::RollbackWrites() {
  --writes_depth_;
  const std::string savepoint = "ssdlab_" + std::to_string(writes_depth_);
  if (writes_depth_ > 0)
    Exec("ROLLBACK TO SAVEPOINT " + savepoint + "; RELEASE SAVEPOINT " + savepoint).ok();
  else
    Exec("ROLLBACK").ok();
}

Result<int64_t> PgStore::CreateRun(const std::string& name, const std::string& kind,
                                   const json& config, const json& context, const TargetInfo& t) {
  SSDLAB_RETURN_IF_ERROR(BeginWrites());
  auto ins = Query(
      "INSERT INTO runs(name, kind, status, created_at, config, context) "
      "VALUES($1,$2,'running',$3,$4,$5) RETURNING id",
      {P(name), P(kind), P(NowIso()), P(config.dump()), P(context.dump())});
  if (!ins.ok()) {
    const bool dup = last_sqlstate_ == "23505";  // unique_violation
    RollbackWrites();
    if (dup)
      return Status::Invalid("a run named '" + name +
                             "' already exists; pick another --run name or --resume it");
    return ins.status();
  }
  int64_t id = ins->Int(0, 0);
  Status st = Exec(
      "INSERT INTO targets VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,'{}')",
      {P(id), P(t.path), P(t.kind), P(t.size_bytes), P(static_cast<int64_t>(t.logical_block_bytes)),
       P(static_cast<int64_t>(t.physical_block_bytes)), P(t.model), P(t.serial), P(t.firmware)});
  if (!st.ok()) {
    RollbackWrites();
    return st.WithContext("storing the target");
  }
  SSDLAB_RETURN_IF_ERROR(CommitWrites());
  return id;
}

std::string PgStore::RunColumns() const {
  return std::string("id, name, kind, status, created_at, finished_at, config, context, ") +
         (schema_version_ >= 2 ? "fleet" : "''");
}

namespace {
RunRecord ReadRun(PgStore::Rows& q, int i) {
  RunRecord r;
  r.id = q.Int(i, 0);
  r.name = q.Text(i, 1);
  r.kind = q.Text(i, 2);
  r.status = q.Text(i, 3);
  r.created_at = q.Text(i, 4);
  r.finished_at = q.Text(i, 5);
  q.ForgetDamage();  // each row is judged alone
  r.config = q.Json(i, 6, "config");
  r.context = q.Json(i, 7, "context");
  r.fleet = q.Text(i, 8);
  if (!q.damage().empty())
    r.damage = q.damage();
  else if (!r.config.is_object() || !r.context.is_object())
    r.damage = "the config or context is not a JSON object";
  return r;
}
}  // namespace

Result<RunRecord> PgStore::FindRun(const std::string& name) {
  SSDLAB_ASSIGN_OR_RETURN(Rows q,
                          Query("SELECT " + RunColumns() + " FROM runs WHERE name=$1", {P(name)}));
  if (q.size() == 0) return Status::NotFound("no run named '" + name + "' in the database");
  RunRecord r = ReadRun(q, 0);
  if (!r.damage.empty()) return Damaged("record of run '" + name + "'", r.damage);
  return r;
}

std::vector<RunRecord> PgStore::ListRuns() {
  std::vector<RunRecord> out;
  auto q = Query("SELECT " + RunColumns() + " FROM runs ORDER BY id");
  if (!q.ok()) {
    RunRecord r;
    r.name = "?";
    r.damage = "the list of runs cannot be read: " + q.status().message();
    out.push_back(r);
    return out;
  }
  for (int i = 0; i < q->size(); ++i) out.push_back(ReadRun(*q, i));
  return out;
}

Status PgStore::SetRunStatus(int64_t run_id, const std::string& status) {
  return Exec("UPDATE runs SET status=$1, finished_at=$2 WHERE id=$3",
              {P(status), P(status == "running" ? std::string() : NowIso()), P(run_id)});
}

Status PgStore::SetRunFleet(int64_t run_id, const std::string& fleet) {
  return Exec("UPDATE runs SET fleet=$1 WHERE id=$2", {P(fleet), P(run_id)});
}

Status PgStore::SetRunTimes(int64_t run_id, const std::string& created_at,
                            const std::string& finished_at) {
  return Exec("UPDATE runs SET created_at=$1, finished_at=$2 WHERE id=$3",
              {P(created_at), P(finished_at), P(run_id)});
}

Result<TargetInfo> PgStore::LoadTarget(int64_t run_id) {
  SSDLAB_ASSIGN_OR_RETURN(
      Rows q, Query("SELECT path, kind, size_bytes, logical_block_bytes, physical_block_bytes, "
                    "model, serial, firmware FROM targets WHERE run_id=$1",
                    {P(run_id)}));
  if (q.size() == 0) return Status::NotFound("run has no target record");
  TargetInfo t;
  t.path = q.Text(0, 0);
  t.kind = q.Text(0, 1);
  t.size_bytes = static_cast<uint64_t>(q.Int(0, 2));
  t.logical_block_bytes = static_cast<uint32_t>(q.Int(0, 3));
  t.physical_block_bytes = static_cast<uint32_t>(q.Int(0, 4));
  t.model = q.Text(0, 5);
  t.serial = q.Text(0, 6);
  t.firmware = q.Text(0, 7);
  return t;
}

Result<int64_t> PgStore::BeginTest(int64_t run_id, int seq, const std::string& name,
                                   const json& params) {
  SSDLAB_ASSIGN_OR_RETURN(
      Rows ins, Query("INSERT INTO tests(run_id, seq, name, status, params) "
                      "VALUES($1,$2,$3,'running',$4) ON CONFLICT (run_id, name) DO NOTHING "
                      "RETURNING id",
                      {P(run_id), P(seq), P(name), P(params.dump())}));
  if (ins.size() == 1) return ins.Int(0, 0);
  SSDLAB_ASSIGN_OR_RETURN(
      Rows find, Query("SELECT id FROM tests WHERE run_id=$1 AND name=$2", {P(run_id), P(name)}));
  if (find.size() == 0) return Status::Io("database: the test " + name + " vanished");
  return find.Int(0, 0);
}

Result<std::vector<TestRecord>> PgStore::ListTests(int64_t run_id) {
  SSDLAB_ASSIGN_OR_RETURN(
      Rows q, Query("SELECT id, seq, name, status, params, steady_state, results FROM tests "
                    "WHERE run_id=$1 ORDER BY seq",
                    {P(run_id)}));
  std::vector<TestRecord> out;
  for (int i = 0; i < q.size(); ++i) {
    TestRecord t;
    t.id = q.Int(i, 0);
    t.seq = static_cast<int>(q.Int(i, 1));
    t.name = q.Text(i, 2);
    t.status = q.Text(i, 3);
    t.params = q.Json(i, 4, "test parameters");
    t.steady_state = q.Json(i, 5, "steady-state verdict of test " + t.name);
    t.results = q.Json(i, 6, "results of test " + t.name);
    out.push_back(std::move(t));
  }
  if (!q.damage().empty()) return Damaged("tests", q.damage());
  return out;
}

Result<int64_t> PgStore::InsertPhase(int64_t test_id, const StoredPhase& p) {
  const PhaseResult& r = p.result;
  // A phase stored again (a round repeated on resume) replaces the old one with its rows.
  SSDLAB_RETURN_IF_ERROR(Exec("DELETE FROM phases WHERE test_id=$1 AND round=$2 AND cell=$3",
                              {P(test_id), P(p.round), P(p.cell)}));
  SSDLAB_ASSIGN_OR_RETURN(
      Rows ins, Query("INSERT INTO phases(test_id, round, cell, workload, measured_ns, io_errors, "
                      "interrupted, cpu_user_s, cpu_sys_s, counters, notes) "
                      "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING id",
                      {P(test_id), P(p.round), P(p.cell), P(p.workload.dump()), P(r.measured_ns),
                       P(r.io_errors), P(static_cast<int>(r.interrupted)), P(r.cpu_user_s),
                       P(r.cpu_sys_s), P(CountersJson(r).dump()), P(json(r.notes).dump())}));
  const int64_t id = ins.Int(0, 0);
  for (int d = 0; d < kDirections; ++d) {
    const DirectionStats& ds = r.dirs[d];
    if (ds.ios == 0) continue;
    SSDLAB_RETURN_IF_ERROR(
        Exec("INSERT INTO histograms VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9)",
             {P(id), P(d), P(ds.ios), P(ds.bytes), P(ds.latency.min()), P(ds.latency.max()),
              P(ds.latency.sum()), P(ds.latency.sum_sq()), Blob(HistogramWords(ds.latency))})
            .WithContext("storing a histogram"));
  }
  // The time series in statements of up to 1000 rows (one round trip each, not one per row).
  constexpr size_t kCols = 11;
  std::vector<Param> rows;
  auto flush = [&]() -> Status {
    if (rows.empty()) return Status::Ok();
    std::string sql = "INSERT INTO series VALUES";
    for (size_t k = 0; k < rows.size(); k += kCols) {
      sql += k ? ",(" : "(";
      for (size_t c = 0; c < kCols; ++c) sql += (c ? ",$" : "$") + std::to_string(k + c + 1);
      sql += ")";
    }
    Status st = Exec(sql, rows);
    rows.clear();
    return st.WithContext("storing a time series");
  };
  for (size_t i = 0; i < r.intervals.size(); ++i) {
    const IntervalSample& iv = r.intervals[i];
    for (int d = 0; d < kDirections; ++d) {
      const auto& x = iv.dirs[d];
      if (x.ios == 0 && d != 0) continue;
      for (Param v :
           {P(id), P(static_cast<int64_t>(i)), P(iv.t_begin_ns), P(iv.t_end_ns), P(d), P(x.ios),
            P(x.bytes), P(x.lat_sum_ns), P(x.lat_max_ns), P(x.lag_sum_ns), P(x.lag_max_ns)})
        rows.push_back(std::move(v));
      if (rows.size() >= 1000 * kCols) SSDLAB_RETURN_IF_ERROR(flush());
    }
  }
  SSDLAB_RETURN_IF_ERROR(flush());
  return id;
}

Status PgStore::CommitRound(int64_t test_id, int round, const std::vector<StoredPhase>& phases,
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
  Status st = Exec(
      "INSERT INTO rounds VALUES($1,$2,$3,$4) ON CONFLICT (test_id, round) DO UPDATE SET "
      "tracking=EXCLUDED.tracking, committed_at=EXCLUDED.committed_at",
      {P(test_id), P(round), P(tracking.dump()), P(NowIso())});
  if (!st.ok()) return fail(st.WithContext("storing a round"));
  return CommitWrites();
}

Status PgStore::FinishTest(int64_t test_id, const json& steady_state, const json& results) {
  return Exec("UPDATE tests SET status='done', steady_state=$1, results=$2 WHERE id=$3",
              {P(steady_state.dump()), P(results.dump()), P(test_id)});
}

Result<std::vector<StoredRound>> PgStore::LoadRounds(int64_t test_id) {
  SSDLAB_ASSIGN_OR_RETURN(
      Rows q,
      Query("SELECT round, tracking FROM rounds WHERE test_id=$1 ORDER BY round", {P(test_id)}));
  std::vector<StoredRound> out;
  out.reserve(static_cast<size_t>(q.size()));
  for (int i = 0; i < q.size(); ++i)
    out.push_back({static_cast<int>(q.Int(i, 0)), q.Json(i, 1, "round tracking values")});
  if (!q.damage().empty()) return Damaged("rounds", q.damage());
  return out;
}

Result<std::vector<StoredPhase>> PgStore::LoadPhases(int64_t test_id, int round) {
  const std::vector<Param> which = {P(test_id), P(round)};
  SSDLAB_ASSIGN_OR_RETURN(
      Rows q, Query("SELECT id, round, cell, workload, measured_ns, io_errors, interrupted, "
                    "cpu_user_s, cpu_sys_s, counters, notes FROM phases WHERE test_id=$1 AND "
                    "($2<0 OR round=$2) ORDER BY round, id",
                    which));
  std::vector<StoredPhase> out;
  std::map<int64_t, size_t> index;  // phase id -> position in out
  std::string bad;
  for (int i = 0; i < q.size(); ++i) {
    StoredPhase p;
    index[q.Int(i, 0)] = out.size();
    p.round = static_cast<int>(q.Int(i, 1));
    p.cell = q.Text(i, 2);
    p.workload = q.Json(i, 3, "workload of cell " + p.cell);
    PhaseResult& r = p.result;
    r.measured_ns = static_cast<uint64_t>(q.Int(i, 4));
    r.io_errors = static_cast<uint64_t>(q.Int(i, 5));
    r.interrupted = q.Int(i, 6) != 0;
    r.cpu_user_s = q.Real(i, 7);
    r.cpu_sys_s = q.Real(i, 8);
    json counters = q.Json(i, 9, "counters of cell " + p.cell);
    json notes = q.Json(i, 10, "notes of cell " + p.cell);
    if (!ReadCountersAndNotes(counters, notes, r) && bad.empty())
      bad = "the counters or notes of cell " + p.cell + " have the wrong shape";
    out.push_back(std::move(p));
  }
  if (!q.damage().empty()) return Damaged("phases", q.damage());
  if (!bad.empty()) return Damaged("phases", bad);
  // Histograms and series of all those phases, one query each.
  const std::string of_phases =
      " JOIN phases p ON p.id = x.phase_id WHERE p.test_id=$1 AND ($2<0 OR p.round=$2)";
  SSDLAB_ASSIGN_OR_RETURN(
      Rows h, Query("SELECT x.phase_id, x.direction, x.ios, x.bytes, x.min_ns, x.max_ns, "
                    "x.sum_ns, x.sum_sq_ns2, x.buckets FROM histograms x" +
                        of_phases,
                    which));
  for (int i = 0; i < h.size(); ++i) {
    auto at = index.find(h.Int(i, 0));
    int d = static_cast<int>(h.Int(i, 1));
    std::vector<uint64_t> w = h.Words(i, 8);
    if (at == index.end() || d < 0 || d >= kDirections || w.size() % 2)
      return Damaged("phases", "a histogram of test " + std::to_string(test_id) + " is malformed");
    DirectionStats& ds = out[at->second].result.dirs[d];
    ds.ios = static_cast<uint64_t>(h.Int(i, 2));
    ds.bytes = static_cast<uint64_t>(h.Int(i, 3));
    ds.latency = Histogram::FromBuckets(BucketsOfWords(w), static_cast<uint64_t>(h.Int(i, 4)),
                                        static_cast<uint64_t>(h.Int(i, 5)),
                                        static_cast<uint64_t>(h.Int(i, 6)), h.Real(i, 7));
  }
  SSDLAB_ASSIGN_OR_RETURN(
      Rows s, Query(std::string("SELECT x.phase_id, x.idx, x.t_begin_ns, x.t_end_ns, x.direction, "
                                "x.ios, x.bytes, x.lat_sum_ns, x.lat_max_ns, ") +
                        // A read-only open of an older database (not migrated): no lag columns.
                        (schema_version_ >= 4 ? "x.lag_sum_ns, x.lag_max_ns" : "0, 0") +
                        " FROM series x" + of_phases + " ORDER BY x.phase_id, x.idx, x.direction",
                    which));
  for (int i = 0; i < s.size(); ++i) {
    auto at = index.find(s.Int(i, 0));
    int64_t idx = s.Int(i, 1);
    int d = static_cast<int>(s.Int(i, 4));
    if (at == index.end() || idx < 0 || idx > (int64_t{1} << 24) || d < 0 || d >= kDirections)
      return Damaged("phases",
                     "a time-series row of test " + std::to_string(test_id) + " is out of range");
    auto& intervals = out[at->second].result.intervals;
    if (intervals.size() <= static_cast<size_t>(idx)) intervals.resize(idx + 1);
    IntervalSample& iv = intervals[static_cast<size_t>(idx)];
    iv.t_begin_ns = static_cast<uint64_t>(s.Int(i, 2));
    iv.t_end_ns = static_cast<uint64_t>(s.Int(i, 3));
    iv.dirs[d] = {static_cast<uint64_t>(s.Int(i, 5)), static_cast<uint64_t>(s.Int(i, 6)),
                  static_cast<uint64_t>(s.Int(i, 7)), static_cast<uint64_t>(s.Int(i, 8)),
                  static_cast<uint64_t>(s.Int(i, 9)), static_cast<uint64_t>(s.Int(i, 10))};
  }
  return out;
}

}  // namespace ssdlab
