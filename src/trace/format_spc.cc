// The spc trace format: SPC / UMass (ASU,LBA,Size,Opcode,Timestamp) (docs/trace.md); its entry in
// the formats' table is in formats.cc.
#include "base/units.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {
namespace {

class SpcReader : public TextReader {
 public:
  using TextReader::TextReader;

 private:
  // ASU,LBA (512-B sectors),Size (bytes),Opcode (r|w),Timestamp (s)[,...].
  LineResult ParseLine(std::string_view t, bool first, TraceRecord* r, std::string* why) override {
    std::string_view f[6];
    size_t n = SplitN(t, ',', f, 6);
    if (first && !IsNumber(f[0])) return Header();
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
    return Place({"LBA", f[1], 512, "512-B sectors"}, lba, static_cast<uint32_t>(size), asu, r,
                 why);
  }
};

}  // namespace

// A record: five or more fields, the first a number, the fourth r or w.
bool IsSpcLine(std::string_view t) { return IsCsvRwLine(t, 3); }

Result<std::unique_ptr<TraceReader>> OpenSpc(const std::vector<std::string>& files,
                                             std::unique_ptr<ByteStream> in, TraceFormat f,
                                             const TraceOptions& o) {
  return OpenText<SpcReader>(std::move(in), f, o);
}

}  // namespace ssdlab::trace
