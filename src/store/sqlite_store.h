// The SQLite implementation of the results store (store.h): one file, WAL journal, run locks
// as open-file-description locks on bytes of the file that SQLite never locks.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

struct sqlite3;

namespace ssdlab {

class SqliteStore final : public Store {
 public:
  // Store::Open's contract for a file path.
  static Result<std::unique_ptr<Store>> Open(const std::string& path, Mode mode);
  ~SqliteStore() override;

  Result<RunLock> LockRun(int64_t run_id, const std::string& run_name) override;
  Status BeginWrites() override;
  Status CommitWrites() override;
  void RollbackWrites() override;
  Result<int64_t> CreateRun(const std::string& name, const std::string& kind,
                            const nlohmann::json& config, const nlohmann::json& context,
                            const TargetInfo& target) override;
  Result<RunRecord> FindRun(const std::string& name) override;
  std::vector<RunRecord> ListRuns() override;
  Status SetRunStatus(int64_t run_id, const std::string& status) override;
  Status SetRunFleet(int64_t run_id, const std::string& fleet) override;
  Status SetRunTimes(int64_t run_id, const std::string& created_at,
                     const std::string& finished_at) override;
  Result<TargetInfo> LoadTarget(int64_t run_id) override;

  Result<int64_t> BeginTest(int64_t run_id, int seq, const std::string& name,
                            const nlohmann::json& params) override;
  Result<std::vector<TestRecord>> ListTests(int64_t run_id) override;
  Status CommitRound(int64_t test_id, int round, const std::vector<StoredPhase>& phases,
                     const nlohmann::json& tracking) override;
  Status FinishTest(int64_t test_id, const nlohmann::json& steady_state,
                    const nlohmann::json& results) override;
  Result<std::vector<StoredRound>> LoadRounds(int64_t test_id) override;
  Result<std::vector<StoredPhase>> LoadPhases(int64_t test_id, int round = -1) override;

 private:
  SqliteStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const std::string& sql);
  Status Migrate();
  Result<int64_t> InsertPhase(int64_t test_id, const StoredPhase& p);
  std::string RunColumns() const;
  int writes_depth_ = 0;  // open BeginWrites (the outermost a transaction, the others savepoints)
  sqlite3* db_;
  std::string path_;
  int lock_fd_ = -1;        // the database file, for run locks
  int schema_version_ = 0;  // of the file as opened (after migrations when writing)
};

}  // namespace ssdlab
