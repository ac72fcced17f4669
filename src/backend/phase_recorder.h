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
// (0 = no limit). Interval i covers (i * L, (i + 1) * L] after the measured start, L the
// interval's length; a completion exactly on a boundary belongs to the interval that ends there.
// The series is bounded: L starts at interval_ns, and whenever the series would exceed
// kMaxIntervals intervals L doubles, pairs of intervals merging into one (so a phase of any
// length, a gap of years in virtual time included, holds at most kMaxIntervals intervals of
// interval_ns * 2^k, closed in O(kMaxIntervals) work however long the gap).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "backend/backend.h"
#include "stats/phase_result.h"

namespace ssdlab {

struct PhaseWindow {
  uint64_t ramp_ns = 0;
  uint64_t ramp_bytes = 0;
  uint64_t runtime_ns = 0;  // 0: no time limit
  uint64_t io_bytes = 0;    // 0: no byte limit
};

class PhaseRecorder {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr size_t kIoLogBatch = 4096;
  static constexpr uint64_t kMaxIntervals = 16384;

  // What a request offered at some time is: ramp, measured, or past the window.
  enum class Admit { kRamp, kMeasure, kStop };

  // `on_interval` (may be empty) sees each interval as it closes, the last partial one too.
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
    if (!window.ramp_ns && !window.ramp_bytes) Begin(start_ns);
  }
  PhaseRecorder(const PhaseRecorder&) = delete;
  PhaseRecorder& operator=(const PhaseRecorder&) = delete;

  // For a request about to be issued at t: starts measuring once the ramp is over and says
  // what the request is. kStop means the window is over (runtime reached: stopped_by_time();
  // or io_bytes issued); it stays over for every later t.
  [[gnu::always_inline]] Admit Open(uint64_t t) {
    if (!measuring_) {
      if (t >= ramp_end_ns_) {
        Begin(ramp_end_ns_);
      } else if (window_.ramp_bytes && ramp_issued_bytes_ >= window_.ramp_bytes) {
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
  // Counts the bytes of a request Open() admitted (kRamp or kMeasure).
  [[gnu::always_inline]] void Issued(uint32_t bytes, bool measured) {
    (measured ? measured_issued_bytes_ : ramp_issued_bytes_) += bytes;
  }

  // A measured request issued at issue_ns completed at t_ns (t_ns >= the measured start).
  [[gnu::always_inline]] void Record(Direction dir, uint64_t offset, uint32_t bytes,
                                     uint64_t issue_ns, uint64_t t_ns) {
    const uint64_t lat = t_ns > issue_ns ? t_ns - issue_ns : 0;
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
  void AdvanceTo(uint64_t t) {
    if (!measuring_ || !interval_ns_ || t <= measure_start_ns_) return;
    const uint64_t rel = t - measure_start_ns_ - 1;
    if (rel / len_ns_ != cur_index_) CloseIntervalsBefore(rel);
  }

  // Ends the phase at end_ns: the measured length is end_ns - the measured start, the last
  // (partial) interval closes there, and the I/O log is flushed. Call once.
  void Finish(uint64_t end_ns) {
    FlushIoLog();
    if (!measuring_) return;
    measured_ns_ = end_ns > measure_start_ns_ ? end_ns - measure_start_ns_ : 0;
    if (!interval_ns_ || !measured_ns_) return;
    CloseIntervalsBefore(measured_ns_ - 1);
    cur_.t_begin_ns = cur_index_ * len_ns_;
    cur_.t_end_ns = measured_ns_;
    Emit();
  }

  // Moves the counts, histograms, series and measured length into `r`.
  void MoveInto(PhaseResult& r) {
    for (size_t d = 0; d < dirs_.size(); ++d) r.dirs[d] = std::move(dirs_[d]);
    r.intervals = std::move(intervals_);
    r.measured_ns = measured_ns_;
  }

  // Jobs run side by side, each with its own recorder (each Finish()ed): counts and histograms
  // add up bucket by bucket, the intervals of every job (relative to its own measured start)
  // merge into the intervals of the longest length any job reached (lengths are interval_ns
  // times powers of two, so each job's interval lies inside one of them), and the measured
  // length runs from the earliest measured start to the latest measured completion.
  static void MergeJobs(const std::vector<const PhaseRecorder*>& jobs, PhaseResult& r) {
    uint64_t start = kNever, end = 0, len = 1, n = 0;
    for (const PhaseRecorder* j : jobs) {
      for (size_t d = 0; d < r.dirs.size(); ++d) r.dirs[d].Merge(j->dirs_[d]);
      if (j->measuring_) start = std::min(start, j->measure_start_ns_);
      end = std::max(end, j->last_completion_ns_);
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
  uint64_t measured_ns() const { return measured_ns_; }                // after Finish()
  // The length of the series' intervals: interval_ns * 2^k (see kMaxIntervals).
  uint64_t interval_len_ns() const { return len_ns_; }
  const std::vector<IntervalSample>& intervals() const { return intervals_; }

 private:
  void Begin(uint64_t t) {
    measuring_ = true;
    measure_start_ns_ = t;
    if (window_.runtime_ns) end_ns_ = t + window_.runtime_ns;
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
  uint64_t measured_issued_bytes_ = 0;
  uint64_t last_completion_ns_ = 0;
  uint64_t measured_ns_ = 0;

  std::array<DirectionStats, 3> dirs_;
  std::vector<IntervalSample> intervals_;
  IntervalSample cur_;
  uint64_t cur_index_ = 0;          // of cur_, in intervals of len_ns_
  uint64_t len_ns_ = interval_ns_;  // the series' interval length (interval_ns_ * 2^k)
  std::vector<IoRecord> io_log_;
};

}  // namespace ssdlab
