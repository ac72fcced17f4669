#include "trace/replay_source.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/units.h"

namespace ssdlab::trace {

const char* TimingName(Timing t) {
  switch (t) {
    case Timing::kOriginal:
      return "original";
    case Timing::kScale:
      return "scale";
    case Timing::kAfap:
      return "afap";
  }
  return "?";
}

const char* RemapName(Remap r) {
  switch (r) {
    case Remap::kNone:
      return "none";
    case Remap::kModulo:
      return "modulo";
    case Remap::kScale:
      return "scale";
  }
  return "?";
}

Status ParseTiming(const std::string& text, Timing* timing, double* scale) {
  *scale = 1;
  if (text == "original") {
    *timing = Timing::kOriginal;
    return Status::Ok();
  }
  if (text == "afap") {
    *timing = Timing::kAfap;
    return Status::Ok();
  }
  if (text.rfind("scale:", 0) == 0) {
    const std::string factor = text.substr(6);
    auto x = ParseDouble(factor);
    char* end = nullptr;
    const double v = std::strtod(factor.c_str(), &end);  // +-HUGE_VAL beyond a double
    const bool beyond_double = end != factor.c_str() && *end == '\0' && std::isinf(v);
    if (!x.ok() && !beyond_double)
      return Status::Invalid("--timing " + text + ": the factor is not a number");
    if (!x.ok() || !(x.value() > 0) || x.value() > 1e9) {
      return Status::Invalid("--timing " + text +
                             ": the factor is out of range (above 0, at most 1e9)");
    }
    *timing = Timing::kScale;
    *scale = x.value();
    return Status::Ok();
  }
  return Status::Invalid("--timing: unknown mode '" + text + "' (original, scale:X, afap)");
}

Result<Remap> ParseRemap(const std::string& text) {
  if (text == "none") return Remap::kNone;
  if (text == "modulo") return Remap::kModulo;
  if (text == "scale") return Remap::kScale;
  return Status::Invalid("--remap: unknown mode '" + text + "' (none, modulo, scale)");
}

TraceRequestSource::TraceRequestSource(TraceOpener open, const ReplayOptions& o)
    : open_(std::move(open)), opt_(o) {}

Status TraceRequestSource::Start() {
  SSDLAB_ASSIGN_OR_RETURN(reader_, open_());
  format_ = reader_->format();
  counts_.passes = 1;
  return Status::Ok();
}

Status TraceRequestSource::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void TraceRequestSource::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (reader_) {
    counts_.skipped += reader_->skipped();
    counts_.filtered += reader_->filtered();
    reader_.reset();
  }
  done_ = true;
}

size_t TraceRequestSource::Fill(SourcedRequest* out, size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t i = 0;
  while (i < n && NextLocked(&out[i])) ++i;
  return i;
}

