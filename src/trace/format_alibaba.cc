// The alibaba trace format: Alibaba Cloud block traces (docs/trace.md); its entry in the formats'
// table is in formats.cc.
#include "base/units.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {
namespace {

class AlibabaReader : public TextReader {
 public:
  using TextReader::TextReader;

 private:
  // device_id,opcode,offset,length,timestamp (us).
  LineResult ParseLine(std::string_view t, bool first, TraceRecord* r, std::string* why) override {
    std::string_view f[6];
    size_t n = SplitN(t, ',', f, 6);
    if (first && !IsNumber(f[0])) return Header();
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
};

}  // namespace

// A record: five or more fields, the first a number, the second R or W.
bool IsAlibabaLine(std::string_view t) { return IsCsvRwLine(t, 1); }

Result<std::unique_ptr<TraceReader>> OpenAlibaba(const std::vector<std::string>& files,
                                                 std::unique_ptr<ByteStream> in, TraceFormat f,
                                                 const TraceOptions& o) {
  return OpenText<AlibabaReader>(std::move(in), f, o);
}

}  // namespace ssdlab::trace
