// The machinery the trace readers share (not exported beyond src/trace/): parsing of a record's
// fields with overflow checks, and the reader of line-oriented text formats, which each text
// format (format_*.cc) completes with its parser of one line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/strings.h"
#include "trace/input.h"
#include "trace/trace.h"

namespace ssdlab::trace {

// ---- field parsing -------------------------------------------------------------------------

// s without leading and trailing blanks: spaces and tabs only (a line's \r is the line reader's;
// base/strings.h's Trim would also take \n, \v, \f and \r).
inline std::string_view TrimBlanks(std::string_view s) { return Trim(s, " \t"); }
// A whole decimal number (blanks around it allowed); false when malformed or over 64 bits.
bool ParseU64(std::string_view s, uint64_t* out);
// A number >= 0 (decimal, from_chars; blanks around it allowed).
bool ParseF64(std::string_view s, double* out);
// v * unit into *out; false when the product does not fit 64 bits.
inline bool Scaled(uint64_t v, uint64_t unit, uint64_t* out) {
  return !__builtin_mul_overflow(v, unit, out);
}
// The reason a field is refused because it does not fit 64 bits once converted, e.g.
// "Offset 36028797018963968 (512-B sectors) overflows a 64-bit byte offset".
std::string Overflows(const char* field, std::string_view value, const char* unit,
                      const char* what);
constexpr const char* kTimeNs = "a 64-bit time in ns";
constexpr const char* kByteOffset = "a 64-bit byte offset";
constexpr const char* kEndOffset = "a 64-bit byte offset at its end (offset + length)";
// Whether offset + bytes fits 64 bits (the record's end).
bool EndFits(const TraceRecord& r);
// "S.FFFFFFFFF" seconds into ns, exactly. False for a malformed number or one whose ns do not
// fit 64 bits (*overflow then says which).
bool ParseSecondsNs(std::string_view s, uint64_t* ns, bool* overflow = nullptr);
// Whitespace-separated tokens (at most `max`); returns the count.
size_t Tokens(std::string_view line, std::string_view* out, size_t max);
// Whether s is a number >= 0 (ParseF64).
bool IsNumber(std::string_view s);
// "MAJ,MIN" / "MAJ:MIN" / a number into the kernel's dev_t as blktrace records it.
bool ParseBlkDevice(std::string_view s, uint64_t* out);
// One letter R, r, W or w (detection: an op field).
bool IsRwLetter(std::string_view s);
// R/r a read, W/w a write (the field's first letter).
bool ReadWrite(std::string_view s, Direction* d);
// "path:line".
std::string Where(const std::string& path, uint64_t line);

// ---- text formats --------------------------------------------------------------------------

enum class LineResult { kRecord, kIgnore, kBad };

// A record's offset field as the trace gives it: its name and text (for messages) and its
// unit ("512-B sectors": 512 bytes).
struct OffsetField {
  const char* name;
  std::string_view text;
  uint64_t unit_bytes;
  const char* unit;
};
// Completes *r with where it lies: the offset (`offset` units of the field), its length, its
// device, and no response time. kBad, *why naming the field, when the offset or the record's
// end does not fit 64 bits.
LineResult Place(const OffsetField& field, uint64_t offset, uint32_t bytes, uint64_t device,
                 TraceRecord* r, std::string* why);
// A CSV record of five or more fields whose first is a number and whose field `rw` is one
// letter R or W (detection of the formats that have such an op field).
bool IsCsvRwLine(std::string_view t, size_t rw);

// A reader of a line-oriented text format: blank lines and # comments are ignored, every other
// line goes to ParseLine; malformed lines count against --skip-bad, records of other devices
// than --device-id are filtered.
class TextReader : public TraceReader {
 public:
  TextReader(std::unique_ptr<ByteStream> in, TraceFormat f, const TraceOptions& o);
  // The --device-id filter, if any (SetDeviceFilter).
  Status Init(const TraceOptions& o);
  Result<bool> Next(TraceRecord* r) override;

 protected:
  // One line with content (trimmed, not a comment): a record into *r, a line to ignore (counted
  // in ignored_ by the parser), or a malformed one (*why says why). `first`: the first line
  // with content (a header, in the formats that have one).
  virtual LineResult ParseLine(std::string_view t, bool first, TraceRecord* r,
                               std::string* why) = 0;
  // Takes --device-id `id` (non-empty): by default a device number.
  virtual Status SetDeviceFilter(const std::string& id);
  // Whether record r is of the --device-id device (only with a filter).
  virtual bool MatchesFilter(const TraceRecord& r) const { return r.device == filter_dev_; }
  // A first line whose first field is not a number is a header: ignored.
  LineResult Header() {
    ++ignored_;
    return LineResult::kIgnore;
  }

  LineReader lr_;
  std::string path_;
  bool filter_ = false;
  uint64_t filter_dev_ = 0;

 private:
  bool seen_content_ = false;
};

// A text format's reader R (a TextReader) on stream `in`, its filter set (Init); for the
// formats' table (trace/formats.h).
template <class R>
Result<std::unique_ptr<TraceReader>> OpenText(std::unique_ptr<ByteStream> in, TraceFormat f,
                                              const TraceOptions& o) {
  auto r = std::make_unique<R>(std::move(in), f, o);
  SSDLAB_RETURN_IF_ERROR(r->Init(o));
  return std::unique_ptr<TraceReader>(std::move(r));
}

// One line of a CSV format, split at commas into f[0..n) (at most kCsvFields: the last field
// keeps the rest of the line), into *r.
inline constexpr size_t kCsvFields = 8;
using ParseCsvFn = LineResult (*)(const std::string_view* f, size_t n, TraceRecord* r,
                                  std::string* why);

// The reader of a CSV format that keeps nothing between lines: a first line whose first field
// is not a number is a header (ignored); every other line is `parse`'s.
template <ParseCsvFn parse>
class CsvReader final : public TextReader {
 public:
  using TextReader::TextReader;

 private:
  LineResult ParseLine(std::string_view t, bool first, TraceRecord* r, std::string* why) override {
    std::string_view f[kCsvFields];
    const size_t n = SplitN(t, ',', f, kCsvFields);
    if (first && !IsNumber(f[0])) return Header();
    return parse(f, n, r, why);
  }
};

// A CSV format's reader (for the formats' table, trace/formats.h).
template <ParseCsvFn parse>
Result<std::unique_ptr<TraceReader>> OpenCsv(const std::vector<std::string>& files,
                                             std::unique_ptr<ByteStream> in, TraceFormat f,
                                             const TraceOptions& o) {
  return OpenText<CsvReader<parse>>(std::move(in), f, o);
}

}  // namespace ssdlab::trace
