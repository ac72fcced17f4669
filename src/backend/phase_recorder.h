// The bookkeeping every backend does for a phase, written once: the ramp and the measurement
// window (by time or by bytes), per-direction counts and latency histograms, the time series
// of fixed intervals, and the per-I/O log. Used by the real-time engine (one recorder per job
// thread, merged with MergeJobs) and the simulator (one recorder for all jobs).
//
// Time is the backend's clock in ns (monotonic wall time or virtual time); every time passed
// in is absolute on that clock and never decreases between calls. Not thread-safe.
//
// The window: the measured part starts when the ramp is over, at ramp_end (start + ramp_ns)
// once a request is offered at or after it, or at the offered request's time once ramp_bytes
// have been issued (the request that crosses the ramp's bytes is still ramp). It ends for new
// requests at start of measuring + runtime_ns, or once io_bytes have been issued measured
// (0 = no limit).
//
// The window's edge (one rule for every backend): the measured I/Os are those issued inside the
// window. When it ends by time, the backend issues nothing more and waits for the measured I/Os
// still in flight, up to kEdgeWaitNs of its clock after the window's end, and Record()s every
// completion: those done within the bound are counted with their true latency, those later are
// not counted but reported (EdgeStats: how many were in flight at the edge, the longest of them,
// how many were abandoned and the oldest one's age). Nothing is dropped silently.
//
// The fill (PhaseWindow::fill_ios): a closed loop that starts with its queue empty holds, at
// first, I/Os that have not waited behind others; a window opened then counts the queue's
// fill as if it were stationary and overstates IOPS and bandwidth (by about half a latency
// over the window: a 4 ms window of a 128-deep queue read 19% high, a 20 ms one of 1 MiB reads
// above the interface's limit). So a backend whose queue starts empty gives the number of its
// slots as fill_ios, and the window does not open before the first fill_ios I/Os issued (the
// fill) have all completed, failed ones too (the queue has turned over once; counting
// completions instead would end the fill early where some I/Os overtake others, read-ahead hits
// say): every I/O in flight at the measured start has then been issued into a loaded queue.
// Issued() says which I/Os are the fill's, and the backend hands each one's end to
// FillCompleted(). The fill is a ramp: its I/Os are not measured, those in flight at the start
// are counted by the window as a ramp's are (below), and it comes on top of ramp_ns /
// ramp_bytes (the window opens when both are over).
//
// The window's start edge: the ramp is not a window, so a ramp I/O that completes after the
// measured start is counted by the window, with its true latency (RampCompleted()). An I/O of the
// previous window of a continuous closed loop (the simulator's rounds of one workload) was
// counted by that window's end edge; here it only holds its slot until it completes
// (HeldCompleted()). Every I/O is counted by exactly one window.
//
// The measured length (the IOPS and bandwidth denominator, measured_ns()) of a window ended by
// time is its runtime plus the time its counted I/Os ran outside it, less the time the previous
// window's I/Os held slots inside it, each counted at the queue's depth: plus the mean time the
// counted edge I/Os ran past the end and the ramp's counted I/Os ran before the start, minus the
// mean time held slots stayed busy after the start. That is the time the counted I/O time would
// take at a full queue, so a closed loop obeys Little's law exactly where resubmission is
// instantaneous (IOPS x mean latency = the I/Os outstanding), and a stall at either edge is in
// the figures of exactly one window. A window ended by bytes, an interrupted one or one with
// nothing in flight at either edge (a rate-limited phase idle there) runs to MeasuredEnd(): the
// last counted completion or the window's end, the later.
//
// Interval i covers (i * L, (i + 1) * L] after the measured start, L the
// interval's length; a completion exactly on a boundary belongs to the interval that ends there.
// The last interval ends at the measured end; when it would be shorter than L / 2 it is merged
// into the one before (which then ends at the measured end, up to 1.5 L long), so no scrap of an
// interval is reported as a rate; a series of one interval keeps it whatever its length.
// The series is bounded: L starts at interval_ns, and whenever the series would exceed
// kMaxIntervals intervals L doubles, pairs of intervals merging into one (so a phase of any
// length, a gap of years in virtual time included, holds at most kMaxIntervals intervals of
// interval_ns * 2^k, closed in O(kMaxIntervals) work however long the gap).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "backend/backend.h"
#include "stats/phase_result.h"
#include "workload/request_source.h"

