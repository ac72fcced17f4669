// The results database: SQLite (one file) or PostgreSQL (shared by a lab's hosts), every round
// committed as it ends so that a killed run loses at most the round in progress.
//
// Tables (schema version 4; `meta` marks the file as ssdlab's):
//   meta(key, value)                       app = "ssdlab", schema_version
//   runs(id, name, kind, status, created_at, finished_at, config, context, fleet)
//   targets(run_id, path, kind, size_bytes, logical_block_bytes, physical_block_bytes,
//           model, serial, firmware, details)
//   tests(id, run_id, seq, name, status, params, steady_state, results)
//   rounds(test_id, round, tracking, committed_at)
//   phases(id, test_id, round, cell, workload, measured_ns, io_errors, interrupted, counters)
//   histograms(phase_id, direction, ios, bytes, min_ns, max_ns, sum_ns, sum_sq_ns2, buckets)
//   series(phase_id, idx, t_begin_ns, t_end_ns, direction, ios, bytes, lat_sum_ns, lat_max_ns,
//          lag_sum_ns, lag_max_ns)
// JSON columns hold nlohmann::json text. Histograms are stored whole (non-empty buckets as
// little-endian uint64 pairs) so percentiles of any window can be recomputed.
//
// A stored JSON column that does not parse, or a row whose values are out of range, is
// "damaged": reads return kIoError naming the run (or test) and the column, never an empty or
// partial document.
//
// Not thread-safe: one Store per thread (one PostgreSQL connection per Store).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/target_info.h"
#include "suite/journal.h"

namespace ssdlab {

// Schema versions (migrations are applied on open by a writing mode; a client meeting a newer
// schema refuses it): 1 the tables above; 2 adds runs.fleet; 3 and 4 add series.lag_sum_ns and
// series.lag_max_ns (a replay's submission lag per interval, IntervalSample::Dir; 0 in rows
// stored before them, and in every phase without a timed request source).
inline constexpr int kStoreSchemaVersion = 4;

struct RunRecord {
  int64_t id = 0;
  std::string name;
  std::string kind;    // "pts", "profile", ...
  std::string status;  // "running", "done", "interrupted", "failed"
  std::string created_at;
  std::string finished_at;
  nlohmann::json config;
  nlohmann::json context;
  std::string fleet;   // "" unless the run is one drive of a fleet run
  std::string damage;  // ListRuns only: what of the record is damaged ("" when sound)
};

// Held while a process writes a run (RunPts, a resume): released when destroyed or when the
// process dies, so a killed run never stays locked. SQLite: an open-file-description lock on a
// byte of the database file that SQLite does not use; PostgreSQL: a session advisory lock.
class RunLock {
 public:
  explicit RunLock(std::function<void()> release) : release_(std::move(release)) {}
  RunLock(RunLock&& o) noexcept : release_(std::move(o.release_)) { o.release_ = nullptr; }
  RunLock& operator=(RunLock&&) = delete;
  ~RunLock() {
    if (release_) release_();
  }

 private:
  std::function<void()> release_;  // the Store outlives its locks
};

// The results store: one interface, written and read once over SQL (sql_store.h) through two
// drivers with the same schema and behaviour (sqlite_store.h, the embedded default;
// pg_store.h, a shared PostgreSQL database).
class Store : public RunJournal {
 public:
  enum class Mode {
    kCreate,    // open, creating the file (or the schema) if missing, migrating an older schema
    kExisting,  // open for writing; the database must exist (resume)
    kReadOnly,  // read only (ls, show, report, export): nothing is ever written
  };
  // `where` is a file path (SQLite) or a URL postgresql://user@host:port/dbname (or any libpq
  // connection URI: postgres://, ?host=/socket/dir). Refuses (kInvalidArgument, naming it) a
  // file that is not an SQLite database, a database of another program, a damaged database,
  // one with a newer schema than this client's, a read-only file or directory for a mode that
  // writes (kPermission), and a missing file or schema for kExisting and kReadOnly
  // (kNotFound); an unreachable server is kIoError.
  static Result<std::unique_ptr<Store>> Open(const std::string& where, Mode mode = Mode::kCreate);
  // True when `where` names a PostgreSQL database rather than a file.
  static bool IsUrl(const std::string& where);
  ~Store() override = default;

  // Takes the run's lock; kPermission when another process holds it.
  virtual Result<RunLock> LockRun(int64_t run_id, const std::string& run_name) = 0;

  // Every write between BeginWrites and CommitWrites is one transaction: all of it is stored,
  // or (RollbackWrites, a failure, the process killed) none of it. Writes that are transactions
  // of their own (CreateRun, CommitRound) become part of it; pairs nest (an inner pair is a
  // savepoint). What copies and imports a whole run with (Store::Transaction).
  virtual Status BeginWrites() = 0;
  virtual Status CommitWrites() = 0;
  virtual void RollbackWrites() = 0;
  class Transaction;

  virtual Result<int64_t> CreateRun(const std::string& name, const std::string& kind,
                                    const nlohmann::json& config, const nlohmann::json& context,
                                    const TargetInfo& target) = 0;
  // NotFound when there is no run of that name; kIoError when its record is damaged.
  virtual Result<RunRecord> FindRun(const std::string& name) = 0;
  // Every run; a damaged record is listed with `damage` set.
  virtual std::vector<RunRecord> ListRuns() = 0;
  virtual Status SetRunStatus(int64_t run_id, const std::string& status) = 0;
  // Groups the run under a fleet (one run per drive of an MPI fleet run; RunRecord::fleet).
  virtual Status SetRunFleet(int64_t run_id, const std::string& fleet) = 0;
  // Sets the run's start and end times (ISO 8601 as stored; what a copy keeps of the original,
  // where CreateRun and SetRunStatus stamp the time of the call).
  virtual Status SetRunTimes(int64_t run_id, const std::string& created_at,
                             const std::string& finished_at) = 0;
  virtual Result<TargetInfo> LoadTarget(int64_t run_id) = 0;

  // The whole run as one JSON document (schema_version 1): `context` (the stored context plus
  // run, status, created_at, finished_at, config, and fleet when grouped) and `tests[]` with
  // name, status, steady_state, rounds (round, tracking) and results. What `show --json`,
  // `--json`, the report and the exports read. NotFound for no such run; kIoError naming the
  // run when it is damaged.
  Result<nlohmann::json> RunJson(const std::string& run_name);
};

// BeginWrites .. CommitWrites of a store as a scope: rolled back when destroyed uncommitted
// (an early return on an error). The Store outlives it.
class Store::Transaction {
 public:
  static Result<Transaction> Begin(Store& store);
  Transaction(Transaction&& o) noexcept : store_(o.store_) { o.store_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction() {
    if (store_) store_->RollbackWrites();
  }
  // Stores everything written since Begin.
  Status Commit();

 private:
  explicit Transaction(Store* s) : store_(s) {}
  Store* store_;  // null once committed or rolled back
};

}  // namespace ssdlab
