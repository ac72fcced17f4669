// Helpers for end-to-end tests: run the ssdlab binary, read files, make temporary dirs.
#pragma once

#include <signal.h>

#include <cstdint>
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
// `mpirun --allow-run-as-root --oversubscribe -n N ssdlab args...`; the ranks' stdout and
// stderr together in both out and err.
Proc RunMpi(int n, const std::vector<std::string>& args);
// The SHA-256 of a file's bytes in hex ("" when it cannot be read).
std::string FileSha256(const std::string& path);
// Unmounts `dir`, retrying for up to 5 s while the kernel still calls it busy: a process that
// has just exited can hold a file of it a moment longer (io_uring releases its registered files
// in a kernel worker after the exit). False if it is still mounted.
bool Unmount(const std::string& dir);

// `a` followed by `more` (a command line and its extra arguments).
std::vector<std::string> Args(std::vector<std::string> a, const std::vector<std::string>& more);
// The test named `name` in a run document's tests[] (null when there is none).
const nlohmann::json* FindTest(const nlohmann::json& doc, const std::string& name);

std::string ReadFile(const std::filesystem::path& p);
// The rows of an SQL query on a results database opened read-only, each row's column values
// joined by '|' (blobs byte for byte); empty when the database cannot be read.
std::vector<std::string> SqlRows(const std::string& db_path, const std::string& sql);
nlohmann::json ReadJson(const std::filesystem::path& p);

// The JSON text of the element `id` with data-done="1" in a browser's DOM dump (the report's
// pages write their render status so), unescaped (the dump escapes &, <, > and "); null if the
// element is absent or not done.
nlohmann::json DoneJson(const std::string& dom, const std::string& id);
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

// Loop devices and mounts a test sets up itself, detached and unmounted (in reverse order) at
// destruction. Every call returns false and sets error() when the kernel refuses (no root, no
// loop module), so that a test can skip with the reason.
class LoopDevices {
 public:
  LoopDevices() = default;
  LoopDevices(const LoopDevices&) = delete;
  LoopDevices& operator=(const LoopDevices&) = delete;
  ~LoopDevices();
  // Creates `img` of `bytes` if it does not exist yet and attaches it (at `dev` if given,
  // retrying while the kernel finishes a detach of it; with a partition scan if `partscan`).
  // The device's path goes to `*dev_out`.
  bool Attach(const std::string& img, uint64_t bytes, std::string* dev_out, bool partscan = false,
              const std::string& dev = "");
  void Detach(const std::string& dev);
  // Mounts `dev` at `mnt` (made if missing), after `mkfs.ext4 -F` when `mkfs`.
  bool Mount(const std::string& dev, const std::string& mnt, bool mkfs);
  const std::string& error() const { return error_; }

 private:
  std::vector<std::string> devs_, mounts_;
  std::string error_;
};

}  // namespace ssdlab::test
