#include "cli/lat_log.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace ssdlab {

Result<std::unique_ptr<CsvIoLog>> CsvIoLog::Open(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Status::Invalid("--lat-log " + path + ": " + std::strerror(errno));
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  std::fputs("start_ns,direction,offset,bytes,latency_ns\n", f);
  return std::unique_ptr<CsvIoLog>(new CsvIoLog(f));
}

CsvIoLog::~CsvIoLog() {
  if (f_) std::fclose(f_);
}

void CsvIoLog::Write(const IoRecord* records, size_t count) {
  fmt::memory_buffer buf;
  for (size_t i = 0; i < count; ++i) {
    const IoRecord& r = records[i];
    fmt::format_to(std::back_inserter(buf), "{},{},{},{},{}\n", r.start_ns, DirectionName(r.dir),
                   r.offset, r.bytes, r.latency_ns);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (std::fwrite(buf.data(), 1, buf.size(), f_) != buf.size()) failed_ = true;
}

Status CsvIoLog::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  int rc = std::fclose(f_);
  f_ = nullptr;
  if (rc != 0 || failed_) return Status::Io("writing the latency log failed (disk full?)");
  return Status::Ok();
}

}  // namespace ssdlab
