// A trace as the request source of a phase (WorkloadSpec::source): records become requests,
// mapped onto the target's active range, aligned, split where larger than the largest request,
// and (for timed replay) scheduled at their trace time, optionally compressed, over --loop
// passes. One reader is open at a time: constant memory whatever the trace's size.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "stats/histogram.h"
#include "trace/trace.h"
#include "workload/request_source.h"

namespace ssdlab::trace {

enum class Timing : uint8_t { kOriginal, kScale, kAfap };
enum class Remap : uint8_t { kNone, kModulo, kScale };
const char* TimingName(Timing t);  // "original", "scale", "afap"
const char* RemapName(Remap r);    // "none", "modulo", "scale"
// "original", "afap" or "scale:X" (X > 0: X times faster). Errors name --timing.
Status ParseTiming(const std::string& text, Timing* timing, double* scale);
Result<Remap> ParseRemap(const std::string& text);

struct ReplayOptions {
  Timing timing = Timing::kOriginal;
  double speedup = 1;  // kScale: trace time is divided by this
  Remap remap = Remap::kNone;
  uint64_t range_begin_bytes = 0;  // the target's active range [begin, end)
  uint64_t range_end_bytes = 0;
  uint32_t align_bytes = 512;           // offsets rounded down, ends up, to this
  uint32_t max_io_bytes = 1024 * 1024;  // larger records are split into pieces of this
  uint64_t loops = 1;                   // passes over the trace
  // Remap::kScale: the end of the highest record of the trace (offset + bytes), from a first
  // pass; offsets are multiplied by (range size / this).
  uint64_t trace_end_bytes = 0;
};

// Opens the trace again for each pass.
using TraceOpener = std::function<Result<std::unique_ptr<TraceReader>>()>;

class TraceRequestSource : public RequestSource {
 public:
  TraceRequestSource(TraceOpener open, const ReplayOptions& o);
  // Opens the first pass. Errors are OpenTrace's.
  Status Start();

  size_t Fill(SourcedRequest* out, size_t n) override;
  bool timed() const override { return opt_.timing != Timing::kAfap; }

  // The first error met while reading (the source then ends early), or Ok.
  Status status() const;
  struct Counts {
    uint64_t records = 0;        // trace records replayed (all passes)
    uint64_t requests = 0;       // requests produced (records plus split pieces)
    uint64_t bytes = 0;          // bytes requested (after alignment)
    uint64_t split = 0;          // records larger than max_io_bytes
    uint64_t reordered = 0;      // records earlier than their predecessor (scheduled with it)
    uint64_t remapped = 0;       // records whose offset was changed by --remap
    uint64_t passes = 0;         // passes started
    uint64_t skipped = 0;        // malformed, tolerated (all passes)
    uint64_t filtered = 0;       // other devices
    uint64_t trace_span_ns = 0;  // first to last record of a pass, trace time
    std::array<Histogram, 3> recorded;  // recorded response times by direction, ns
  };
  // Ends the replay: folds the open pass's skipped and filtered counts in (call once the
  // phase has ended, e.g. after an interruption).
  void Close();
  // Valid once the phase has ended (no concurrent Fill()).
  const Counts& counts() const { return counts_; }
  TraceFormat format() const { return format_; }

 private:
  // The next request, or false at the end (or on error: status_).
  bool NextLocked(SourcedRequest* out);
  bool NextRecord();
  TraceOpener open_;
  ReplayOptions opt_;
  mutable std::mutex mu_;
  std::unique_ptr<TraceReader> reader_;
  Status status_;
  bool done_ = false;
  TraceFormat format_ = TraceFormat::kAuto;
  Counts counts_;
  // The record being split.
  TraceRecord cur_;
  uint64_t cur_done_bytes_ = 0;
  bool have_cur_ = false;
  uint64_t cur_sched_ = 0;
  // Timing.
  bool have_t0_ = false;
  uint64_t t0_ = 0, last_t_ = 0;
  uint64_t pass_base_ns_ = 0;  // scheduled time of this pass's origin
  uint64_t last_sched_ = 0;
  uint64_t pass_records_ = 0;
};

}  // namespace ssdlab::trace
