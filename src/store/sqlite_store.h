// The SQLite driver of the results store (sql_store.h holds its statements): one file, WAL
// journal, run locks as open-file-description locks on bytes of the file that SQLite never
// locks.
#pragma once

#include <memory>
#include <string>

#include "store/sql_store.h"

struct sqlite3;

namespace ssdlab {

class SqliteStore final : public SqlStore {
 public:
  // Store::Open's contract for a file path.
  static Result<std::unique_ptr<Store>> Open(const std::string& path, Mode mode);
  ~SqliteStore() override;

  Result<RunLock> LockRun(int64_t run_id, const std::string& run_name) override;

 private:
  SqliteStore(sqlite3* db, std::string path);
  Status Each(const std::string& what, const std::string& sql, const std::vector<SqlParam>& params,
              const std::function<void(const SqlRow&)>& row) override;
  Status Exec(const std::string& sql) override;
  Status CommitTransaction() override;
  bool InTransaction() override;
  bool LastFailureWasDuplicate() const override;

  sqlite3* db_;
  std::string path_;
  int lock_fd_ = -1;    // the database file, for run locks
  int last_error_ = 0;  // SQLite's extended code of the last failed statement (0: none)
};

}  // namespace ssdlab
