// The tencent trace format: Tencent CBS (docs/trace.md); its entry in the formats' table is in
// formats.cc.
#include "base/units.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {

// Timestamp (s),Offset (sectors),Size (sectors),IOType (0 read, 1 write),VolumeID.
LineResult ParseTencentCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why) {
  uint64_t ts, off, size, type, vol;
  if (n < 5 || !ParseU64(f[0], &ts) || !ParseU64(f[1], &off) || !ParseU64(f[2], &size) ||
      !ParseU64(f[3], &type) || type > 1 || !ParseU64(f[4], &vol) || size == 0 ||
      size > UINT32_MAX / 512) {
    *why = "expected Timestamp,Offset,Size,IOType(0|1),VolumeID";
    return LineResult::kBad;
  }
  if (!Scaled(ts, kNsPerS, &r->time_ns)) {
    *why = Overflows("Timestamp", f[0], "s", kTimeNs);
    return LineResult::kBad;
  }
  r->dir = type == 0 ? Direction::kRead : Direction::kWrite;
  return Place({"Offset", f[1], 512, "512-B sectors"}, off, static_cast<uint32_t>(size * 512), vol,
               r, why);
}

// A record: five or more fields, numbers, the fourth 0 or 1.
bool IsTencentLine(std::string_view t) {
  std::string_view f[8];
  const size_t nf = SplitN(t, ',', f, 8);
  const std::string_view op3 = nf >= 5 ? TrimBlanks(f[3]) : std::string_view();
  return IsNumber(f[0]) && nf >= 5 && IsNumber(f[1]) && IsNumber(f[2]) &&
         (op3 == "0" || op3 == "1") && IsNumber(f[4]);
}

}  // namespace ssdlab::trace
