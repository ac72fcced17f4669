// The spc trace format: SPC / UMass (ASU,LBA,Size,Opcode,Timestamp) (docs/trace.md); its entry in
// the formats' table is in formats.cc.
#include "base/units.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {

// ASU,LBA (512-B sectors),Size (bytes),Opcode (r|w),Timestamp (s)[,...].
LineResult ParseSpcCsv(const std::string_view* f, size_t n, TraceRecord* r, std::string* why) {
  uint64_t asu, lba, size, ts_ns;
  bool ts_overflow = false;
  if (n < 5 || !ParseU64(f[0], &asu) || !ParseU64(f[1], &lba) || !ParseU64(f[2], &size) ||
      !ReadWrite(f[3], &r->dir) || !ParseSecondsNs(f[4], &ts_ns, &ts_overflow) || size == 0 ||
      size > UINT32_MAX) {
    *why = ts_overflow ? Overflows("Timestamp", f[4], "s", kTimeNs)
                       : "expected ASU,LBA,Size,r|w,Timestamp_s";
    return LineResult::kBad;
  }
  r->time_ns = ts_ns;
  return Place({"LBA", f[1], 512, "512-B sectors"}, lba, static_cast<uint32_t>(size), asu, r, why);
}

// A record: five or more fields, the first a number, the fourth r or w.
bool IsSpcLine(std::string_view t) { return IsCsvRwLine(t, 3); }

}  // namespace ssdlab::trace
