#include "base/plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace ssdlab {

std::string PluginDir() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("SSDLAB_PLUGIN_DIR"); dir && *dir) return dir;
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return "lib/ssdlab";
  if (fs::is_directory(exe_dir / "lib/ssdlab", ec)) return (exe_dir / "lib/ssdlab").string();
  return (exe_dir / "../lib/ssdlab").lexically_normal().string();
}

Result<void*> PluginSymbol(const PluginSpec& plugin, const char* symbol) {
  const std::string path = PluginDir() + "/" + plugin.file;
  auto refuse = [&](const std::string& why) {
    return Status::Io(std::string(plugin.purpose) + " need the plugin " + path + ", which " + why +
                      " (" + plugin.install + ")");
  };
  if (!std::filesystem::exists(path)) return refuse("is missing");
  // Opened once: dlopen of an open library returns the same handle.
  void* handle = dlopen(path.c_str(), RTLD_NOW | (plugin.global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (!handle) {
    const char* err = dlerror();
    return refuse(std::string("cannot be loaded: ") + (err ? err : "unknown error"));
  }
  void* sym = dlsym(handle, symbol);
  if (!sym) return refuse(std::string("has no ") + symbol + " (a plugin of another version?)");
  return sym;
}

}  // namespace ssdlab
