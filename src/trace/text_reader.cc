#include "trace/text_reader.h"

#include <charconv>
#include <cstring>

#include "base/units.h"

namespace ssdlab::trace {

Status TraceReader::Bad(const std::string& where, const std::string& why) {
  if (skipped_ < skip_bad_) {
    ++skipped_;
    return Status::Ok();
  }
  std::string hint =
      skip_bad_ ? " (more than --skip-bad " + std::to_string(skip_bad_) + " malformed records)"
                : " (--skip-bad N tolerates N malformed records)";
  return Status::Invalid(where + ": " + why + hint);
}

bool ParseU64(std::string_view s, uint64_t* out) {
  s = TrimBlanks(s);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseF64(std::string_view s, double* out) {
  s = TrimBlanks(s);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

// The reason a field is refused because it does not fit 64 bits once converted, e.g.
// "Offset 36028797018963968 (512-B sectors) overflows a 64-bit byte offset".
std::string Overflows(const char* field, std::string_view value, const char* unit,
                      const char* what) {
  return std::string(field) + " " + std::string(TrimBlanks(value)) + " (" + unit + ") overflows " +
         what;
}

// Whether offset + bytes fits 64 bits (the record's end).
bool EndFits(const TraceRecord& r) {
  uint64_t end;
  return !__builtin_add_overflow(r.offset_bytes, uint64_t{r.bytes}, &end);
}

LineResult Place(const OffsetField& field, uint64_t offset, uint32_t bytes, uint64_t device,
                 TraceRecord* r, std::string* why) {
  if (!Scaled(offset, field.unit_bytes, &r->offset_bytes)) {
    *why = Overflows(field.name, field.text, field.unit, kByteOffset);
    return LineResult::kBad;
  }
  r->bytes = bytes;
  if (!EndFits(*r)) {
    *why = Overflows(field.name, field.text, field.unit, kEndOffset);
    return LineResult::kBad;
  }
  r->device = device;
  r->response_ns = -1;
  return LineResult::kRecord;
}

bool IsCsvRwLine(std::string_view t, size_t rw) {
  std::string_view f[8];
  const size_t nf = SplitN(t, ',', f, 8);
  return IsNumber(f[0]) && nf >= 5 && rw < nf && IsRwLetter(TrimBlanks(f[rw]));
}

// "S.FFFFFFFFF" seconds into ns, exactly. False for a malformed number or one whose ns do not
// fit 64 bits (*overflow then says which).
bool ParseSecondsNs(std::string_view s, uint64_t* ns, bool* overflow) {
  s = TrimBlanks(s);
  if (overflow) *overflow = false;
  size_t dot = s.find('.');
  uint64_t sec = 0, frac = 0;
  if (!ParseU64(s.substr(0, dot), &sec)) {
    double d;  // digits beyond 64 bits, or not a number
    if (overflow) *overflow = ParseF64(s, &d);
    return false;
  }
  if (dot != std::string_view::npos) {
    std::string_view f = s.substr(dot + 1);
    if (f.empty() || f.size() > 9) {
      double d;
      if (!ParseF64(s, &d)) return false;
      const double v = d * 1e9 + 0.5;
      if (!(v < 0x1p64)) {
        if (overflow) *overflow = true;
        return false;
      }
      *ns = static_cast<uint64_t>(v);
      return true;
    }
    if (!ParseU64(f, &frac)) return false;
    for (size_t i = f.size(); i < 9; ++i) frac *= 10;
  }
  if (!Scaled(sec, kNsPerS, ns) || __builtin_add_overflow(*ns, frac, ns)) {
    if (overflow) *overflow = true;
    return false;
  }
  return true;
}

// Whitespace-separated tokens.
size_t Tokens(std::string_view line, std::string_view* out, size_t max) {
  size_t n = 0, i = 0;
  while (n < max) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    out[n++] = line.substr(i, j - i);
    i = j;
  }
  return n;
}

bool IsNumber(std::string_view s) {
  double d;
  return ParseF64(s, &d);
}

// "MAJ,MIN" / "MAJ:MIN" / a number into the kernel's dev_t as blktrace records it.
bool ParseBlkDevice(std::string_view s, uint64_t* out) {
  s = TrimBlanks(s);
  size_t p = s.find_first_of(",:");
  if (p == std::string_view::npos) return ParseU64(s, out);
  uint64_t maj, min;
  if (!ParseU64(s.substr(0, p), &maj) || !ParseU64(s.substr(p + 1), &min)) return false;
  *out = (maj << 20) | min;
  return true;
}

std::string Where(const std::string& path, uint64_t line) {
  return path + ":" + std::to_string(line);
}

bool IsRwLetter(std::string_view s) {
  return s.size() == 1 && std::strchr("RrWw", s[0]) != nullptr;
}

bool ReadWrite(std::string_view s, Direction* d) {
  s = TrimBlanks(s);
  if (s.empty()) return false;
  char c = s.front();
  if (c == 'R' || c == 'r') {
    *d = Direction::kRead;
  } else if (c == 'W' || c == 'w') {
    *d = Direction::kWrite;
  } else {
    return false;
  }
  return true;
}

TextReader::TextReader(std::unique_ptr<ByteStream> in, TraceFormat f, const TraceOptions& o)
    : lr_(std::move(in)), path_(lr_.stream().path()) {
  format_ = f;
  files_ = {path_};
  skip_bad_ = o.skip_bad;
}

Status TextReader::Init(const TraceOptions& o) {
  if (o.device_id.empty()) return Status::Ok();
  filter_ = true;
  return SetDeviceFilter(o.device_id);
}

Status TextReader::SetDeviceFilter(const std::string& id) {
  if (!ParseU64(id, &filter_dev_)) {
    return Status::Invalid("--device-id '" + id + "' is not a number (" + TraceFormatName(format_) +
                           " traces number their devices)");
  }
  return Status::Ok();
}

Result<bool> TextReader::Next(TraceRecord* r) {
  std::string_view line;
  std::string why;
  for (;;) {
    SSDLAB_ASSIGN_OR_RETURN(bool more, lr_.Next(&line));
    if (!more) return false;
    std::string_view t = TrimBlanks(line);
    LineResult res;
    if (t.empty() || t.front() == '#') {
      ++ignored_;
      res = LineResult::kIgnore;
    } else {
      // The first line with content: the fio header, or a CSV header.
      const bool first = !seen_content_;
      seen_content_ = true;
      res = ParseLine(t, first, r, &why);
    }
    if (res == LineResult::kIgnore) continue;
    if (res == LineResult::kBad) {
      SSDLAB_RETURN_IF_ERROR(Bad(Where(path_, lr_.line_number()), why));
      continue;
    }
    if (filter_ && !MatchesFilter(*r)) {
      ++filtered_;
      continue;
    }
    return true;
  }
}

}  // namespace ssdlab::trace
