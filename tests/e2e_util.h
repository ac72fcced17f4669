// Helpers for end-to-end tests: run the ssdlab binary, read files, make temporary dirs.
#pragma once

#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ssdlab::test {

struct Proc {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// True when `text` contains `part`.
inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Runs `ssdlab args...` to completion.
Proc RunSsdlab(const std::vector<std::string>& args);
// Starts `ssdlab args...` with stdout/stderr to files; returns its pid.
pid_t StartSsdlab(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path);
// Waits for `pid`; returns its exit code (128 + signal when killed).
int Wait(pid_t pid);
// Runs a shell command, returns its exit code; output to `out` if non-null.
int Shell(const std::string& cmd, std::string* out = nullptr);

std::string ReadFile(const std::filesystem::path& p);
// The rows of an SQL query on a results database opened read-only, each row's column values
// joined by '|' (blobs byte for byte); empty when the database cannot be read.
std::vector<std::string> SqlRows(const std::string& db_path, const std::string& sql);
nlohmann::json ReadJson(const std::filesystem::path& p);
int CountLines(const std::string& text);

// A fresh directory under the build's temporary area, removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace ssdlab::test
