// ssdlab-pg.so's entry point (pg_plugin.h); compiled into the plugin only.
#include "store/pg_plugin.h"

#include "store/pg_store.h"

// extern "C" only gives the symbol a plain name for dlsym; the binary calls it through PgOpenFn,
// built by the same compiler from the same sources (pg_plugin.h), so a C++ return type is sound.
// NOLINTBEGIN(clang-diagnostic-return-type-c-linkage): a C++ type across a C++-only seam
extern "C" __attribute__((visibility("default"))) ssdlab::Result<std::unique_ptr<ssdlab::Store>>
ssdlab_pg_open_v1(const std::string& url, ssdlab::Store::Mode mode) {
  return ssdlab::OpenPgStore(url, mode);
}
// NOLINTEND(clang-diagnostic-return-type-c-linkage)

// The plugin's function has the seam's type.
static_assert(std::is_same_v<decltype(&ssdlab_pg_open_v1), ssdlab::PgOpenFn>);