// Reads the next record into cur_ (opening the next pass at the end of one).
bool TraceRequestSource::NextRecord() {
  for (;;) {
    if (done_ || !reader_) return false;
    auto more = reader_->Next(&cur_);
    if (!more.ok()) {
      status_ = more.status();
      done_ = true;
      return false;
    }
    if (more.value()) break;
    counts_.skipped += reader_->skipped();
    counts_.filtered += reader_->filtered();
    reader_.reset();
    if (pass_records_ == 0 || counts_.passes >= opt_.loops) {
      done_ = true;
      return false;
    }
    // The next pass starts one mean inter-arrival gap after this one's last record.
    const uint64_t span = last_t_ - t0_;
    counts_.trace_span_ns = span;
    const double gap = pass_records_ > 1 ? static_cast<double>(span) / (pass_records_ - 1) : 0;
    const double speed = opt_.timing == Timing::kScale ? opt_.speedup : 1;
    // (Saturates at kMaxSchedNs: every record of the pass is then refused below.)
    const double base =
        static_cast<double>(pass_base_ns_) + (static_cast<double>(span) + gap) / speed;
    pass_base_ns_ =
        base < static_cast<double>(kMaxSchedNs) ? static_cast<uint64_t>(base) : kMaxSchedNs;
    pass_records_ = 0;
    auto r = open_();
    if (!r.ok()) {
      status_ = r.status();
      done_ = true;
      return false;
    }
    reader_ = std::move(r).value();
    ++counts_.passes;
  }
  if (!have_t0_) {
    have_t0_ = true;
    t0_ = cur_.time_ns;
  }
  if (counts_.passes == 1 && cur_.time_ns > last_t_) last_t_ = cur_.time_ns;
  if (counts_.passes == 1) counts_.trace_span_ns = last_t_ - t0_;
  ++pass_records_;
  ++counts_.records;
  if (cur_.response_ns >= 0) {
    counts_.recorded[static_cast<size_t>(cur_.dir)].Record(static_cast<uint64_t>(cur_.response_ns));
  }
  if (cur_.bytes > opt_.max_io_bytes) ++counts_.split;
  // Scheduled time: trace time since the first record, compressed, never before the last;
  // below kMaxSchedNs.
  // (Exact in integers unless scaled.)
  uint64_t rel = cur_.time_ns >= t0_ && timed() ? cur_.time_ns - t0_ : 0;
  const uint64_t room = kMaxSchedNs - pass_base_ns_;
  bool fits = rel < room;
  if (opt_.timing == Timing::kScale) {
    const double scaled = static_cast<double>(rel) / opt_.speedup;
    fits = scaled < static_cast<double>(room);
    if (fits) rel = static_cast<uint64_t>(scaled);
  }
  if (!fits) {
    status_ = Status::Invalid(
        "trace record " + std::to_string(counts_.records) + " of " + reader_->files().front() +
        " (time " + std::to_string(cur_.time_ns) + " ns, pass " + std::to_string(counts_.passes) +
        ") would be due more than 2^62 ns (146 years) after the replay's start; the trace's "
        "times are out of range");
    done_ = true;
    return false;
  }
  uint64_t sched = pass_base_ns_ + rel;
  if (sched < last_sched_) {
    ++counts_.reordered;
    sched = last_sched_;
  }
  last_sched_ = sched;
  cur_sched_ = sched;
  cur_done_bytes_ = 0;
  have_cur_ = true;
  return true;
}

bool TraceRequestSource::NextLocked(SourcedRequest* out) {
  if (!have_cur_ && !NextRecord()) return false;
  const uint64_t align = opt_.align_bytes ? opt_.align_bytes : 1;
  const uint64_t range = opt_.range_end_bytes - opt_.range_begin_bytes;
  // (The reader guarantees offset + bytes fits 64 bits; the aligned length is computed from
  // the offset's remainder so that rounding up cannot overflow either.)
  uint64_t off = cur_.offset_bytes + cur_done_bytes_;
  uint64_t len = std::min<uint64_t>(cur_.bytes - cur_done_bytes_, opt_.max_io_bytes);
  cur_done_bytes_ += len;
  if (cur_done_bytes_ >= cur_.bytes) have_cur_ = false;
  const uint64_t begin = off / align * align;
  const uint64_t aligned_len = (off - begin + len + align - 1) / align * align;
  len = std::min(aligned_len, range / align * align);
  off = begin;
  // Whether [off, off + len) ends beyond the range.
  auto beyond = [&] { return off > range || len > range - off; };
  switch (opt_.remap) {
    case Remap::kNone:
      if (beyond()) {
        status_ =
            Status::Invalid("trace record " + std::to_string(counts_.records) + " (offset " +
                            std::to_string(cur_.offset_bytes) + ", " + std::to_string(cur_.bytes) +
                            " bytes) lies beyond the target's range of " + FormatBytes(range) +
                            "; use --remap modulo|scale or a larger --range");
        done_ = true;
        have_cur_ = false;
        return false;
      }
      break;
    case Remap::kModulo:
      if (beyond()) {
        off = off % range / align * align;
        if (beyond()) off = (range - len) / align * align;
        ++counts_.remapped;
      }
      break;
    case Remap::kScale: {
      const double f = opt_.trace_end_bytes > range
                           ? static_cast<double>(range) / static_cast<double>(opt_.trace_end_bytes)
                           : 1.0;
      if (f < 1.0) {
        off = static_cast<uint64_t>(static_cast<double>(off) * f) / align * align;
        ++counts_.remapped;
      }
      if (beyond()) off = (range - len) / align * align;
      break;
    }
  }
  out->req.offset = opt_.range_begin_bytes + off;
  out->req.bytes = static_cast<uint32_t>(len);
  out->req.dir = cur_.dir;
  out->sched_ns = cur_sched_;
  ++counts_.requests;
  counts_.bytes += len;
  return true;
}

}  // namespace ssdlab::trace
