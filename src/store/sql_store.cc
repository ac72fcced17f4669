#include "store/sql_store.h"

#include <map>

#include "stats/histogram_codec.h"
#include "workload/spec.h"

namespace ssdlab {

using nlohmann::json;

namespace {

// The column's JSON: "" reads as null; text that does not parse is recorded in `damage` (the
// first such column of the row) and reads as null.
json JsonOf(const SqlRow& row, int col, const std::string& name, std::string& damage) {
  std::string t = row.Text(col);
  if (t.empty()) return json();
  json j = json::parse(t, nullptr, false);
  if (j.is_discarded()) {
    if (damage.empty()) damage = "the " + name + " is not valid JSON";
    return json();
  }
  return j;
}

uint64_t U64(const SqlRow& row, int col) { return static_cast<uint64_t>(row.Int(col)); }
int64_t I64(uint64_t v) { return static_cast<int64_t>(v); }

RunRecord ReadRun(const SqlRow& q) {
  RunRecord r;
  r.id = q.Int(0);
  r.name = q.Text(1);
  r.kind = q.Text(2);
  r.status = q.Text(3);
  r.created_at = q.Text(4);
  r.finished_at = q.Text(5);
  r.config = JsonOf(q, 6, "config", r.damage);
  r.context = JsonOf(q, 7, "context", r.damage);
  r.fleet = q.Text(8);
  if (r.damage.empty() && (!r.config.is_object() || !r.context.is_object()))
    r.damage = "the config or context is not a JSON object";
  return r;
}

}  // namespace

Status SqlStore::Damaged(const std::string& what, const std::string& detail) const {
  return Status::Io("damaged " + what + " in the database: " + detail + dialect_.damage_hint);
}

Status SqlStore::Run(const std::string& what, const std::string& sql,
                     const std::vector<SqlParam>& params) {
  return Each(what, sql, params, [](const SqlRow&) {});
}

Result<int64_t> SqlStore::Id(const std::string& what, const std::string& sql,
                             const std::vector<SqlParam>& params) {
  int64_t id = -1;
  SSDLAB_RETURN_IF_ERROR(Each(what, sql, params, [&](const SqlRow& r) { id = r.Int(0); }));
  if (id < 0) return Status::Io(what + ": the database returned no id");
  return id;
}

std::string SqlStore::Ddl(const char* sql) const {
  static constexpr const char* kNames[] = {"{serial}", "{int64}", "{real}", "{bytes}"};
  std::string out = sql;
  for (size_t i = 0; i < std::size(kNames); ++i) {
    const std::string_view name = kNames[i];
    for (size_t at; (at = out.find(name)) != std::string::npos;)
      out.replace(at, name.size(), dialect_.types[i]);
  }
  return out;
}

Status SqlStore::Migrate(const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(Exec(dialect_.begin_schema_change));
  auto fail = [&](const Status& st) {
    Exec("ROLLBACK").ok();
    return st;
  };
  if (Status st = Exec(Ddl(kSchemaV1)); !st.ok()) return fail(st);
  if (Status st = Exec("INSERT INTO meta VALUES('app','ssdlab'),('schema_version','1') ON "
                       "CONFLICT DO NOTHING");
      !st.ok())
    return fail(st);
  std::string text;
  if (Status st = Each("the schema version", "SELECT value FROM meta WHERE key='schema_version'",
                       {}, [&](const SqlRow& r) { text = r.Text(0); });
      !st.ok())
    return fail(st);
  int version = static_cast<int>(std::strtol(text.c_str(), nullptr, 10));
  if (version > kStoreSchemaVersion) return fail(Status::Invalid(NewerSchema(where, version)));
  for (const SchemaMigration& m : kMigrations) {
    if (m.version <= version) continue;
    if (Status st = Exec(Ddl(m.sql)); !st.ok()) return fail(st);
    version = m.version;
  }
  if (Status st =
          Run("updating the schema version", "UPDATE meta SET value=$1 WHERE key='schema_version'",
              {std::to_string(version)});
      !st.ok())
    return fail(st);
  schema_version_ = version;
  return CommitTransaction();
}

Status SqlStore::BeginWrites() {
  SSDLAB_RETURN_IF_ERROR(
      Exec(writes_depth_ == 0 ? "BEGIN" : "SAVEPOINT ssdlab_" + std::to_string(writes_depth_)));
  ++writes_depth_;
  return Status::Ok();
}

Status SqlStore::CommitWrites() {
  --writes_depth_;
  if (writes_depth_ > 0) return Exec("RELEASE SAVEPOINT ssdlab_" + std::to_string(writes_depth_));
  return CommitTransaction();
}

void SqlStore::RollbackWrites() {
  --writes_depth_;
  // The database may have rolled the whole transaction back itself (SQLite after a full disk or
  // an I/O error); then there is nothing left to roll back.
  if (!InTransaction()) return;
  const std::string savepoint = "SAVEPOINT ssdlab_" + std::to_string(writes_depth_);
  if (writes_depth_ > 0)
    Exec("ROLLBACK TO " + savepoint + "; RELEASE " + savepoint).ok();
  else
    Exec("ROLLBACK").ok();
}

Result<int64_t> SqlStore::CreateRun(const std::string& name, const std::string& kind,
                                    const json& config, const json& context, const TargetInfo& t) {
  SSDLAB_RETURN_IF_ERROR(BeginWrites());
  auto id = Id("storing the run",
               "INSERT INTO runs(name, kind, status, created_at, config, context) "
               "VALUES($1,$2,'running',$3,$4,$5) RETURNING id",
               {name, kind, NowIso(), config.dump(), context.dump()});
  if (!id.ok()) {
    const bool duplicate = LastFailureWasDuplicate();
    RollbackWrites();
    if (duplicate)
      return Status::Invalid("a run named '" + name +
                             "' already exists; pick another --run name or --resume it");
    return id.status();
  }
  Status st =
      Run("storing the target", "INSERT INTO targets VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,'{}')",
          {*id, t.path, t.kind, I64(t.size_bytes), int64_t{t.logical_block_bytes},
           int64_t{t.physical_block_bytes}, t.model, t.serial, t.firmware});
  if (!st.ok()) {
    RollbackWrites();
    return st;
  }
  SSDLAB_RETURN_IF_ERROR(CommitWrites());
  return *id;
}

std::string SqlStore::RunColumns() const {
  // A read-only open of a version-1 database (not migrated) has no fleet column.
  return std::string("id, name, kind, status, created_at, finished_at, config, context, ") +
         (schema_version_ >= 2 ? "fleet" : "''");
}

Result<RunRecord> SqlStore::FindRun(const std::string& name) {
  const std::string what = "record of run '" + name + "'";
  std::vector<RunRecord> found;
  SSDLAB_RETURN_IF_ERROR(Each(what, "SELECT " + RunColumns() + " FROM runs WHERE name=$1", {name},
                              [&](const SqlRow& q) { found.push_back(ReadRun(q)); }));
  if (found.empty()) return Status::NotFound("no run named '" + name + "' in the database");
  if (!found[0].damage.empty()) return Damaged(what, found[0].damage);
  return std::move(found[0]);
}

std::vector<RunRecord> SqlStore::ListRuns() {
  std::vector<RunRecord> out;
  Status st = Each("the list of runs", "SELECT " + RunColumns() + " FROM runs ORDER BY id", {},
                   [&](const SqlRow& q) { out.push_back(ReadRun(q)); });
  if (!st.ok()) {
    RunRecord r;
    r.name = "?";
    r.damage = "the list of runs stops here: " + st.message();
    out.push_back(r);
  }
  return out;
}

Status SqlStore::SetRunStatus(int64_t run_id, const std::string& status) {
  return Run("updating the run", "UPDATE runs SET status=$1, finished_at=$2 WHERE id=$3",
             {status, status == "running" ? std::string() : NowIso(), run_id});
}

Status SqlStore::SetRunFleet(int64_t run_id, const std::string& fleet) {
  return Run("grouping the run under its fleet", "UPDATE runs SET fleet=$1 WHERE id=$2",
             {fleet, run_id});
}

Status SqlStore::SetRunTimes(int64_t run_id, const std::string& created_at,
                             const std::string& finished_at) {
  return Run("setting the run's times", "UPDATE runs SET created_at=$1, finished_at=$2 WHERE id=$3",
             {created_at, finished_at, run_id});
}

Result<TargetInfo> SqlStore::LoadTarget(int64_t run_id) {
  std::vector<TargetInfo> found;
  SSDLAB_RETURN_IF_ERROR(
      Each("target",
           "SELECT path, kind, size_bytes, logical_block_bytes, physical_block_bytes, "
           "model, serial, firmware FROM targets WHERE run_id=$1",
           {run_id}, [&](const SqlRow& q) {
             TargetInfo& t = found.emplace_back();
             t.path = q.Text(0);
             t.kind = q.Text(1);
             t.size_bytes = U64(q, 2);
             t.logical_block_bytes = static_cast<uint32_t>(q.Int(3));
             t.physical_block_bytes = static_cast<uint32_t>(q.Int(4));
             t.model = q.Text(5);
             t.serial = q.Text(6);
             t.firmware = q.Text(7);
           }));
  if (found.empty()) return Status::NotFound("run has no target record");
  return found[0];
}

Result<int64_t> SqlStore::BeginTest(int64_t run_id, int seq, const std::string& name,
                                    const json& params) {
  int64_t id = -1;
  auto take = [&](const SqlRow& r) { id = r.Int(0); };
  // A test begun before (a resumed run) keeps its row.
  SSDLAB_RETURN_IF_ERROR(Each("storing a test",
                              "INSERT INTO tests(run_id, seq, name, status, params) "
                              "VALUES($1,$2,$3,'running',$4) ON CONFLICT (run_id, name) DO NOTHING "
                              "RETURNING id",
                              {run_id, int64_t{seq}, name, params.dump()}, take));
  if (id < 0)
    SSDLAB_RETURN_IF_ERROR(
        Each("tests", "SELECT id FROM tests WHERE run_id=$1 AND name=$2", {run_id, name}, take));
  if (id < 0) return Status::Io("database: the test " + name + " vanished");
  return id;
}

Result<std::vector<TestRecord>> SqlStore::ListTests(int64_t run_id) {
  std::vector<TestRecord> out;
  std::string damage;
  SSDLAB_RETURN_IF_ERROR(
      Each("tests",
           "SELECT id, seq, name, status, params, steady_state, results FROM tests "
           "WHERE run_id=$1 ORDER BY seq",
           {run_id}, [&](const SqlRow& q) {
             TestRecord& t = out.emplace_back();
             t.id = q.Int(0);
             t.seq = static_cast<int>(q.Int(1));
             t.name = q.Text(2);
             t.status = q.Text(3);
             t.params = JsonOf(q, 4, "test parameters", damage);
             t.steady_state = JsonOf(q, 5, "steady-state verdict of test " + t.name, damage);
             t.results = JsonOf(q, 6, "results of test " + t.name, damage);
           }));
  if (!damage.empty()) return Damaged("tests", damage);
  return out;
}

Result<int64_t> SqlStore::InsertPhase(int64_t test_id, const StoredPhase& p) {
  const PhaseResult& r = p.result;
  // A phase stored again (a round repeated on resume) replaces the old one with its rows.
  const std::vector<SqlParam> which = {test_id, int64_t{p.round}, p.cell};
  const std::string of_phase = " WHERE test_id=$1 AND round=$2 AND cell=$3";
  for (const char* table : {"histograms", "series"})
    SSDLAB_RETURN_IF_ERROR(Run("replacing a phase",
                               std::string("DELETE FROM ") + table +
                                   " WHERE phase_id IN (SELECT id FROM phases" + of_phase + ")",
                               which));
  SSDLAB_RETURN_IF_ERROR(Run("replacing a phase", "DELETE FROM phases" + of_phase, which));
  SSDLAB_ASSIGN_OR_RETURN(
      int64_t id, Id("storing a phase",
                     "INSERT INTO phases(test_id, round, cell, workload, measured_ns, io_errors, "
                     "interrupted, cpu_user_s, cpu_sys_s, counters, notes) "
                     "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING id",
                     {test_id, int64_t{p.round}, p.cell, p.workload.dump(), I64(r.measured_ns),
                      I64(r.io_errors), int64_t{r.interrupted}, r.cpu_user_s, r.cpu_sys_s,
                      CountersJson(r).dump(), json(r.notes).dump()}));
  for (int d = 0; d < kDirections; ++d) {
    const DirectionStats& ds = r.dirs[d];
    if (ds.ios == 0) continue;
    SSDLAB_RETURN_IF_ERROR(Run(
        "storing a histogram", "INSERT INTO histograms VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9)",
        {id, int64_t{d}, I64(ds.ios), I64(ds.bytes), I64(ds.latency.min()), I64(ds.latency.max()),
         I64(ds.latency.sum()), ds.latency.sum_sq(), SqlBytes{HistogramWords(ds.latency)}}));
  }
  // The time series in statements of up to 1000 rows (one round trip each, not one per row).
  constexpr size_t kCols = 11;
  std::vector<SqlParam> rows;
  auto flush = [&]() -> Status {
    if (rows.empty()) return Status::Ok();
    std::string sql = "INSERT INTO series VALUES";
    for (size_t k = 0; k < rows.size(); k += kCols) {
      sql += k ? ",(" : "(";
      for (size_t c = 0; c < kCols; ++c) sql += (c ? ",$" : "$") + std::to_string(k + c + 1);
      sql += ")";
    }
    Status st = Run("storing a time series", sql, rows);
    rows.clear();
    return st;
  };
  for (size_t i = 0; i < r.intervals.size(); ++i) {
    const IntervalSample& iv = r.intervals[i];
    for (int d = 0; d < kDirections; ++d) {
      const auto& x = iv.dirs[d];
      if (x.ios == 0 && d != 0) continue;
      for (SqlParam v :
           {SqlParam{id}, SqlParam{I64(i)}, SqlParam{I64(iv.t_begin_ns)},
            SqlParam{I64(iv.t_end_ns)}, SqlParam{int64_t{d}}, SqlParam{I64(x.ios)},
            SqlParam{I64(x.bytes)}, SqlParam{I64(x.lat_sum_ns)}, SqlParam{I64(x.lat_max_ns)},
            SqlParam{I64(x.lag_sum_ns)}, SqlParam{I64(x.lag_max_ns)}})
        rows.push_back(std::move(v));
      if (rows.size() >= 1000 * kCols) SSDLAB_RETURN_IF_ERROR(flush());
    }
  }
  SSDLAB_RETURN_IF_ERROR(flush());
  return id;
}

Status SqlStore::CommitRound(int64_t test_id, int round, const std::vector<StoredPhase>& phases,
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
  Status st = Run("storing a round",
                  "INSERT INTO rounds VALUES($1,$2,$3,$4) ON CONFLICT (test_id, round) DO UPDATE "
                  "SET tracking=excluded.tracking, committed_at=excluded.committed_at",
                  {test_id, int64_t{round}, tracking.dump(), NowIso()});
  if (!st.ok()) return fail(st);
  return CommitWrites();
}

Status SqlStore::FinishTest(int64_t test_id, const json& steady_state, const json& results) {
  return Run("finishing a test",
             "UPDATE tests SET status='done', steady_state=$1, results=$2 WHERE id=$3",
             {steady_state.dump(), results.dump(), test_id});
}

Result<std::vector<StoredRound>> SqlStore::LoadRounds(int64_t test_id) {
  std::vector<StoredRound> out;
  std::string damage;
  SSDLAB_RETURN_IF_ERROR(Each(
      "rounds", "SELECT round, tracking FROM rounds WHERE test_id=$1 ORDER BY round", {test_id},
      [&](const SqlRow& q) {
        out.push_back({static_cast<int>(q.Int(0)), JsonOf(q, 1, "round tracking values", damage)});
      }));
  if (!damage.empty()) return Damaged("rounds", damage);
  return out;
}

Result<std::vector<StoredPhase>> SqlStore::LoadPhases(int64_t test_id, int round) {
  const std::vector<SqlParam> which = {test_id, int64_t{round}};
  std::vector<StoredPhase> out;
  std::map<int64_t, size_t> index;  // phase id -> position in out
  std::string damage, bad;
  SSDLAB_RETURN_IF_ERROR(
      Each("phases",
           "SELECT id, round, cell, workload, measured_ns, io_errors, interrupted, cpu_user_s, "
           "cpu_sys_s, counters, notes FROM phases WHERE test_id=$1 AND ($2<0 OR round=$2) "
           "ORDER BY round, id",
           which, [&](const SqlRow& q) {
             index[q.Int(0)] = out.size();
             StoredPhase& p = out.emplace_back();
             p.round = static_cast<int>(q.Int(1));
             p.cell = q.Text(2);
             p.workload = JsonOf(q, 3, "workload of cell " + p.cell, damage);
             PhaseResult& r = p.result;
             r.measured_ns = U64(q, 4);
             r.io_errors = U64(q, 5);
             r.interrupted = q.Int(6) != 0;
             r.cpu_user_s = q.Real(7);
             r.cpu_sys_s = q.Real(8);
             json counters = JsonOf(q, 9, "counters of cell " + p.cell, damage);
             json notes = JsonOf(q, 10, "notes of cell " + p.cell, damage);
             if (!ReadCountersAndNotes(counters, notes, r) && bad.empty())
               bad = "the counters or notes of cell " + p.cell + " have the wrong shape";
           }));
  if (!damage.empty()) return Damaged("phases", damage);
  if (!bad.empty()) return Damaged("phases", bad);
  // The histograms and series of all those phases, one query each.
  const std::string of_phases =
      " JOIN phases p ON p.id = x.phase_id WHERE p.test_id=$1 AND ($2<0 OR p.round=$2)";
  SSDLAB_RETURN_IF_ERROR(Each(
      "histograms",
      "SELECT x.phase_id, x.direction, x.ios, x.bytes, x.min_ns, x.max_ns, x.sum_ns, "
      "x.sum_sq_ns2, x.buckets FROM histograms x" +
          of_phases,
      which, [&](const SqlRow& h) {
        auto at = index.find(h.Int(0));
        const int d = static_cast<int>(h.Int(1));
        std::vector<uint64_t> w = h.Words(8);
        if (at == index.end() || d < 0 || d >= kDirections || w.size() % 2) {
          if (bad.empty())
            bad = "a histogram of cell " + (at == index.end() ? "?" : out[at->second].cell) +
                  " is malformed";
          return;
        }
        DirectionStats& ds = out[at->second].result.dirs[d];
        ds.ios = U64(h, 2);
        ds.bytes = U64(h, 3);
        ds.latency =
            Histogram::FromBuckets(BucketsOfWords(w), U64(h, 4), U64(h, 5), U64(h, 6), h.Real(7));
      }));
  if (!bad.empty()) return Damaged("phases", bad);
  SSDLAB_RETURN_IF_ERROR(Each(
      "time series",
      std::string("SELECT x.phase_id, x.idx, x.t_begin_ns, x.t_end_ns, x.direction, x.ios, "
                  "x.bytes, x.lat_sum_ns, x.lat_max_ns, ") +
          // A read-only open of an older database (not migrated) has no lag columns.
          (schema_version_ >= 4 ? "x.lag_sum_ns, x.lag_max_ns" : "0, 0") + " FROM series x" +
          of_phases + " ORDER BY x.phase_id, x.idx, x.direction",
      which, [&](const SqlRow& s) {
        auto at = index.find(s.Int(0));
        const int64_t idx = s.Int(1);
        const int d = static_cast<int>(s.Int(4));
        if (at == index.end() || idx < 0 || idx > (int64_t{1} << 24) || d < 0 || d >= kDirections) {
          if (bad.empty())
            bad = "a time-series row of test " + std::to_string(test_id) + " is out of range";
          return;
        }
        auto& intervals = out[at->second].result.intervals;
        if (intervals.size() <= static_cast<size_t>(idx))
          intervals.resize(static_cast<size_t>(idx) + 1);
        IntervalSample& iv = intervals[static_cast<size_t>(idx)];
        iv.t_begin_ns = U64(s, 2);
        iv.t_end_ns = U64(s, 3);
        iv.dirs[d] = {U64(s, 5), U64(s, 6), U64(s, 7), U64(s, 8), U64(s, 9), U64(s, 10)};
      }));
  if (!bad.empty()) return Damaged("phases", bad);
  return out;
}

}  // namespace ssdlab
