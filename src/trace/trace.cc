#include "trace/trace.h"

#include <linux/blktrace_api.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <queue>
#include <regex>

#include "base/units.h"
#include "trace/input.h"

namespace ssdlab::trace {

const char* TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kAuto:
      return "auto";
    case TraceFormat::kBlktrace:
      return "blktrace";
    case TraceFormat::kBlkparse:
      return "blkparse";
    case TraceFormat::kFioV2:
      return "fio-v2";
    case TraceFormat::kFioV3:
      return "fio-v3";
    case TraceFormat::kMsr:
      return "msr";
    case TraceFormat::kAlibaba:
      return "alibaba";
    case TraceFormat::kTencent:
      return "tencent";
    case TraceFormat::kSpc:
      return "spc";
  }
  return "?";
}

std::string TraceFormatNames() {
  return "auto, blktrace, blkparse, fio-v2, fio-v3, msr, alibaba, tencent, spc";
}

Result<TraceFormat> ParseTraceFormat(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(TraceFormat::kSpc); ++i) {
    auto f = static_cast<TraceFormat>(i);
    if (name == TraceFormatName(f)) return f;
  }
  if (name == "fio") return TraceFormat::kFioV2;  // the header line tells v2 from v3
  return Status::Invalid("--format: unknown trace format '" + name + "' (" + TraceFormatNames() +
                         ")");
}

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

