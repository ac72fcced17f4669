// ssdlab-pg.so's entry point (pg_plugin.h); compiled into the plugin only.
#include "store/pg_plugin.h"

#include "store/pg_store.h"

extern "C" __attribute__((visibility("default"))) ssdlab::Result<std::unique_ptr<ssdlab::Store>>
ssdlab_pg_open_v1(const std::string& url, ssdlab::Store::Mode mode) {
  return ssdlab::OpenPgStore(url, mode);
}

// The plugin's function has the seam's type.
static_assert(std::is_same_v<decltype(&ssdlab_pg_open_v1), ssdlab::PgOpenFn>);
