#include "cli/lat_log.h"

#include <fmt/format.h>

#include <cstdio>

namespace ssdlab {

namespace {
constexpr char kHeader[] = "start_ns,direction,offset,bytes,latency_ns\n";
}

Result<std::unique_ptr<CsvIoLog>> CsvIoLog::Open(const std::string& path) {
  std::unique_ptr<OutputFile> file;
  if (path != "-") {
    auto f = OutputFile::Create("--lat-log", path);
    if (!f.ok()) return f.status();
    file = std::move(f.value());
    file->Write(kHeader, sizeof kHeader - 1);
  } else {
    std::fputs(kHeader, stdout);
  }
  return std::unique_ptr<CsvIoLog>(new CsvIoLog(std::move(file)));
}

void CsvIoLog::Write(const IoRecord* records, size_t count) {
  fmt::memory_buffer buf;
  for (size_t i = 0; i < count; ++i) {
    const IoRecord& r = records[i];
    fmt::format_to(std::back_inserter(buf), "{},{},{},{},{}\n", r.start_ns, DirectionName(r.dir),
                   r.offset, r.bytes, r.latency_ns);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (file_) {
    file_->Write(buf.data(), buf.size());
  } else {
    std::fwrite(buf.data(), 1, buf.size(), stdout);
  }
}

Status CsvIoLog::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_)
    return std::fflush(stdout) == 0 ? Status::Ok()
                                    : Status::Io("--lat-log -: write to stdout failed");
  return file_->Commit();
}

}  // namespace ssdlab
