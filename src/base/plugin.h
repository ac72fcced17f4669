// Plugins: the parts of ssdlab that need a heavy library (libpq for PostgreSQL stores, Open MPI
// for lab runs) are shared libraries of their own, ssdlab-NAME.so, opened only by the commands
// that use them, so that every other command starts without those libraries.
//
// Where they are: $SSDLAB_PLUGIN_DIR when set (tests, relocated installs); else beside the
// running binary, BINDIR/lib/ssdlab (the build tree) if that directory exists, else
// BINDIR/../lib/ssdlab (an installed prefix: PREFIX/bin/ssdlab, PREFIX/lib/ssdlab/).
//
// Not thread-safe: open plugins from the main thread (in practice, before any worker starts).
#pragma once

#include <string>

#include "base/status.h"

namespace ssdlab {

struct PluginSpec {
  const char* file;     // "ssdlab-pg.so"
  const char* purpose;  // "PostgreSQL stores (--db postgresql://...)"
  const char* install;  // what to install or build when it is missing
  bool global = false;  // RTLD_GLOBAL: its libraries' symbols for libraries they open in turn
};

// The directory plugins are looked up in (see above); never empty.
std::string PluginDir();

// The address of `symbol` in the plugin, opening it (RTLD_NOW) on first use; a plugin stays
// open until the process ends. kIoError, one line naming the plugin's path, what it is for and
// what to install, when the file is missing, cannot be loaded (a library of its own missing)
// or lacks the symbol.
Result<void*> PluginSymbol(const PluginSpec& plugin, const char* symbol);

}  // namespace ssdlab