namespace ssdlab {

struct PhaseWindow {
  uint64_t ramp_ns = 0;
  uint64_t ramp_bytes = 0;
  uint64_t runtime_ns = 0;  // 0: no time limit
  uint64_t io_bytes = 0;    // 0: no byte limit
  uint64_t fill_ios = 0;    // the first ramp I/Os, all to complete before the window opens
};

// The fill a backend gives a phase whose queue starts empty, with `depth` slots per recorder:
// `depth` for a closed loop whose window is ended by time alone, else 0 (a window ended by
// bytes runs to its last completion, which no empty start biases; an open loop's queue, rate
// limited or a timed source's, is not full).
inline uint64_t FillIos(const WorkloadSpec& spec, uint32_t depth) {
  const bool open_loop = spec.source ? spec.source->timed() : spec.rate_iops > 0;
  return spec.runtime_ns && !spec.io_bytes && !open_loop ? depth : 0;
}

class PhaseRecorder {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr size_t kIoLogBatch = 4096;
  static constexpr uint64_t kMaxIntervals = 16384;
  // How long after a window's end by time its measured I/Os still in flight are waited for and
  // counted (10 s of the backend's clock; a completion later than that is abandoned: see above).
  static constexpr uint64_t kEdgeWaitNs = 10'000'000'000;

  // What a request offered at some time is: ramp, measured, or past the window.
  enum class Admit { kRamp, kMeasure, kStop };

  // `on_interval` (may be empty) sees each interval as it closes, the last partial one too
  // unless it is merged into the one before (then that one, already seen, grows; see above).
  // `io_log` (may be null) receives the measured I/Os in batches of kIoLogBatch.
  PhaseRecorder(uint64_t start_ns, const PhaseWindow& window, uint64_t interval_ns,
                IoLogSink* io_log = nullptr,
                std::function<void(const IntervalSample&)> on_interval = {})
      : window_(window),
        interval_ns_(interval_ns),
        io_log_sink_(io_log),
        on_interval_(std::move(on_interval)),
        ramp_end_ns_(window.ramp_ns ? start_ns + window.ramp_ns : kNever),
        io_limit_(window.io_bytes ? window.io_bytes : kNever) {
    if (io_log_sink_) io_log_.reserve(kIoLogBatch);
    if (!window.ramp_ns && !window.ramp_bytes && !window.fill_ios) Begin(start_ns);
  }
  PhaseRecorder(const PhaseRecorder&) = delete;
  PhaseRecorder& operator=(const PhaseRecorder&) = delete;

  // For a request about to be issued at t: starts measuring once the ramp is over and says
  // what the request is. kStop means the window is over (runtime reached: stopped_by_time();
  // or io_bytes issued); it stays over for every later t.
  [[gnu::always_inline]] Admit Open(uint64_t t) {
    if (!measuring_) {
      if (fill_done_ < window_.fill_ios) return Admit::kRamp;
      if (t >= ramp_end_ns_) {
        Begin(ramp_end_ns_);  // (a fill that ended after the ramp opened the window then)
      } else if (window_.ramp_bytes ? ramp_issued_bytes_ >= window_.ramp_bytes : !window_.ramp_ns) {
        Begin(t);
      } else {
        return Admit::kRamp;
      }
    }
    if (t >= end_ns_) {
      stopped_by_time_ = true;
      return Admit::kStop;
    }
    return measured_issued_bytes_ >= io_limit_ ? Admit::kStop : Admit::kMeasure;
  }
  // Counts the bytes of a request Open() admitted (kRamp or kMeasure). True when it is one of
  // the fill's: the backend then hands its end (success or failure) to FillCompleted().
  [[gnu::always_inline]] bool Issued(uint32_t bytes, bool measured) {
    (measured ? measured_issued_bytes_ : ramp_issued_bytes_) += bytes;
    if (fill_issued_ == window_.fill_ios) [[likely]]
      return false;
    ++fill_issued_;
    return true;
  }
  // One of the fill's I/Os ended at t_ns (before its RampCompleted(), if it succeeded). The
  // last of them opens the window, when the ramp is over too, at t_ns.
  void FillCompleted(uint64_t t_ns) {
    if (++fill_done_ == window_.fill_ios && t_ns >= ramp_end_ns_) Begin(t_ns);
  }