namespace {

// ---- field parsing -------------------------------------------------------------------------

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool ParseU64(std::string_view s, uint64_t* out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseF64(std::string_view s, double* out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

// v * unit into *out; false when the product does not fit 64 bits.
bool Scaled(uint64_t v, uint64_t unit, uint64_t* out) {
  return !__builtin_mul_overflow(v, unit, out);
}

// The reason a field is refused because it does not fit 64 bits once converted, e.g.
// "Offset 36028797018963968 (512-B sectors) overflows a 64-bit byte offset".
std::string Overflows(const char* field, std::string_view value, const char* unit,
                      const char* what) {
  return std::string(field) + " " + std::string(Trim(value)) + " (" + unit + ") overflows " + what;
}
constexpr const char* kTimeNs = "a 64-bit time in ns";
constexpr const char* kByteOffset = "a 64-bit byte offset";
constexpr const char* kEndOffset = "a 64-bit byte offset at its end (offset + length)";

// Whether offset + bytes fits 64 bits (the record's end).
bool EndFits(const TraceRecord& r) {
  uint64_t end;
  return !__builtin_add_overflow(r.offset_bytes, uint64_t{r.bytes}, &end);
}

// "S.FFFFFFFFF" seconds into ns, exactly. False for a malformed number or one whose ns do not
// fit 64 bits (*overflow then says which).
bool ParseSecondsNs(std::string_view s, uint64_t* ns, bool* overflow = nullptr) {
  s = Trim(s);
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

// Splits on `sep` into at most `max` fields; returns the count (more fields are left in the last).
size_t Split(std::string_view line, char sep, std::string_view* out, size_t max) {
  size_t n = 0;
  while (n + 1 < max) {
    size_t p = line.find(sep);
    if (p == std::string_view::npos) break;
    out[n++] = line.substr(0, p);
    line.remove_prefix(p + 1);
  }
  out[n++] = line;
  return n;
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
  s = Trim(s);
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

// ---- completion matching (blktrace, blkparse) --------------------------------------------

// Holds the last I/O events in a fixed ring until their completion is seen (or the ring is
// full), so that records leave in their original order carrying the recorded response time.
// A completion matches the latest pending event of the same device and sector through a
// direct-mapped table (a collision leaves the older event unmatched). Constant memory.
class CompletionMatcher {
 public:
  static constexpr size_t kRing = 8192;
  static constexpr size_t kTable = 32768;
  CompletionMatcher() : ring_(kRing), table_(kTable) {}

  void Add(const TraceRecord& r, uint64_t sector) {
    Pending& p = ring_[(head_ + size_) % kRing];
    p.rec = r;
    p.issued = false;
    p.done = false;
    Entry& e = table_[Hash(r.device, sector)];
    e.device = r.device;
    e.sector = sector;
    e.seq = seq_base_ + size_;
    e.valid = true;
    ++size_;
  }
  // The driver took the pending I/O (a D event after its Q): its response time then counts
  // from here, the device's share.
  void Issue(uint64_t device, uint64_t sector, uint64_t time_ns) {
    if (Pending* p = Find(device, sector)) {
      p->issued = true;
      p->issue_ns = time_ns;
    }
  }
  void Complete(uint64_t device, uint64_t sector, uint64_t time_ns) {
    Pending* p = Find(device, sector);
    if (!p) return;
    table_[Hash(device, sector)].valid = false;
    const uint64_t from = p->issued ? p->issue_ns : p->rec.time_ns;
    p->done = true;
    p->rec.response_ns = time_ns >= from ? static_cast<int64_t>(time_ns - from) : 0;
    ++matched_;
  }
  // The oldest record when its completion was seen, the ring is full, or `flush`.
  bool Pop(TraceRecord* out, bool flush) {
    if (size_ == 0) return false;
    Pending& p = ring_[head_];
    if (!p.done && size_ < kRing && !flush) return false;
    *out = p.rec;
    head_ = (head_ + 1) % kRing;
    --size_;
    ++seq_base_;
    return true;
  }
  uint64_t matched() const { return matched_; }

 private:
  struct Pending {
    TraceRecord rec;
    uint64_t issue_ns = 0;
    bool issued = false;
    bool done = false;
  };
  Pending* Find(uint64_t device, uint64_t sector) {
    Entry& e = table_[Hash(device, sector)];
    if (!e.valid || e.device != device || e.sector != sector) return nullptr;
    if (e.seq < seq_base_) {  // already emitted
      e.valid = false;
      return nullptr;
    }
    return &ring_[(head_ + (e.seq - seq_base_)) % kRing];
  }
  struct Entry {
    uint64_t device = 0, sector = 0, seq = 0;
    bool valid = false;
  };
  static size_t Hash(uint64_t device, uint64_t sector) {
    uint64_t h = (sector ^ (device * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    return static_cast<size_t>(h >> 49) & (kTable - 1);
  }
  std::vector<Pending> ring_;
  std::vector<Entry> table_;
  size_t head_ = 0, size_ = 0;
  uint64_t seq_base_ = 0;  // sequence number of ring_[head_]
  uint64_t matched_ = 0;
};

// ---- text formats --------------------------------------------------------------------------

enum class LineResult { kRecord, kIgnore, kBad };

class TextReader : public TraceReader {
 public:
  TextReader(std::unique_ptr<ByteStream> in, TraceFormat f, const TraceOptions& o)
      : lr_(std::move(in)), path_(lr_.stream().path()) {
    format_ = f;
    files_ = {path_};
    skip_bad_ = o.skip_bad;
  }
  Status Init(const TraceOptions& o) {
    if (o.device_id.empty()) return Status::Ok();
    filter_ = true;
    if (format_ == TraceFormat::kFioV2 || format_ == TraceFormat::kFioV3) {
      filter_name_ = o.device_id;
      return Status::Ok();
    }
    bool ok = format_ == TraceFormat::kBlkparse ? ParseBlkDevice(o.device_id, &filter_dev_)
                                                : ParseU64(o.device_id, &filter_dev_);
    if (!ok) {
      return Status::Invalid("--device-id '" + o.device_id + "' is not a " +
                             (format_ == TraceFormat::kBlkparse ? "device (MAJ,MIN)" : "number") +
                             " (" + TraceFormatName(format_) + " traces number their devices)");
    }
    return Status::Ok();
  }

  Result<bool> Next(TraceRecord* r) override {
    if (format_ == TraceFormat::kBlkparse) return NextBlkparse(r);
    std::string_view line;
    std::string why;
    for (;;) {
      SSDLAB_ASSIGN_OR_RETURN(bool more, lr_.Next(&line));
      if (!more) return false;
      LineResult res = ParseLine(line, r, &why);
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

 private:
  bool MatchesFilter(const TraceRecord& r) const {
    if (!filter_name_.empty()) return r.device == filter_fio_index_;
    return r.device == filter_dev_;
  }

  LineResult ParseLine(std::string_view line, TraceRecord* r, std::string* why) {
    std::string_view t = Trim(line);
    if (t.empty() || t.front() == '#') {
      ++ignored_;
      return LineResult::kIgnore;
    }
    // The first line with content: the fio header, or a CSV header.
    const bool first = !seen_content_;
    seen_content_ = true;
    switch (format_) {
      case TraceFormat::kFioV2:
      case TraceFormat::kFioV3:
        return ParseFio(t, first, r, why);
      case TraceFormat::kMsr:
        return ParseMsr(t, first, r, why);
      case TraceFormat::kAlibaba:
        return ParseAlibaba(t, first, r, why);
      case TraceFormat::kTencent:
        return ParseTencent(t, first, r, why);
      case TraceFormat::kSpc:
        return ParseSpc(t, first, r, why);
      default:
        *why = "internal: not a text format";
        return LineResult::kBad;
    }
  }

  // A first line whose first field is not a number is a header.
  LineResult Header(std::string_view first_field) {
    ++ignored_;
    (void)first_field;
    return LineResult::kIgnore;
  }

  LineResult ParseFio(std::string_view t, bool first, TraceRecord* r, std::string* why) {
    if (first) {
      const char* want =
          format_ == TraceFormat::kFioV2 ? "fio version 2 iolog" : "fio version 3 iolog";
      if (t == "fio version 3 iolog") format_ = TraceFormat::kFioV3;
      if (t == "fio version 2 iolog") format_ = TraceFormat::kFioV2;
      if (t.rfind("fio version ", 0) == 0) {
        ++ignored_;
        return LineResult::kIgnore;
      }
      *why = std::string("not a fio iolog (the first line should be \"") + want + "\")";
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
    r->offset_bytes = off;
    r->bytes = static_cast<uint32_t>(len);
    if (!EndFits(*r)) {
      *why = Overflows("offset", tok[i + 2], "bytes", kEndOffset);
      return LineResult::kBad;
    }
    r->dir = dir;
    r->device = FioIndex(name);
    r->response_ns = -1;
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

  static bool ReadWrite(std::string_view s, Direction* d) {
    s = Trim(s);
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

  // Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime (100-ns FILETIME ticks).
  LineResult ParseMsr(std::string_view t, bool first, TraceRecord* r, std::string* why) {
    std::string_view f[8];
    size_t n = Split(t, ',', f, 8);
    if (first && !IsNumber(f[0])) return Header(f[0]);
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
    r->offset_bytes = off;
    r->bytes = static_cast<uint32_t>(size);
    if (!EndFits(*r)) {
      *why = Overflows("Offset", f[4], "bytes", kEndOffset);
      return LineResult::kBad;
    }
    r->device = disk;
    r->response_ns = static_cast<int64_t>(rt_ns);
    return LineResult::kRecord;
  }

  // device_id,opcode,offset,length,timestamp (us).
  LineResult ParseAlibaba(std::string_view t, bool first, TraceRecord* r, std::string* why) {
    std::string_view f[6];
    size_t n = Split(t, ',', f, 6);
    if (first && !IsNumber(f[0])) return Header(f[0]);
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
    r->offset_bytes = off;
    r->bytes = static_cast<uint32_t>(len);
    if (!EndFits(*r)) {
      *why = Overflows("offset", f[2], "bytes", kEndOffset);
      return LineResult::kBad;
    }
    r->device = dev;
    r->response_ns = -1;
    return LineResult::kRecord;
  }

  // Timestamp (s),Offset (sectors),Size (sectors),IOType (0 read, 1 write),VolumeID.
  LineResult ParseTencent(std::string_view t, bool first, TraceRecord* r, std::string* why) {
    std::string_view f[6];
    size_t n = Split(t, ',', f, 6);
    if (first && !IsNumber(f[0])) return Header(f[0]);
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
    if (!Scaled(off, 512, &r->offset_bytes)) {
      *why = Overflows("Offset", f[1], "512-B sectors", kByteOffset);
      return LineResult::kBad;
    }
    r->bytes = static_cast<uint32_t>(size * 512);
    if (!EndFits(*r)) {
      *why = Overflows("Offset", f[1], "512-B sectors", kEndOffset);
      return LineResult::kBad;
    }
    r->dir = type == 0 ? Direction::kRead : Direction::kWrite;
    r->device = vol;
    r->response_ns = -1;
    return LineResult::kRecord;
  }

  // ASU,LBA (512-B sectors),Size (bytes),Opcode (r|w),Timestamp (s)[,...].
  LineResult ParseSpc(std::string_view t, bool first, TraceRecord* r, std::string* why) {
    std::string_view f[6];
    size_t n = Split(t, ',', f, 6);
    if (first && !IsNumber(f[0])) return Header(f[0]);
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
    if (!Scaled(lba, 512, &r->offset_bytes)) {
      *why = Overflows("LBA", f[1], "512-B sectors", kByteOffset);
      return LineResult::kBad;
    }
    r->bytes = static_cast<uint32_t>(size);
    if (!EndFits(*r)) {
      *why = Overflows("LBA", f[1], "512-B sectors", kEndOffset);
      return LineResult::kBad;
    }
    r->device = asu;
    r->response_ns = -1;
    return LineResult::kRecord;
  }

  // blkparse default output: "8,0  3  1  0.000000000  697  Q  W 223490 + 8 [proc]".
  Result<bool> NextBlkparse(TraceRecord* r) {
    if (match_.Pop(r, false)) return true;
    std::string_view line;
    for (;;) {
      SSDLAB_ASSIGN_OR_RETURN(bool more, lr_.Next(&line));
      if (!more) return match_.Pop(r, true);
      std::string_view tok[10];
      size_t n = Tokens(line, tok, 10);
      if (n == 0 || summary_) {
        ++ignored_;
        continue;
      }
      uint64_t dev;
      if (!ParseBlkDevice(tok[0], &dev) || tok[0].find(',') == std::string_view::npos) {
        if (tok[0].rfind("CPU", 0) == 0 || tok[0] == "Total") {
          summary_ = true;  // blkparse's closing statistics
          ++ignored_;
          continue;
        }
        SSDLAB_RETURN_IF_ERROR(
            Bad(Where(path_, lr_.line_number()), "expected \"MAJ,MIN CPU SEQ TIME PID ACTION\""));
        continue;
      }
      uint64_t time_ns;
      bool time_overflow = false;
      if (n < 6 || !ParseSecondsNs(tok[3], &time_ns, &time_overflow)) {
        SSDLAB_RETURN_IF_ERROR(Bad(Where(path_, lr_.line_number()),
                                   time_overflow ? Overflows("time", tok[3], "s", kTimeNs)
                                                 : "expected a time in seconds in field 4"));
        continue;
      }
      std::string_view act = tok[5];
      const bool is_c = act == "C";
      const bool is_io = act == (event_issue_ ? "D" : "Q");
      const bool is_d = !event_issue_ && act == "D";
      if (!is_c && !is_io && !is_d) {
        ++ignored_;
        continue;
      }
      uint64_t sector = 0, nsect = 0;
      if (n < 10 || tok[8] != "+" || !ParseU64(tok[7], &sector) || !ParseU64(tok[9], &nsect)) {
        ++ignored_;  // no sector range: flushes, barriers
        continue;
      }
      if (is_c) {
        match_.Complete(dev, sector, time_ns);
        continue;
      }
      if (is_d) {
        match_.Issue(dev, sector, time_ns);
        continue;
      }
      std::string_view rwbs = tok[6];
      TraceRecord rec;
      if (rwbs.find('D') != std::string_view::npos) {
        rec.dir = Direction::kTrim;
      } else if (rwbs.find('W') != std::string_view::npos) {
        rec.dir = Direction::kWrite;
      } else if (rwbs.find('R') != std::string_view::npos) {
        rec.dir = Direction::kRead;
      } else {
        ++ignored_;
        continue;
      }
      if (nsect == 0 || nsect > UINT32_MAX / 512) {
        ++ignored_;
        continue;
      }
      if (filter_ && dev != filter_dev_) {
        ++filtered_;
        continue;
      }
      rec.time_ns = time_ns;
      rec.bytes = static_cast<uint32_t>(nsect * 512);
      if (!Scaled(sector, 512, &rec.offset_bytes) || !EndFits(rec)) {
        SSDLAB_RETURN_IF_ERROR(Bad(Where(path_, lr_.line_number()),
                                   Overflows("sector", tok[7], "512-B sectors", kEndOffset)));
        continue;
      }
      rec.device = dev;
      match_.Add(rec, sector);
      if (match_.Pop(r, false)) return true;
    }
  }

 public:
  bool event_issue_ = false;

 private:
  LineReader lr_;
  std::string path_;
  uint64_t clock_ns_ = 0;  // fio v2: sum of waits
  std::vector<std::string> fio_names_;
  bool filter_ = false;
  uint64_t filter_dev_ = 0;
  std::string filter_name_;
  uint64_t filter_fio_index_ = UINT64_MAX;
  bool summary_ = false;
  bool seen_content_ = false;
  CompletionMatcher match_;
};

// ---- blktrace binary -----------------------------------------------------------------------

constexpr uint32_t kBlkMagic = BLK_IO_TRACE_MAGIC;

uint32_t Swap32(uint32_t v) { return __builtin_bswap32(v); }
uint64_t Swap64(uint64_t v) { return __builtin_bswap64(v); }
uint16_t Swap16(uint16_t v) { return __builtin_bswap16(v); }

// One per-CPU file: its events in file order.
struct CpuFile {
  std::unique_ptr<ByteStream> in;
  bool swap = false;
  bool known_endian = false;
  blk_io_trace cur{};  // current event (host byte order)
  uint64_t at = 0;     // its byte offset in the (decompressed) file
  bool have = false;
};

class BlktraceReader : public TraceReader {
 public:
  // `first`: the stream of paths[0] when already open (null: opened here).
  Status Init(std::vector<std::string> paths, const TraceOptions& o,
              std::unique_ptr<ByteStream> first = nullptr) {
    format_ = TraceFormat::kBlktrace;
    files_ = paths;
    skip_bad_ = o.skip_bad;
    event_ = o.event == BlkEvent::kIssue ? __BLK_TA_ISSUE : __BLK_TA_QUEUE;
    if (!o.device_id.empty()) {
      if (!ParseBlkDevice(o.device_id, &filter_dev_)) {
        return Status::Invalid("--device-id '" + o.device_id +
                               "' is not a device (MAJ,MIN or MAJ:MIN)");
      }
      filter_ = true;
    }
    for (const auto& p : paths) {
      std::unique_ptr<ByteStream> in = std::move(first);
      if (!in) {
        SSDLAB_ASSIGN_OR_RETURN(in, ByteStream::Open(p));
      }
      CpuFile c;
      c.in = std::move(in);
      cpus_.push_back(std::move(c));
    }
    for (size_t i = 0; i < cpus_.size(); ++i) {
      SSDLAB_RETURN_IF_ERROR(Advance(i));
      if (cpus_[i].have) heap_.push({cpus_[i].cur.time, i});
    }
    return Status::Ok();
  }

  Result<bool> Next(TraceRecord* r) override {
    if (match_.Pop(r, false)) return true;
    while (!heap_.empty()) {
      auto [t, i] = heap_.top();
      heap_.pop();
      const blk_io_trace e = cpus_[i].cur;
      const uint64_t at = cpus_[i].at;
      SSDLAB_RETURN_IF_ERROR(Advance(i));
      if (cpus_[i].have) heap_.push({cpus_[i].cur.time, i});
      SSDLAB_RETURN_IF_ERROR(Handle(e, i, at));
      if (match_.Pop(r, false)) return true;
    }
    return match_.Pop(r, true);
  }

 private:
  // Takes event e, read from file i at byte `at`; an I/O whose sector overflows 64-bit byte
  // offsets is a malformed record.
  Status Handle(const blk_io_trace& e, size_t i, uint64_t at) {
    const uint32_t act = e.action & 0xffff;
    const uint32_t cat = e.action >> BLK_TC_SHIFT;
    if ((cat & BLK_TC_NOTIFY) || act == __BLK_TA_DRV_DATA) {
      ++ignored_;
      return Status::Ok();
    }
    if (act == __BLK_TA_COMPLETE) {
      match_.Complete(e.device, e.sector, e.time);
      return Status::Ok();
    }
    if (act == __BLK_TA_ISSUE && event_ == __BLK_TA_QUEUE) {
      match_.Issue(e.device, e.sector, e.time);
      return Status::Ok();
    }
    if (act != event_ || e.bytes == 0) {
      ++ignored_;
      return Status::Ok();
    }
    if (filter_ && e.device != filter_dev_) {
      ++filtered_;
      return Status::Ok();
    }
    TraceRecord rec;
    rec.time_ns = e.time;
    rec.bytes = e.bytes;
    if (!Scaled(e.sector, 512, &rec.offset_bytes) || !EndFits(rec)) {
      return Bad(files_[i] + ": byte " + std::to_string(at),
                 Overflows("sector", std::to_string(e.sector), "512-B sectors", kEndOffset));
    }
    rec.dir = (cat & BLK_TC_DISCARD) ? Direction::kTrim
              : (cat & BLK_TC_WRITE) ? Direction::kWrite
                                     : Direction::kRead;
    rec.device = e.device;
    match_.Add(rec, e.sector);
    return Status::Ok();
  }

  // Reads the next event of file i into cpus_[i].cur (have = false at its end).
  Status Advance(size_t i) {
    CpuFile& c = cpus_[i];
    for (;;) {
      c.have = false;
      SSDLAB_ASSIGN_OR_RETURN(size_t n, c.in->Ensure(sizeof(blk_io_trace)));
      if (n == 0) return Status::Ok();
      const uint64_t at = c.in->position();
      if (n < sizeof(blk_io_trace)) {
        c.in->Consume(n);
        return Bad(c.in->path() + ": byte " + std::to_string(at),
                   "truncated record (" + std::to_string(n) + " of " +
                       std::to_string(sizeof(blk_io_trace)) + " bytes)");
      }
      std::memcpy(&c.cur, c.in->data(), sizeof(blk_io_trace));
      c.at = at;
      if (!c.known_endian) {
        c.swap = (c.cur.magic & 0xffffff00) != kBlkMagic &&
                 (Swap32(c.cur.magic) & 0xffffff00) == kBlkMagic;
        c.known_endian = true;
      }
      if (c.swap) {
        blk_io_trace& t = c.cur;
        t.magic = Swap32(t.magic);
        t.sequence = Swap32(t.sequence);
        t.time = Swap64(t.time);
        t.sector = Swap64(t.sector);
        t.bytes = Swap32(t.bytes);
        t.action = Swap32(t.action);
        t.pid = Swap32(t.pid);
        t.device = Swap32(t.device);
        t.cpu = Swap32(t.cpu);
        t.error = Swap16(t.error);
        t.pdu_len = Swap16(t.pdu_len);
      }
      if ((c.cur.magic & 0xffffff00) != kBlkMagic) {
        // Lost framing: nothing after this point can be trusted.
        c.in->Consume(n);
        while (true) {
          SSDLAB_ASSIGN_OR_RETURN(size_t m, c.in->Ensure(ByteStream::kMaxWant));
          if (m == 0) break;
          c.in->Consume(m);
        }
        return Bad(c.in->path() + ": byte " + std::to_string(at),
                   "not a blktrace record (bad magic); the rest of this file is skipped");
      }
      const size_t total = sizeof(blk_io_trace) + c.cur.pdu_len;
      SSDLAB_ASSIGN_OR_RETURN(size_t have, c.in->Ensure(total));
      if (have < total) {
        c.in->Consume(have);
        return Bad(c.in->path() + ": byte " + std::to_string(at),
                   "truncated record (payload of " + std::to_string(c.cur.pdu_len) + " bytes)");
      }
      c.in->Consume(total);
      c.have = true;
      return Status::Ok();
    }
  }

  struct HeapItem {
    uint64_t t;
    size_t i;
    bool operator>(const HeapItem& o) const { return t != o.t ? t > o.t : i > o.i; }
  };
  std::vector<CpuFile> cpus_;
  std::priority_queue<HeapItem, std::vector<HeapItem>, std::greater<HeapItem>> heap_;
  uint32_t event_ = __BLK_TA_QUEUE;
  bool filter_ = false;
  uint64_t filter_dev_ = 0;
  CompletionMatcher match_;
};

// ---- detection and file sets ---------------------------------------------------------------

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

// NAME.blktrace.N[.gz|.zst]: the per-CPU files of NAME, sorted by N. Empty when `path` is not
// of a blktrace set.
std::vector<std::string> BlktraceSet(const std::string& path) {
  namespace fs = std::filesystem;
  static const std::regex kName(R"((.*)\.blktrace\.(\d+)(\.gz|\.zst|\.zstd)?)");
  fs::path p(path);
  std::string base;
  std::smatch m;
  const std::string fname = p.filename().string();
  if (std::regex_match(fname, m, kName)) {
    base = m[1].str();
  } else if (!Exists(path) && (Exists(path + ".blktrace.0") || Exists(path + ".blktrace.0.zst") ||
                               Exists(path + ".blktrace.0.gz"))) {
    base = fname;
  } else {
    return {};
  }
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::vector<std::pair<uint64_t, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (std::regex_match(n, m, kName) && m[1].str() == base) {
      found.emplace_back(std::stoull(m[2].str()), (p.parent_path() / n).string());
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

bool IsBlkMagic(const char* d, size_t n) {
  if (n < 4) return false;
  uint32_t m;
  std::memcpy(&m, d, 4);
  return (m & 0xffffff00) == kBlkMagic || (Swap32(m) & 0xffffff00) == kBlkMagic;
}

// The format of the stream `in` of `path`, from its first 64 KiB, which stay buffered (nothing
// is consumed): the reader then reads the same stream from its start, so a pipe is read once.
Result<TraceFormat> DetectFromStream(ByteStream& in, const std::string& path) {
  SSDLAB_ASSIGN_OR_RETURN(size_t n, in.Ensure(64 * 1024));
  if (n == 0) return Status::Invalid("trace " + path + " is empty");
  if (IsBlkMagic(in.data(), n)) return TraceFormat::kBlktrace;
  std::string_view rest(in.data(), n);
  for (int i = 0; i < 8 && !rest.empty(); ++i) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view t = Trim(line);
    if (t.empty() || t.front() == '#') continue;
    if (t == "fio version 2 iolog") return TraceFormat::kFioV2;
    if (t == "fio version 3 iolog") return TraceFormat::kFioV3;
    std::string_view f[8];
    if (t.find(',') != std::string_view::npos) {
      std::string_view tok[10];
      size_t nt = Tokens(t, tok, 10);
      uint64_t dummy;
      if (nt >= 6 && tok[0].find(',') != std::string_view::npos && ParseBlkDevice(tok[0], &dummy) &&
          tok[3].find('.') != std::string_view::npos) {
        return TraceFormat::kBlkparse;
      }
      size_t nf = Split(t, ',', f, 8);
      if (!IsNumber(f[0])) continue;  // a header line
      if (nf >= 7 && !IsNumber(f[1])) return TraceFormat::kMsr;
      if (nf >= 5) {
        std::string_view op1 = Trim(f[1]), op3 = Trim(f[3]);
        auto letter = [](std::string_view s) {
          return s.size() == 1 && std::strchr("RrWw", s[0]) != nullptr;
        };
        if (letter(op1)) return TraceFormat::kAlibaba;
        if (letter(op3)) return TraceFormat::kSpc;
        if (IsNumber(f[1]) && IsNumber(f[2]) && (op3 == "0" || op3 == "1") && IsNumber(f[4]))
          return TraceFormat::kTencent;
      }
    }
    break;
  }
  return Status::Invalid("cannot tell the format of trace " + path + "; give --format (" +
                         TraceFormatNames() + ")");
}

}  // namespace

std::vector<std::string> TraceFiles(const std::string& path) {
  std::vector<std::string> set = BlktraceSet(path);
  return set.empty() ? std::vector<std::string>{path} : set;
}

Result<TraceFormat> DetectTraceFormat(const std::string& path) {
  std::vector<std::string> set = BlktraceSet(path);
  if (!set.empty()) return TraceFormat::kBlktrace;
  SSDLAB_ASSIGN_OR_RETURN(auto in, ByteStream::Open(path));
  return DetectFromStream(*in, path);
}

bool CanReread(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
}

Result<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path, const TraceOptions& o) {
  TraceFormat f = o.format;
  std::vector<std::string> set = BlktraceSet(path);
  // A file is opened once: the format is detected from the buffered start of the stream the
  // reader then reads.
  std::unique_ptr<ByteStream> in;
  if (f == TraceFormat::kAuto && !set.empty()) f = TraceFormat::kBlktrace;
  if (f != TraceFormat::kBlktrace || set.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(in, ByteStream::Open(path));
    if (f == TraceFormat::kAuto) {
      SSDLAB_ASSIGN_OR_RETURN(f, DetectFromStream(*in, path));
    }
  }
  if (f == TraceFormat::kBlktrace) {
    auto r = std::make_unique<BlktraceReader>();
    if (set.empty()) set = {path};
    SSDLAB_RETURN_IF_ERROR(r->Init(set, o, std::move(in)));
    return std::unique_ptr<TraceReader>(std::move(r));
  }
  auto r = std::make_unique<TextReader>(std::move(in), f, o);
  r->event_issue_ = o.event == BlkEvent::kIssue;
  SSDLAB_RETURN_IF_ERROR(r->Init(o));
  return std::unique_ptr<TraceReader>(std::move(r));
}

}  // namespace ssdlab::trace
