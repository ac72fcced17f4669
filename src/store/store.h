// The results database: SQLite, one file, every round committed as it ends so that a killed
// run loses at most the round in progress.
//
// Tables (schema version 1; `meta` marks the file as ssdlab's):
//   meta(key, value)                       app = "ssdlab", schema_version
//   runs(id, name, kind, status, created_at, finished_at, config, context)
//   targets(run_id, path, kind, size_bytes, logical_block_bytes, physical_block_bytes,
//           model, serial, firmware, details)
//   tests(id, run_id, seq, name, status, params, steady_state, results)
//   rounds(test_id, round, tracking, committed_at)
//   phases(id, test_id, round, cell, workload, measured_ns, io_errors, interrupted, counters)
//   histograms(phase_id, direction, ios, bytes, min_ns, max_ns, sum_ns, sum_sq_ns2, buckets)
//   series(phase_id, idx, t_begin_ns, t_end_ns, direction, ios, bytes, lat_sum_ns, lat_max_ns)
// JSON columns hold nlohmann::json text. Histograms are stored whole (non-empty buckets as
// little-endian uint64 pairs) so percentiles of any window can be recomputed.
//
// A stored JSON column that does not parse, or a row whose values are out of range, is
// "damaged": reads return kIoError naming the run (or test) and the column, never an empty or
// partial document.
//
// Not thread-safe: one Store per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/target_info.h"
#include "suite/journal.h"

struct sqlite3;

namespace ssdlab {

inline constexpr int kStoreSchemaVersion = 1;

struct RunRecord {
  int64_t id = 0;
  std::string name;
  std::string kind;    // "pts", "profile", ...
  std::string status;  // "running", "done", "interrupted", "failed"
  std::string created_at;
  std::string finished_at;
  nlohmann::json config;
  nlohmann::json context;
  std::string damage;  // ListRuns only: what of the record is damaged ("" when sound)
};

// Held while a process writes a run (RunPts, a resume): released when destroyed or when the
// process dies (an open-file-description lock on a byte of the database file that SQLite does
// not use), so a killed run never stays locked.
class RunLock {
 public:
  RunLock(RunLock&& o) noexcept : fd_(o.fd_), lock_id_(o.lock_id_) { o.fd_ = -1; }
  RunLock& operator=(RunLock&&) = delete;
  ~RunLock();

 private:
  friend class Store;
  RunLock(int fd, int64_t id) : fd_(fd), lock_id_(id) {}
  int fd_;  // the Store's descriptor of the database file (the Store outlives its locks)
  int64_t lock_id_;
};

class Store : public RunJournal {
 public:
  enum class Mode {
    kCreate,    // open, creating the file and the schema if missing
    kExisting,  // open for writing; the database must exist (resume)
    kReadOnly,  // read only (ls, show, report, export): nothing is ever written to the file
  };
  // Refuses (kInvalidArgument, naming the path) a file that is not an SQLite database, an
  // SQLite database of another program, a damaged database, one with a newer schema, a
  // read-only file or directory for a mode that writes (kPermission), and a missing file for
  // kExisting and kReadOnly (kNotFound).
  static Result<std::unique_ptr<Store>> Open(const std::string& path, Mode mode = Mode::kCreate);
  ~Store() override;

  // Takes the run's lock; kPermission when another process holds it.
  Result<RunLock> LockRun(int64_t run_id, const std::string& run_name);

  Result<int64_t> CreateRun(const std::string& name, const std::string& kind,
                            const nlohmann::json& config, const nlohmann::json& context,
                            const TargetInfo& target);
  // NotFound when there is no run of that name; kIoError when its record is damaged.
  Result<RunRecord> FindRun(const std::string& name);
  // Every run; a damaged record is listed with `damage` set.
  std::vector<RunRecord> ListRuns();
  Status SetRunStatus(int64_t run_id, const std::string& status);
  Result<TargetInfo> LoadTarget(int64_t run_id);

  // RunJournal (suite/journal.h): each round is one transaction.
  Result<int64_t> BeginTest(int64_t run_id, int seq, const std::string& name,
                            const nlohmann::json& params) override;
  Result<std::vector<TestRecord>> ListTests(int64_t run_id) override;
  Status CommitRound(int64_t test_id, int round, const std::vector<StoredPhase>& phases,
                     const nlohmann::json& tracking) override;
  Status FinishTest(int64_t test_id, const nlohmann::json& steady_state,
                    const nlohmann::json& results) override;
  Result<std::vector<StoredRound>> LoadRounds(int64_t test_id) override;
  Result<std::vector<StoredPhase>> LoadPhases(int64_t test_id, int round = -1) override;

  // The whole run as one JSON document (schema_version 1): `context` (the stored context plus
  // run, status, created_at, finished_at, config) and `tests[]` with name, status,
  // steady_state, rounds (round, tracking) and results. What `show --json`, `--json`, the
  // report and the exports read. NotFound for no such run; kIoError naming the run when it is
  // damaged.
  Result<nlohmann::json> RunJson(const std::string& run_name);

 private:
  Store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const std::string& sql);
  Result<int64_t> InsertPhase(int64_t test_id, const StoredPhase& p);
  sqlite3* db_;
  std::string path_;
  int lock_fd_ = -1;  // the database file, for run locks
};

}  // namespace ssdlab