  // A measured request issued at issue_ns completed at t_ns (t_ns >= the measured start). A
  // backend hands in every measured completion, those after the window's end too (the edge
  // rule above decides whether it is counted). `lag_ns`: a timed source's request was
  // submitted that long after issue_ns (its scheduled time), added to the completion's
  // interval (IntervalSample::Dir::lag_sum_ns, lag_max_ns); 0 for any other.
  [[gnu::always_inline]] void Record(Direction dir, uint64_t offset, uint32_t bytes,
                                     uint64_t issue_ns, uint64_t t_ns, uint64_t lag_ns = 0) {
    const uint64_t lat = t_ns > issue_ns ? t_ns - issue_ns : 0;
    if (t_ns > end_ns_) [[unlikely]] {
      if (!AtEdge(issue_ns, t_ns, lat)) return;
    }
    const auto d = static_cast<size_t>(dir);
    DirectionStats& ds = dirs_[d];
    ++ds.ios;
    ds.bytes += bytes;
    ds.latency.Record(lat);
    if (t_ns > last_completion_ns_) last_completion_ns_ = t_ns;
    if (interval_ns_) {
      AdvanceTo(t_ns);
      IntervalSample::Dir& id = cur_.dirs[d];
      ++id.ios;
      id.bytes += bytes;
      id.lat_sum_ns += lat;
      if (lat > id.lat_max_ns) id.lat_max_ns = lat;
      id.lag_sum_ns += lag_ns;
      if (lag_ns > id.lag_max_ns) id.lag_max_ns = lag_ns;
    }
    if (io_log_sink_) {
      // (A backend can hand an I/O issued before this phase over to it: offset 0.)
      const uint64_t rel = issue_ns > measure_start_ns_ ? issue_ns - measure_start_ns_ : 0;
      io_log_.push_back(IoRecord{rel, offset, lat, bytes, dir});
      if (io_log_.size() == kIoLogBatch) FlushIoLog();
    }
  }

  // Closes the intervals that end before t (a backend that waits idle calls this so that the
  // series keeps time without completions).
  // (One comparison while t stays inside the open interval: its end is kept in next_close_ns_,
  // kNever when there is no series or before measuring.)
  [[gnu::always_inline]] void AdvanceTo(uint64_t t) {
    if (t > next_close_ns_) [[unlikely]]
      CloseIntervalsBefore(t - measure_start_ns_ - 1);
  }

  // A ramp I/O (issued before the measured start, not measured) completed at t_ns. Counted by
  // the window when that is after the measured start (a ramp by time opens the window at its end
  // even before the next Open()), its time before the start added to the measured length.
  [[gnu::always_inline]] void RampCompleted(Direction dir, uint64_t offset, uint32_t bytes,
                                            uint64_t issue_ns, uint64_t t_ns) {
    // (Inline only the test that a ramp I/O before the window has nothing to count.)
    if (!measuring_ && (t_ns <= ramp_end_ns_ || fill_done_ < window_.fill_ios)) return;
    CountRampCompleted(dir, offset, bytes, issue_ns, t_ns);
  }

 private:
  [[gnu::noinline]] void CountRampCompleted(Direction dir, uint64_t offset, uint32_t bytes,
                                            uint64_t issue_ns, uint64_t t_ns) {
    if (!measuring_ && t_ns > ramp_end_ns_ && fill_done_ >= window_.fill_ios) Begin(ramp_end_ns_);
    if (!measuring_ || t_ns <= measure_start_ns_) return;
    if (!Abandoned(t_ns)) {  // (an abandoned one is not counted, nor its time before the start)
      ++edge_.from_ramp;
      ramp_lead_ns_ += measure_start_ns_ - std::min(issue_ns, measure_start_ns_);
    }
    Record(dir, offset, bytes, issue_ns, t_ns);
  }

