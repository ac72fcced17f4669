// --lat-log: every measured I/O as a CSV line "start_ns,direction,offset,bytes,latency_ns"
// (after a header line), start_ns counted from the measured start. The log is written beside
// its path and renamed there by Close() (base/output_file.h); "-" writes it to stdout.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "backend/backend.h"
#include "base/output_file.h"
#include "base/status.h"

namespace ssdlab {

class CsvIoLog : public IoLogSink {
 public:
  static Result<std::unique_ptr<CsvIoLog>> Open(const std::string& path);
  // Thread-safe.
  void Write(const IoRecord* records, size_t count) override;
  // Makes the log visible at its path; reports a write error (full disk) on the way.
  Status Close();

 private:
  explicit CsvIoLog(std::unique_ptr<OutputFile> f) : file_(std::move(f)) {}
  std::mutex mu_;
  std::unique_ptr<OutputFile> file_;  // null: stdout
};

}  // namespace ssdlab
