// The PostgreSQL implementation of the results store (store.h), through libpq: the same tables
// and behaviour as the SQLite store, for a lab whose hosts all write into one database. Every
// round is one transaction; run locks are session advisory locks (released when the process,
// hence its connection, dies); the schema is created and migrated under a transaction-level
// advisory lock, so hosts opening the database at once do not race.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "store/store.h"

struct pg_conn;

namespace ssdlab {

class PgStore final : public Store {
 public:
  // Store::Open's contract for a postgresql:// URL. A database with tables but no ssdlab
  // `meta` is another program's and is refused; kReadOnly sessions are read-only transactions.
  static Result<std::unique_ptr<Store>> Open(const std::string& url, Mode mode);
  ~PgStore() override;

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

  // A query's parameter: text, or binary bytes (bytea).
  struct Param {
    std::string value;
    bool binary = false;
  };
  class Rows;  // a query's result (pg_store.cc)

 private:
  PgStore(pg_conn* conn, std::string where) : conn_(conn), where_(std::move(where)) {}
  Result<Rows> Query(const std::string& sql, const std::vector<Param>& params = {});
  Status Exec(const std::string& sql, const std::vector<Param>& params = {});
  Status Migrate();
  Result<int64_t> InsertPhase(int64_t test_id, const StoredPhase& p);
  std::string RunColumns() const;
  int writes_depth_ = 0;  // open BeginWrites (the outermost a transaction, the others savepoints)
  pg_conn* conn_;
  std::string where_;          // "--db URL" without a password, for messages
  int schema_version_ = 0;     // of the database as opened (after migrations when writing)
  std::string last_sqlstate_;  // of the last failed query ("23505": a unique violation)
};

}  // namespace ssdlab