 public:
  // An I/O of the previous window (which counted it) completed at t_ns: its slot was held until
  // then (a slot held beyond the whole window held it for the runtime).
  void HeldCompleted(uint64_t t_ns) {
    const uint64_t start = measuring_ ? measure_start_ns_ : ramp_end_ns_;
    if (start == kNever || t_ns <= start) return;
    ++edge_.held;
    hold_ns_ += window_.runtime_ns ? std::min(t_ns - start, window_.runtime_ns) : t_ns - start;
  }

  // Where the phase's time line ends: the last counted completion, or the window's end when
  // the window ended by time and that is later (a rate-limited phase idle at its end). The
  // measured start when nothing was counted; kNever before measuring.
  uint64_t MeasuredEnd() const {
    if (!measuring_) return kNever;
    uint64_t end = std::max(measure_start_ns_, last_completion_ns_);
    if (stopped_by_time_) end = std::max(end, end_ns_);
    return end;
  }

  // Ends the phase at end_ns (normally MeasuredEnd()): the series ends there, its last
  // (partial) interval merged into the one before when shorter than half an interval; the
  // measured length is end_ns - the measured start, or by the edge rule above for a window
  // ended by time; the I/O log is flushed. Call once.
  void Finish(uint64_t end_ns) {
    FlushIoLog();
    if (!measuring_) return;
    const uint64_t series_ns = end_ns > measure_start_ns_ ? end_ns - measure_start_ns_ : 0;
    measured_ns_ = series_ns;
    const uint64_t edge_ios = edge_.in_flight - edge_.abandoned;
    // A window held throughout by the previous round's I/Os (a stall longer than it) issued
    // nothing: no I/O of its own and no measured time of its own (its time is in the previous
    // round's measured time, which counted those I/Os; the rounds' times partition the line).
    edge_.held_all =
        stopped_by_time_ && measured_issued_bytes_ == 0 && edge_.held > 0 && edge_.from_ramp == 0;
    // Slots busy at the measured start: the ramp's I/Os it counts and the held ones.
    const uint64_t start_edge_ios = edge_.from_ramp + edge_.held;
    if (edge_.held_all) {
      measured_ns_ = 0;
    } else if (stopped_by_time_ && end_ns >= end_ns_ && (edge_ios > 0 || start_edge_ios > 0)) {
      // A closed loop at its edges: I/Os in flight at the end or at the start.
      // (A fill's depth is known: the slot whose completion ended it starts the window afresh.)
      const double depth =
          static_cast<double>(std::max({edge_ios, start_edge_ios, window_.fill_ios}));
      const double outside_ns = static_cast<double>(edge_residual_ns_) +
                                static_cast<double>(ramp_lead_ns_) - static_cast<double>(hold_ns_);
      const double ns = static_cast<double>(end_ns_ - measure_start_ns_) + outside_ns / depth;
      measured_ns_ = ns < 1 ? 1 : static_cast<uint64_t>(std::llround(ns));
    }
    if (!interval_ns_ || !series_ns) return;
    CloseIntervalsBefore(series_ns - 1);
    cur_.t_begin_ns = cur_index_ * len_ns_;
    cur_.t_end_ns = series_ns;
    if (!intervals_.empty() && 2 * (cur_.t_end_ns - cur_.t_begin_ns) < len_ns_) {
      MergeIntoPrevious(intervals_, cur_);
      cur_ = IntervalSample{};
      return;
    }
    Emit();
  }

  // Moves the counts, histograms, series, edge and measured length into `r`.
  void MoveInto(PhaseResult& r) {
    for (size_t d = 0; d < dirs_.size(); ++d) r.dirs[d] = std::move(dirs_[d]);
    r.intervals = std::move(intervals_);
    r.measured_ns = measured_ns_;
    r.edge = edge_;
  }

