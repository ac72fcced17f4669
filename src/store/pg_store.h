// The PostgreSQL driver of the results store (sql_store.h holds its statements), through
// libpq: the same tables and behaviour as the SQLite store, for a lab whose hosts all write
// into one database. Every round is one transaction; run locks are session advisory locks
// (released when the process, hence its connection, dies); the schema is created and migrated
// under a transaction-level advisory lock, so hosts opening the database at once do not race.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace ssdlab {

// Store::Open's contract for a postgresql:// URL. A database with tables but no ssdlab `meta`
// is another program's and is refused; kReadOnly sessions are read-only transactions.
Result<std::unique_ptr<Store>> OpenPgStore(const std::string& url, Store::Mode mode);

}  // namespace ssdlab
