// The alibaba trace format: Alibaba Cloud block traces (docs/trace.md); its entry in the formats'
// table is in formats.cc.
#include "base/units.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {

// device_id,opcode,offset,length,timestamp (us).
LineResult ParseAlibabaCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why) {
  uint64_t dev, off, len, ts;
  if (n < 5 || !ParseU64(f[0], &dev) || !ReadWrite(f[1], &r->dir) || !ParseU64(f[2], &off) ||
      !ParseU64(f[3], &len) || !ParseU64(f[4], &ts) || len == 0 || len > UINT32_MAX) {
    *why = "expected device_id,R|W,offset,length,timestamp_us";
    return LineResult::kBad;
  }
  if (!Scaled(ts, kNsPerUs, &r->time_ns)) {
    *why = Overflows("timestamp", f[4], "us", kTimeNs);
    return LineResult::kBad;
  }
  return Place({"offset", f[2], 1, "bytes"}, off, static_cast<uint32_t>(len), dev, r, why);
}

// A record: five or more fields, the first a number, the second R or W.
bool IsAlibabaLine(std::string_view t) { return IsCsvRwLine(t, 1); }

}  // namespace ssdlab::trace