  // Jobs run side by side, each with its own recorder (each Finish()ed): counts and histograms
  // add up bucket by bucket, the intervals of every job (relative to its own measured start)
  // merge into the intervals of the longest length any job reached (lengths are interval_ns
  // times powers of two, so each job's interval lies inside one of them), and the measured
  // length runs from the earliest measured start to the latest end of a job's measured length;
  // the edges add up
  // (the longest is the longest of all). The merged series follows the same tail rule as one
  // job's: every interval but the last ends on its boundary, and a last one shorter than half
  // an interval is merged into the one before.
  static void MergeJobs(const std::vector<const PhaseRecorder*>& jobs, PhaseResult& r) {
    uint64_t start = kNever, end = 0, len = 1, n = 0;
    for (const PhaseRecorder* j : jobs) {
      for (size_t d = 0; d < r.dirs.size(); ++d) r.dirs[d].Merge(j->dirs_[d]);
      r.edge.Merge(j->edge_);
      if (j->measuring_) {
        start = std::min(start, j->measure_start_ns_);
        end = std::max(end, j->measure_start_ns_ + j->measured_ns_);
      }
      len = std::max(len, j->len_ns_);
    }
    for (const PhaseRecorder* j : jobs) {
      if (!j->intervals_.empty()) n = std::max(n, j->intervals_.back().t_begin_ns / len + 1);
    }
    r.measured_ns = end > start && start != kNever ? end - start : 0;
    r.intervals.assign(n, IntervalSample{});
    for (const PhaseRecorder* j : jobs) {
      for (const IntervalSample& s : j->intervals_) {
        const uint64_t i = s.t_begin_ns / len;
        MergeInterval(r.intervals[i], s);
        r.intervals[i].t_begin_ns = i * len;
      }
    }
    for (size_t i = 0; i < r.intervals.size(); ++i) {
      r.intervals[i].t_begin_ns = i * len;
      if (i + 1 < r.intervals.size()) r.intervals[i].t_end_ns = (i + 1) * len;
    }
    if (r.intervals.size() > 1) {
      const IntervalSample& last = r.intervals.back();
      if (2 * (last.t_end_ns - last.t_begin_ns) < len) {
        const IntervalSample tail = last;
        r.intervals.pop_back();
        MergeIntoPrevious(r.intervals, tail);
      }
    }
  }
  // Adds the series' last (partial) interval `tail` to the last of `series`, which then ends
  // where `tail` ends. REQUIRES: !series.empty().
  static void MergeIntoPrevious(std::vector<IntervalSample>& series, const IntervalSample& tail) {
    IntervalSample& prev = series.back();
    prev.Merge(tail);
    prev.t_end_ns = std::max(prev.t_end_ns, tail.t_end_ns);
  }
  // Adds interval `s` of one job to `into` (the same interval of other jobs): counts add, the
  // span is the longest.
  static void MergeInterval(IntervalSample& into, const IntervalSample& s) {
    if (into.t_end_ns == 0) into.t_begin_ns = s.t_begin_ns;
    into.Merge(s);
    into.t_end_ns = std::max(into.t_end_ns, s.t_end_ns);
  }

  bool measuring() const { return measuring_; }
  bool stopped_by_time() const { return stopped_by_time_; }
  uint64_t measure_start_ns() const { return measuring_ ? measure_start_ns_ : kNever; }
  uint64_t end_ns() const { return end_ns_; }  // kNever without a runtime or before measuring
  uint64_t last_completion_ns() const { return last_completion_ns_; }  // 0: none measured
  uint64_t measured_ns() const { return measured_ns_; }  // after Finish(): see the edge rule
  const EdgeStats& edge() const { return edge_; }
  // The length of the series' intervals: interval_ns * 2^k (see kMaxIntervals).
  uint64_t interval_len_ns() const { return len_ns_; }
  const std::vector<IntervalSample>& intervals() const { return intervals_; }

