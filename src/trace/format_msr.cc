// The msr trace format: SNIA IOTTA MSR Cambridge CSV (docs/trace.md); its entry in the formats'
// table is in formats.cc.
#include "base/units.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {

// Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime (100-ns FILETIME ticks).
LineResult ParseMsrCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why) {
  uint64_t ts, disk, off, size, rt;
  if (n < 7 || !ParseU64(f[0], &ts) || !ParseU64(f[2], &disk) || !ReadWrite(f[3], &r->dir) ||
      !ParseU64(f[4], &off) || !ParseU64(f[5], &size) || !ParseU64(f[6], &rt) || size == 0 ||
      size > UINT32_MAX) {
    *why = "expected Timestamp,Hostname,DiskNumber,Read|Write,Offset,Size,ResponseTime";
    return LineResult::kBad;
  }
  uint64_t rt_ns;
  if (!Scaled(ts, 100, &r->time_ns)) {
    *why = Overflows("Timestamp", f[0], "100-ns ticks", kTimeNs);
    return LineResult::kBad;
  }
  if (!Scaled(rt, 100, &rt_ns) || rt_ns > static_cast<uint64_t>(INT64_MAX)) {
    *why = Overflows("ResponseTime", f[6], "100-ns ticks", "a 63-bit time in ns");
    return LineResult::kBad;
  }
  const LineResult placed =
      Place({"Offset", f[4], 1, "bytes"}, off, static_cast<uint32_t>(size), disk, r, why);
  r->response_ns = static_cast<int64_t>(rt_ns);
  return placed;
}

// A record: seven or more fields, the first a number, the second not (the host name).
bool IsMsrLine(std::string_view t) {
  std::string_view f[8];
  const size_t nf = SplitN(t, ',', f, 8);
  return IsNumber(f[0]) && nf >= 7 && !IsNumber(f[1]);
}

}  // namespace ssdlab::trace
