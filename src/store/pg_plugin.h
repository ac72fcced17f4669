// The seam between the store and its PostgreSQL plugin, ssdlab-pg.so (base/plugin.h): the
// plugin holds pg_store.cc (with sql_store.cc) and libpq and exports one function,
// OpenPgStore, under kPgOpenSymbol; Store::Open calls it for a postgresql:// URL, so that libpq
// is loaded only by a command given one. The plugin is built from the same sources as the binary
// (the C++ types passed across are the binary's own).
#pragma once

#include <memory>
#include <string>

#include "base/plugin.h"
#include "store/store.h"

namespace ssdlab {

using PgOpenFn = Result<std::unique_ptr<Store>> (*)(const std::string& url, Store::Mode mode);

inline constexpr char kPgOpenSymbol[] = "ssdlab_pg_open_v1";

inline constexpr PluginSpec kPgPlugin = {
    .file = "ssdlab-pg.so",
    .purpose = "PostgreSQL stores (--db postgresql://...)",
    .install = "install ssdlab's ssdlab-pg.so with libpq5, or build it: ninja -C build ssdlab-pg",
};

}  // namespace ssdlab
