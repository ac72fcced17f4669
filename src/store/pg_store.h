// The PostgreSQL driver of the results store (sql_store.h holds its statements), through
// libpq: the same tables and behaviour as the SQLite store, for a lab whose hosts all write
// into one database. Every round is one transaction; run locks are session advisory locks
// (released when the process, hence its connection, dies); the schema is created and migrated
// under a transaction-level advisory lock, so hosts opening the database at once do not race.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "store/sql_store.h"

struct pg_conn;
struct pg_result;

namespace ssdlab {

class PgStore final : public SqlStore {
 public:
  // Store::Open's contract for a postgresql:// URL. A database with tables but no ssdlab
  // `meta` is another program's and is refused; kReadOnly sessions are read-only transactions.
  static Result<std::unique_ptr<Store>> Open(const std::string& url, Mode mode);
  ~PgStore() override;

  Result<RunLock> LockRun(int64_t run_id, const std::string& run_name) override;

 private:
  PgStore(pg_conn* conn, std::string where);
  // One statement (or several, without parameters); the result, cleared by the caller.
  Result<pg_result*> Query(const std::string& sql, const std::vector<SqlParam>& params);
  Status Each(const std::string& what, const std::string& sql, const std::vector<SqlParam>& params,
              const std::function<void(const SqlRow&)>& row) override;
  Status Exec(const std::string& sql) override;
  Status CommitTransaction() override;
  bool InTransaction() override;
  bool LastFailureWasDuplicate() const override;

  pg_conn* conn_;
  std::string where_;          // "--db URL" without a password, for messages
  std::string last_sqlstate_;  // of the last failed query ("23505": a unique violation)
};

}  // namespace ssdlab
