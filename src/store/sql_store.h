// The results store's one writer and reader over SQL, whatever the database: every statement
// of store.h's contract is written here once, in the SQL both dialects accept (`$1` parameters,
// `INSERT ... RETURNING id`, `ON CONFLICT` upserts, savepoints). A driver (sqlite_store.h,
// pg_store.h) adds only what differs: opening and refusing, the schema's DDL, run locks, and
// running one statement (SqlStore::Each). Private to store/.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "store/schema.h"
#include "store/store.h"

namespace ssdlab {

// A statement's parameter: an integer, a real (stored exactly), a text, or bytes (histogram
// buckets: little-endian uint64 words, SQLite's BLOB, PostgreSQL's bytea).
struct SqlBytes {
  std::vector<uint64_t> words;
};
using SqlParam = std::variant<int64_t, double, std::string, SqlBytes>;

// One result row as the driver gives it; valid only inside the callback of SqlStore::Each.
class SqlRow {
 public:
  virtual int64_t Int(int col) const = 0;
  virtual double Real(int col) const = 0;
  virtual std::string Text(int col) const = 0;  // "" for NULL
  virtual std::vector<uint64_t> Words(int col) const = 0;

 protected:
  ~SqlRow() = default;
};

// What of SQL differs between the databases, as data.
struct SqlDialect {
  // The type names of the schema's notation (schema.h): {serial}, {int64}, {real}, {bytes}.
  const char* types[4];
  const char* begin_schema_change;  // a transaction that excludes other migrators
  const char* damage_hint;          // appended to "damaged X in the database: ..."
};

class SqlStore : public Store {
 public:
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

 protected:
  explicit SqlStore(const SqlDialect& dialect) : dialect_(dialect) {}

  // --- The driver ---
  // Runs one statement with its `$N` parameters and calls `row` for each result row. A failure
  // is one line naming `what` ("storing a phase", "phases"); a read that fails on the file or
  // the data is worded by Damaged.
  virtual Status Each(const std::string& what, const std::string& sql,
                      const std::vector<SqlParam>& params,
                      const std::function<void(const SqlRow&)>& row) = 0;
  // Runs statements without parameters (several, separated by ';').
  virtual Status Exec(const std::string& sql) = 0;
  // Commits the outermost transaction; a failed commit leaves none open.
  virtual Status CommitTransaction() = 0;
  // True while a transaction is open (a database may have rolled it back itself on an error).
  virtual bool InTransaction() = 0;
  // True when the last failed statement broke a UNIQUE constraint.
  virtual bool LastFailureWasDuplicate() const = 0;

  // --- For the drivers ---
  // Creates the tables of a new database and migrates an older one, in one transaction.
  Status Migrate(const std::string& where);
  // Schema text (schema.h's notation) in this database's type names.
  std::string Ddl(const char* sql) const;
  // Runs one statement that returns nothing.
  Status Run(const std::string& what, const std::string& sql, const std::vector<SqlParam>& params);
  Status Damaged(const std::string& what, const std::string& detail) const;

  int schema_version_ = 0;  // of the database as opened (after migrations when writing)

 private:
  Result<int64_t> InsertPhase(int64_t test_id, const StoredPhase& p);
  // The first column of a statement's single row (an INSERT ... RETURNING id).
  Result<int64_t> Id(const std::string& what, const std::string& sql,
                     const std::vector<SqlParam>& params);
  std::string RunColumns() const;

  const SqlDialect& dialect_;
  int writes_depth_ = 0;  // open BeginWrites (the outermost a transaction, the others savepoints)
};

}  // namespace ssdlab
