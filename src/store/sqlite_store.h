// The SQLite driver of the results store (sql_store.h holds its statements): one file, WAL
// journal, run locks as open-file-description locks on bytes of the file that SQLite never
// locks.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace ssdlab {

// Store::Open's contract for a file path.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, Store::Mode mode);

}  // namespace ssdlab
