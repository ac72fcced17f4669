// The fio iolog trace formats, versions 2 and 3 (docs/trace.md); their entries in the formats'
// table are in formats.cc.
#include "base/units.h"
#include "trace/formats.h"
#include "trace/text_reader.h"

namespace ssdlab::trace {
namespace {

constexpr std::string_view kFioV2Header = "fio version 2 iolog";
constexpr std::string_view kFioV3Header = "fio version 3 iolog";

// The header line says the version (a fio trace given as either is read as the header says).
// --device-id names a file; the records' devices number the files in order of appearance.
class FioReader : public TextReader {
 public:
  using TextReader::TextReader;

 private:
  Status SetDeviceFilter(const std::string& id) override {
    filter_name_ = id;
    return Status::Ok();
  }
  bool MatchesFilter(const TraceRecord& r) const override {
    if (!filter_name_.empty()) return r.device == filter_fio_index_;
    return r.device == filter_dev_;
  }

  LineResult ParseLine(std::string_view t, bool first, TraceRecord* r, std::string* why) override {
    if (first) {
      const char* want =
          format_ == TraceFormat::kFioV2 ? "fio version 2 iolog" : "fio version 3 iolog";
      if (t == "fio version 3 iolog") format_ = TraceFormat::kFioV3;
      if (t == "fio version 2 iolog") format_ = TraceFormat::kFioV2;
      if (t.rfind("fio version ", 0) == 0) {
        ++ignored_;
        return LineResult::kIgnore;
      }
      // Appended, not `std::string(...) + want + ...`: GCC 12 with the precompiled header
      // reports a false -Warray-bounds on that chain (the string temporaries inlined).
      *why = "not a fio iolog (the first line should be \"";
      *why += want;
      *why += "\")";
      return LineResult::kBad;
    }
    std::string_view tok[6];
    size_t n = Tokens(t, tok, 6);
    size_t i = 0;
    uint64_t ts_us = 0;
    if (format_ == TraceFormat::kFioV3) {
      if (n < 3 || !ParseU64(tok[0], &ts_us)) {
        *why = "expected \"timestamp filename action [offset length]\"";
        return LineResult::kBad;
      }
      i = 1;
    } else if (n < 2) {
      *why = "expected \"filename action [offset length]\"";
      return LineResult::kBad;
    }
    std::string_view name = tok[i], action = tok[i + 1];
    Direction dir;
    if (action == "read") {
      dir = Direction::kRead;
    } else if (action == "write") {
      dir = Direction::kWrite;
    } else if (action == "trim") {
      dir = Direction::kTrim;
    } else if (action == "wait" && format_ == TraceFormat::kFioV2) {
      uint64_t us;
      if (n < 3 || !ParseU64(tok[2], &us)) {
        *why = "expected \"filename wait microseconds\"";
        return LineResult::kBad;
      }
      uint64_t wait_ns, clock_ns;
      if (!Scaled(us, kNsPerUs, &wait_ns) ||
          __builtin_add_overflow(clock_ns_, wait_ns, &clock_ns)) {
        *why = Overflows("wait", tok[2], "us, added to the waits before it", kTimeNs);
        return LineResult::kBad;
      }
      clock_ns_ = clock_ns;
      ++ignored_;
      return LineResult::kIgnore;
    } else if (action == "add" || action == "open" || action == "close" || action == "sync" ||
               action == "datasync") {
      ++ignored_;
      if (action == "add") FioIndex(name);
      return LineResult::kIgnore;
    } else {
      *why = "unknown action '" + std::string(action) + "'";
      return LineResult::kBad;
    }
    uint64_t off, len;
    if (n < i + 4 || !ParseU64(tok[i + 2], &off) || !ParseU64(tok[i + 3], &len) || len == 0 ||
        len > UINT32_MAX) {
      *why = "expected a byte offset and a length above 0 after '" + std::string(action) + "'";
      return LineResult::kBad;
    }
    r->time_ns = clock_ns_;
    if (format_ == TraceFormat::kFioV3 && !Scaled(ts_us, kNsPerUs, &r->time_ns)) {
      *why = Overflows("timestamp", tok[0], "us", kTimeNs);
      return LineResult::kBad;
    }
    r->dir = dir;
    if (Place({"offset", tok[i + 2], 1, "bytes"}, off, static_cast<uint32_t>(len), 0, r, why) ==
        LineResult::kBad)
      return LineResult::kBad;
    r->device = FioIndex(name);  // after the checks: a bad line names no file
    return LineResult::kRecord;
  }

  uint64_t FioIndex(std::string_view name) {
    for (size_t i = 0; i < fio_names_.size(); ++i) {
      if (fio_names_[i] == name) return i;
    }
    if (fio_names_.size() < 4096) {
      fio_names_.emplace_back(name);
      if (filter_ && fio_names_.back() == filter_name_) filter_fio_index_ = fio_names_.size() - 1;
      return fio_names_.size() - 1;
    }
    return UINT64_MAX - 1;
  }

  uint64_t clock_ns_ = 0;  // fio v2: sum of waits
  std::vector<std::string> fio_names_;
  std::string filter_name_;
  uint64_t filter_fio_index_ = UINT64_MAX;
};

}  // namespace

bool IsFioV2Line(std::string_view t) { return t == kFioV2Header; }
bool IsFioV3Line(std::string_view t) { return t == kFioV3Header; }

Result<std::unique_ptr<TraceReader>> OpenFio(const std::vector<std::string>& files,
                                             std::unique_ptr<ByteStream> in, TraceFormat f,
                                             const TraceOptions& o) {
  return OpenText<FioReader>(std::move(in), f, o);
}

}  // namespace ssdlab::trace
