// Files that ssdlab writes as results (reports, JSON documents, exports, latency logs): written
// to a temporary file beside the destination and renamed over it only when complete, so that a
// crash, a kill or a full disk never leaves a truncated file where a good one was.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "base/status.h"

namespace ssdlab {

// One output being written. Create() opens "DIR/.NAME.ssdlab-PID.tmp" beside `path`; Commit()
// flushes, fsyncs and renames it over `path`; destroying it uncommitted removes the temporary
// file and leaves `path` as it was. A destination that exists and is a character device or a
// FIFO (/dev/null, /dev/stdout, a pipe) is written directly, with no temporary file.
// Not thread-safe: callers serialise Write().
class OutputFile {
 public:
  // `flag` names the option in errors ("--json", "-o"). Errors: NotFound (missing directory),
  // Invalid (a directory or block device), Permission (directory not writable).
  static Result<std::unique_ptr<OutputFile>> Create(const std::string& flag,
                                                    const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  FILE* stream() { return f_; }
  void Write(const void* data, size_t bytes);
  void Write(const std::string& text) { Write(text.data(), text.size()); }
  // Makes the file visible at its path. Io (kNoSpace when the disk is full) when anything
  // written did not reach the disk; the destination is then unchanged.
  Status Commit();

 private:
  OutputFile(std::string flag, std::string path, std::string temp, FILE* f)
      : flag_(std::move(flag)), path_(std::move(path)), temp_(std::move(temp)), f_(f) {}
  std::string flag_, path_, temp_;  // temp_ empty: written in place (device or FIFO)
  FILE* f_;
  int error_ = 0;  // first errno of a failed write
};

// Writes `text` to `path` through an OutputFile.
Status WriteOutputFile(const std::string& flag, const std::string& path, const std::string& text);

// Ok when `path` can be written as an output of option `flag` (what Create() checks first):
// NotFound for a missing directory, Invalid for a directory or a block device, Refused for a
// directory not writable. The checks of a command's paths together: base/path_registry.h.
Status CheckOutputDestination(const std::string& flag, const std::string& path);

}  // namespace ssdlab
