// --lat-log: every measured I/O as a CSV line "start_ns,direction,offset,bytes,latency_ns"
// (after a header line), start_ns counted from the measured start.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "backend/backend.h"
#include "base/status.h"

namespace ssdlab {

class CsvIoLog : public IoLogSink {
 public:
  static Result<std::unique_ptr<CsvIoLog>> Open(const std::string& path);
  ~CsvIoLog() override;
  void Write(const IoRecord* records, size_t count) override;
  // Flushes and closes; reports a write error (full disk) that happened on the way.
  Status Close();

 private:
  explicit CsvIoLog(FILE* f) : f_(f) {}
  std::mutex mu_;
  FILE* f_;
  bool failed_ = false;
};

}  // namespace ssdlab