 private:
  void Begin(uint64_t t) {
    measuring_ = true;
    measure_start_ns_ = t;
    SetNextClose();
    if (window_.runtime_ns) end_ns_ = t + window_.runtime_ns;
  }
  // Whether a completion at t_ns comes too long after the window's end to be counted.
  bool Abandoned(uint64_t t_ns) const { return t_ns > end_ns_ && t_ns - end_ns_ > kEdgeWaitNs; }
  // A measured completion at t_ns after the window's end (issued at issue_ns, latency lat):
  // counted at the edge (true) or, beyond the bound, abandoned (false: not to be counted).
  [[gnu::noinline]] bool AtEdge(uint64_t issue_ns, uint64_t t_ns, uint64_t lat) {
    ++edge_.in_flight;
    if (Abandoned(t_ns)) {
      ++edge_.abandoned;
      const uint64_t bound = end_ns_ + kEdgeWaitNs;
      edge_.abandoned_age_ns =
          std::max(edge_.abandoned_age_ns, bound > issue_ns ? bound - issue_ns : 0);
      return false;
    }
    edge_.longest_ns = std::max(edge_.longest_ns, lat);
    edge_residual_ns_ += t_ns - end_ns_;
    return true;
  }
  // Closes the intervals before the one holding `rel` ns after the measured start (coarsening
  // first while that one would lie beyond kMaxIntervals).
  void CloseIntervalsBefore(uint64_t rel) {
    while (rel / len_ns_ >= kMaxIntervals) Coarsen();
    const uint64_t index = rel / len_ns_;
    while (cur_index_ < index) {
      cur_.t_begin_ns = cur_index_ * len_ns_;
      cur_.t_end_ns = (cur_index_ + 1) * len_ns_;
      Emit();
      ++cur_index_;
    }
    SetNextClose();
  }
  // The end of the open interval cur_index_ in the clock's time (a completion after it closes
  // the interval): kNever without a series, or where it lies beyond the clock's range.
  void SetNextClose() {
    uint64_t rel_end = 0, end = 0;
    next_close_ns_ = interval_ns_ && measuring_ &&
                             !__builtin_mul_overflow(cur_index_ + 1, len_ns_, &rel_end) &&
                             !__builtin_add_overflow(measure_start_ns_, rel_end, &end)
                         ? end
                         : kNever;
  }
  // Doubles the interval length: closed intervals merge in pairs, and the open one takes in
  // its partner when that is closed already (an odd index).
  void Coarsen() {
    const size_t n = intervals_.size();  // == cur_index_
    size_t k = 0;
    for (size_t i = 0; i + 1 < n; i += 2, ++k) {
      IntervalSample m = intervals_[i];
      m.Merge(intervals_[i + 1]);
      m.t_end_ns = intervals_[i + 1].t_end_ns;
      intervals_[k] = m;
    }
    if (n % 2) cur_.Merge(intervals_[n - 1]);
    intervals_.resize(k);
    len_ns_ *= 2;
    cur_index_ /= 2;
    SetNextClose();
  }
  void Emit() {
    intervals_.push_back(cur_);
    if (on_interval_) on_interval_(cur_);
    cur_ = IntervalSample{};
  }
  void FlushIoLog() {
    if (io_log_sink_ && !io_log_.empty()) io_log_sink_->Write(io_log_.data(), io_log_.size());
    io_log_.clear();
  }

  const PhaseWindow window_;
  const uint64_t interval_ns_;
  IoLogSink* const io_log_sink_;
  const std::function<void(const IntervalSample&)> on_interval_;
  const uint64_t ramp_end_ns_;
  const uint64_t io_limit_;

  bool measuring_ = false;
  bool stopped_by_time_ = false;
  uint64_t measure_start_ns_ = 0;
  uint64_t end_ns_ = kNever;
  uint64_t ramp_issued_bytes_ = 0;
  uint64_t fill_issued_ = 0;  // of the fill's I/Os
  uint64_t fill_done_ = 0;    // of them ended
  uint64_t measured_issued_bytes_ = 0;
  uint64_t last_completion_ns_ = 0;
  uint64_t measured_ns_ = 0;
  EdgeStats edge_;
  uint64_t edge_residual_ns_ = 0;  // the counted edge I/Os' time past the window's end
  uint64_t ramp_lead_ns_ = 0;      // the counted ramp I/Os' time before the measured start
  uint64_t hold_ns_ = 0;           // the held slots' time after it (within the window)

  std::array<DirectionStats, 3> dirs_;
  std::vector<IntervalSample> intervals_;
  IntervalSample cur_;
  uint64_t cur_index_ = 0;           // of cur_, in intervals of len_ns_
  uint64_t len_ns_ = interval_ns_;   // the series' interval length (interval_ns_ * 2^k)
  uint64_t next_close_ns_ = kNever;  // SetNextClose()
  std::vector<IoRecord> io_log_;
};

}  // namespace ssdlab
