#include "backend/phase_recorder.h"

#include <gtest/gtest.h>

#include <deque>

#include "stats/completed_io.h"

namespace ssdlab {
namespace {

using Admit = PhaseRecorder::Admit;

class VectorSink : public IoLogSink {
 public:
  void Write(const IoRecord* records, size_t count) override {
    batches.push_back(count);
    all.insert(all.end(), records, records + count);
  }
  std::vector<size_t> batches;
  std::vector<IoRecord> all;
};

TEST(PhaseRecorder, NoRampMeasuresFromTheStart) {
  PhaseRecorder rec(1000, PhaseWindow{}, 0);
  EXPECT_TRUE(rec.measuring());
  EXPECT_EQ(rec.measure_start_ns(), 1000u);
  EXPECT_EQ(rec.Open(1000), Admit::kMeasure);
  EXPECT_EQ(rec.end_ns(), PhaseRecorder::kNever);
}

TEST(PhaseRecorder, TimedRampStartsAtItsEndAndTheWindowEndsAfterTheRuntime) {
  PhaseRecorder rec(1000, PhaseWindow{.ramp_ns = 500, .runtime_ns = 2000}, 0);
  EXPECT_FALSE(rec.measuring());
  EXPECT_EQ(rec.Open(1200), Admit::kRamp);
  // The first request offered after the ramp's end starts the window at the ramp's end.
  EXPECT_EQ(rec.Open(1700), Admit::kMeasure);
  EXPECT_EQ(rec.measure_start_ns(), 1500u);
  EXPECT_EQ(rec.end_ns(), 3500u);
  EXPECT_EQ(rec.Open(3499), Admit::kMeasure);
  EXPECT_FALSE(rec.stopped_by_time());
  EXPECT_EQ(rec.Open(3500), Admit::kStop);
  EXPECT_TRUE(rec.stopped_by_time());
}

TEST(PhaseRecorder, RampByBytesEndsAfterTheRequestThatCrossesIt) {
  PhaseRecorder rec(0, PhaseWindow{.ramp_bytes = 8192, .io_bytes = 8192}, 0);
  EXPECT_EQ(rec.Open(10), Admit::kRamp);
  rec.Issued(4096, false);
  EXPECT_EQ(rec.Open(20), Admit::kRamp);
  rec.Issued(4096, false);  // 8 KiB issued: the ramp is over, for the next request
  EXPECT_EQ(rec.Open(30), Admit::kMeasure);
  EXPECT_EQ(rec.measure_start_ns(), 30u);
  rec.Issued(4096, true);
  EXPECT_EQ(rec.Open(40), Admit::kMeasure);
  rec.Issued(4096, true);
  EXPECT_EQ(rec.Open(50), Admit::kStop);  // io_bytes issued, not by time
  EXPECT_FALSE(rec.stopped_by_time());
}

TEST(PhaseRecorder, CountsAndIntervalsFollowCompletionTimes) {
  std::vector<IntervalSample> seen;
  PhaseRecorder rec(100, PhaseWindow{}, 1000, nullptr,
                    [&](const IntervalSample& s) { seen.push_back(s); });
  rec.Record(Direction::kRead, 0, 4096, 100, 600);     // interval 0, latency 500
  rec.Record(Direction::kRead, 0, 4096, 900, 1100);    // t = 1000 after start: still interval 0
  rec.Record(Direction::kWrite, 0, 8192, 1000, 1300);  // interval 1
  rec.Record(Direction::kRead, 0, 4096, 3000, 3200);   // interval 3; interval 2 closes empty
  rec.Finish(3600);
  PhaseResult r;
  rec.MoveInto(r);
  EXPECT_EQ(r.measured_ns, 3500u);
  EXPECT_EQ(r.dirs[0].ios, 3u);
  EXPECT_EQ(r.dirs[0].bytes, 3u * 4096);
  EXPECT_EQ(r.dirs[0].latency.max(), 500u);
  EXPECT_EQ(r.dirs[1].ios, 1u);
  ASSERT_EQ(r.intervals.size(), 4u);
  EXPECT_EQ(r.intervals[0].dirs[0].ios, 2u);
  EXPECT_EQ(r.intervals[0].dirs[0].lat_sum_ns, 700u);
  EXPECT_EQ(r.intervals[0].dirs[0].lat_max_ns, 500u);
  EXPECT_EQ(r.intervals[1].dirs[1].bytes, 8192u);
  EXPECT_EQ(r.intervals[2].dirs[0].ios + r.intervals[2].dirs[1].ios, 0u);
  EXPECT_EQ(r.intervals[3].t_begin_ns, 3000u);
  EXPECT_EQ(r.intervals[3].t_end_ns, 3500u);  // the partial last interval ends with the phase
  EXPECT_EQ(seen.size(), 4u);
}

TEST(PhaseRecorder, AdvanceToClosesIntervalsWithoutCompletions) {
  PhaseRecorder rec(0, PhaseWindow{}, 100);
  rec.AdvanceTo(100);
  EXPECT_TRUE(rec.intervals().empty());  // (0, 100] is still open at t = 100
  rec.AdvanceTo(301);
  ASSERT_EQ(rec.intervals().size(), 3u);
  EXPECT_EQ(rec.intervals()[2].t_end_ns, 300u);
}

TEST(PhaseRecorder, NothingMeasuredGivesNoLengthAndNoSeries) {
  PhaseRecorder rec(0, PhaseWindow{.ramp_ns = 1000}, 100);
  EXPECT_EQ(rec.Open(10), Admit::kRamp);
  rec.Finish(500);
  EXPECT_EQ(rec.measured_ns(), 0u);
  EXPECT_TRUE(rec.intervals().empty());
}

TEST(PhaseRecorder, IoLogIsRelativeToTheMeasuredStartAndFlushedOnFinish) {
  VectorSink sink;
  PhaseRecorder rec(0, PhaseWindow{.ramp_ns = 50}, 0, &sink);
  EXPECT_EQ(rec.Open(60), Admit::kMeasure);
  for (uint64_t i = 0; i < PhaseRecorder::kIoLogBatch + 3; ++i)
    rec.Record(Direction::kWrite, i * 4096, 4096, 60 + i, 70 + i);
  ASSERT_EQ(sink.batches.size(), 1u);
  rec.Finish(10000);
  ASSERT_EQ(sink.batches.size(), 2u);
  EXPECT_EQ(sink.batches[1], 3u);
  EXPECT_EQ(sink.all.front().start_ns, 10u);
  EXPECT_EQ(sink.all.front().latency_ns, 10u);
  EXPECT_EQ(sink.all.back().offset, (PhaseRecorder::kIoLogBatch + 2) * 4096);
}

TEST(PhaseRecorder, MergeJobsAddsHistogramsAndSeriesByIndex) {
  PhaseRecorder a(0, PhaseWindow{}, 100), b(20, PhaseWindow{}, 100);
  a.Record(Direction::kRead, 0, 4096, 0, 50);
  a.Record(Direction::kRead, 0, 4096, 100, 150);
  b.Record(Direction::kRead, 0, 4096, 20, 90);  // b's interval 0 is (20, 120]
  a.Finish(150);
  b.Finish(90);
  PhaseResult r;
  PhaseRecorder::MergeJobs({&a, &b}, r);
  EXPECT_EQ(r.dirs[0].ios, 3u);
  EXPECT_EQ(r.dirs[0].latency.count(), 3u);
  EXPECT_EQ(r.dirs[0].latency.max(), 70u);
  EXPECT_EQ(r.measured_ns, 150u);  // from a's start at 0 to a's last completion at 150
  ASSERT_EQ(r.intervals.size(), 2u);
  EXPECT_EQ(r.intervals[0].dirs[0].ios, 2u);
  EXPECT_EQ(r.intervals[0].t_end_ns, 100u);
  EXPECT_EQ(r.intervals[1].dirs[0].ios, 1u);
  EXPECT_EQ(r.intervals[1].t_begin_ns, 100u);
  EXPECT_EQ(r.intervals[1].t_end_ns, 150u);
}

// A timed source's submission lag goes into the interval its I/O completes in (summed and the
// largest, per direction), and jobs' series add up.
TEST(PhaseRecorder, LagOfTimedRequestsIsKeptPerIntervalAndMerged) {
  PhaseRecorder a(0, PhaseWindow{}, 100), b(0, PhaseWindow{}, 100);
  a.Record(Direction::kRead, 0, 4096, 0, 50, 7);
  a.Record(Direction::kRead, 0, 4096, 10, 60, 30);
  a.Record(Direction::kWrite, 0, 4096, 100, 150, 5);
  b.Record(Direction::kRead, 0, 4096, 20, 90, 40);
  b.Record(Direction::kRead, 0, 4096, 120, 180);  // no schedule: no lag
  a.Finish(150);
  b.Finish(180);
  PhaseResult r;
  PhaseRecorder::MergeJobs({&a, &b}, r);
  ASSERT_EQ(r.intervals.size(), 2u);
  EXPECT_EQ(r.intervals[0].dirs[0].lag_sum_ns, 77u);
  EXPECT_EQ(r.intervals[0].dirs[0].lag_max_ns, 40u);
  EXPECT_EQ(r.intervals[1].dirs[0].lag_sum_ns, 0u);
  EXPECT_EQ(r.intervals[1].dirs[0].ios, 1u);
  EXPECT_EQ(r.intervals[1].dirs[1].lag_sum_ns, 5u);
  EXPECT_EQ(r.intervals[1].dirs[1].lag_max_ns, 5u);
}

// The bound of the series (PhaseRecorder::kMaxIntervals), written out so that the tests also
// build against a recorder without one.
constexpr uint64_t kMaxSeries = 16384;

TEST(PhaseRecorder, AGapOfAMillionIntervalsCoarsensTheSeriesInsteadOfFillingIt) {
  PhaseRecorder rec(0, PhaseWindow{}, 100);
  rec.Record(Direction::kWrite, 0, 4096, 0, 50);
  const uint64_t far = 100 * (uint64_t{1} << 20) + 50;  // 2^20 intervals later
  rec.Record(Direction::kWrite, 0, 4096, far - 10, far);
  rec.Finish(far);
  const auto& iv = rec.intervals();
  ASSERT_LE(iv.size(), kMaxSeries);
  ASSERT_FALSE(iv.empty());
  // Contiguous from 0 to the end, every interval as long as the first but the last, which ends
  // at the measured end; the two I/Os are in the first and the last.
  const uint64_t len = iv.front().t_end_ns;
  EXPECT_EQ(len % 100, 0u);
  EXPECT_EQ(len / 100 & (len / 100 - 1), 0u) << len;  // 100 * 2^k
  uint64_t ios = 0;
  for (size_t i = 0; i < iv.size(); ++i) {
    EXPECT_EQ(iv[i].t_begin_ns, i * len);
    if (i + 1 < iv.size()) {
      EXPECT_EQ(iv[i].t_end_ns, (i + 1) * len);
    }
    ios += iv[i].dirs[1].ios;
  }
  EXPECT_EQ(iv.back().t_end_ns, far);
  EXPECT_EQ(iv.front().dirs[1].ios, 1u);
  EXPECT_EQ(iv.back().dirs[1].ios, 1u);
  EXPECT_EQ(ios, 2u);
}

TEST(PhaseRecorder, CoarseningMergesIntervalsInPairsAndLosesNothing) {
  // One I/O completing in every ns: each interval holds as many I/Os as it is long.
  const uint64_t n = 3 * kMaxSeries + 7;
  PhaseRecorder rec(0, PhaseWindow{}, 1);
  for (uint64_t t = 1; t <= n; ++t) rec.Record(Direction::kRead, 0, 512, t - 1, t);
  rec.Finish(n);
  const auto& iv = rec.intervals();
  ASSERT_LE(iv.size(), kMaxSeries);
  uint64_t ios = 0, end = 0;
  for (const IntervalSample& s : iv) {
    EXPECT_EQ(s.t_begin_ns, end);
    EXPECT_EQ(s.dirs[0].ios, s.t_end_ns - s.t_begin_ns);
    EXPECT_EQ(s.dirs[0].lat_sum_ns, s.dirs[0].ios);
    end = s.t_end_ns;
    ios += s.dirs[0].ios;
  }
  EXPECT_EQ(end, n);
  EXPECT_EQ(ios, n);
  EXPECT_EQ(iv.front().t_end_ns, 4u);  // 3 * 16384 + 7 ns fit 16384 intervals of 4 ns
}

TEST(PhaseRecorder, MergeJobsOfDifferentIntervalLengthsMergesByTime) {
  // a's series coarsens (its phase is long), b's does not: b's intervals merge into a's.
  PhaseRecorder a(0, PhaseWindow{}, 10), b(0, PhaseWindow{}, 10);
  const uint64_t far = 10 * 2 * kMaxSeries;  // a needs intervals of 20 ns
  a.Record(Direction::kRead, 0, 4096, 0, 5);
  a.Record(Direction::kRead, 0, 4096, 0, far);
  for (uint64_t t = 5; t <= 45; t += 10) b.Record(Direction::kRead, 0, 4096, 0, t);
  a.Finish(far);
  b.Finish(45);
  PhaseResult r;
  PhaseRecorder::MergeJobs({&a, &b}, r);
  ASSERT_LE(r.intervals.size(), kMaxSeries);
  ASSERT_GE(r.intervals.size(), 3u);
  EXPECT_EQ(r.intervals[0].t_end_ns - r.intervals[0].t_begin_ns, 20u);
  EXPECT_EQ(r.intervals[0].dirs[0].ios, 3u);  // a's at 5, b's at 5 and 15
  EXPECT_EQ(r.intervals[1].dirs[0].ios, 2u);  // b's at 25 and 35
  EXPECT_EQ(r.intervals[2].dirs[0].ios, 1u);  // b's at 45
  EXPECT_EQ(r.intervals[2].t_begin_ns, 40u);
  uint64_t ios = 0;
  for (const IntervalSample& s : r.intervals) ios += s.dirs[0].ios;
  EXPECT_EQ(ios, 7u);
}

// The window's edge: a window of 1000 ns ended by time; the measured I/Os in flight then are
// counted with their true latency up to kEdgeWaitNs after the end, the measured part runs to
// the last counted one, and a later one is reported as abandoned, not counted.
TEST(PhaseRecorder, InFlightAtTheWindowsEdgeIsWaitedForCountedAndReported) {
  PhaseRecorder rec(0, PhaseWindow{.runtime_ns = 1000}, 0);
  EXPECT_EQ(rec.Open(0), Admit::kMeasure);
  rec.Record(Direction::kWrite, 0, 4096, 0, 500);
  EXPECT_EQ(rec.Open(900), Admit::kMeasure);
  EXPECT_EQ(rec.Open(950), Admit::kMeasure);
  EXPECT_EQ(rec.Open(1000), Admit::kStop);
  rec.Record(Direction::kWrite, 0, 4096, 900, 1000);  // on the edge: inside the window
  rec.Record(Direction::kWrite, 0, 4096, 950, 4950);  // a stall straddling the edge: counted
  const uint64_t late = 1000 + PhaseRecorder::kEdgeWaitNs + 1;
  rec.Record(Direction::kWrite, 0, 4096, 900, late);  // beyond the bound: abandoned
  EXPECT_EQ(rec.MeasuredEnd(), 4950u);
  rec.Finish(rec.MeasuredEnd());
  PhaseResult r;
  rec.MoveInto(r);
  EXPECT_EQ(r.measured_ns, 4950u);
  EXPECT_EQ(r.dirs[1].ios, 3u);
  EXPECT_EQ(r.dirs[1].latency.max(), 4000u);
  EXPECT_EQ(r.edge.in_flight, 2u);
  EXPECT_EQ(r.edge.longest_ns, 4000u);
  EXPECT_EQ(r.edge.abandoned, 1u);
  EXPECT_EQ(r.edge.abandoned_age_ns, 1000 + PhaseRecorder::kEdgeWaitNs - 900);
}

TEST(PhaseRecorder, AWindowIdleAtItsEndRunsToItsEnd) {
  PhaseRecorder rec(0, PhaseWindow{.runtime_ns = 1000}, 0);
  EXPECT_EQ(rec.Open(100), Admit::kMeasure);
  rec.Record(Direction::kRead, 0, 4096, 100, 200);
  EXPECT_EQ(rec.Open(1200), Admit::kStop);
  EXPECT_EQ(rec.MeasuredEnd(), 1000u);  // a rate-limited phase: IOPS over the whole window
  EXPECT_EQ(rec.edge().in_flight, 0u);
}

// A closed loop of 8 slots, each I/O 10 us but the last round, which stalls 1 ms across the
// window's end: counting the stalled I/Os and running to the last of them keeps Little's law
// (IOPS x mean latency = 8); dropping them and dividing by the window gave 7.52.
TEST(PhaseRecorder, AClosedLoopWithAStallAtTheEdgeKeepsLittlesLaw) {
  const uint64_t qd = 8, service = 10'000, stall = 1'000'000, runtime = 1'000'000;
  PhaseRecorder rec(0, PhaseWindow{.runtime_ns = runtime}, 100'000);
  for (uint64_t slot = 0; slot < qd; ++slot) {
    uint64_t t = 0;
    while (rec.Open(t) == Admit::kMeasure) {
      rec.Issued(4096, true);
      const uint64_t done = t + (t + service >= runtime - 50'000 ? stall : service);
      rec.Record(Direction::kWrite, 0, 4096, t, done);
      t = done;
    }
  }
  rec.Finish(rec.MeasuredEnd());
  PhaseResult r;
  rec.MoveInto(r);
  const DirectionStats& w = r.dirs[1];
  const double outstanding = r.Iops(w) * w.latency.Mean() / 1e9;
  EXPECT_NEAR(outstanding, 8.0, 8.0 * 0.02) << r.measured_ns;
  EXPECT_EQ(r.edge.in_flight, qd);
  EXPECT_EQ(r.edge.longest_ns, stall);
}

// The last interval of a series shorter than half an interval is merged into the one before:
// no scrap of a few ns is reported as a rate.
TEST(PhaseRecorder, AShortLastIntervalIsMergedIntoThePreviousOne) {
  std::vector<IntervalSample> seen;
  PhaseRecorder rec(0, PhaseWindow{}, 100, nullptr,
                    [&](const IntervalSample& s) { seen.push_back(s); });
  rec.Record(Direction::kRead, 0, 4096, 0, 50);
  rec.Record(Direction::kRead, 0, 4096, 100, 150);
  rec.Record(Direction::kRead, 0, 4096, 200, 210);  // (200, 230]: 30 ns, less than half
  rec.Finish(230);
  const auto& iv = rec.intervals();
  ASSERT_EQ(iv.size(), 2u);
  EXPECT_EQ(iv[1].t_begin_ns, 100u);
  EXPECT_EQ(iv[1].t_end_ns, 230u);
  EXPECT_EQ(iv[1].dirs[0].ios, 2u);
  EXPECT_EQ(seen.size(), 2u);
  // Half an interval or more stays an interval of its own.
  PhaseRecorder half(0, PhaseWindow{}, 100);
  half.Record(Direction::kRead, 0, 4096, 200, 210);
  half.Finish(250);
  ASSERT_EQ(half.intervals().size(), 3u);
  EXPECT_EQ(half.intervals()[2].t_end_ns - half.intervals()[2].t_begin_ns, 50u);
  // A series of one interval keeps it, however short.
  PhaseRecorder one(0, PhaseWindow{}, 100);
  one.Record(Direction::kRead, 0, 4096, 0, 10);
  one.Finish(20);
  ASSERT_EQ(one.intervals().size(), 1u);
  EXPECT_EQ(one.intervals()[0].t_end_ns, 20u);
}

TEST(PhaseRecorder, MergeJobsLeavesNoShortLastInterval) {
  // a's series ends at 230 (its tail merged), b's at 210 (a 10 ns tail of its own).
  PhaseRecorder a(0, PhaseWindow{}, 100), b(0, PhaseWindow{}, 100);
  a.Record(Direction::kRead, 0, 4096, 0, 150);
  a.Record(Direction::kRead, 0, 4096, 0, 230);
  b.Record(Direction::kRead, 0, 4096, 0, 150);
  b.Record(Direction::kRead, 0, 4096, 0, 210);
  a.Finish(230);
  b.Finish(210);
  PhaseResult r;
  PhaseRecorder::MergeJobs({&a, &b}, r);
  ASSERT_EQ(r.intervals.size(), 2u);
  EXPECT_EQ(r.intervals[0].t_end_ns, 100u);
  EXPECT_EQ(r.intervals[1].t_end_ns, 230u);
  EXPECT_EQ(r.intervals[1].dirs[0].ios, 4u);
}

// Little's law holds exactly for any service times in a closed loop with instantaneous
// resubmission, ramp included: slots whose ramp I/O stalls across the window's start, and
// stalls across its end, are both in the measured length (the start and end edges).
TEST(PhaseRecorder, LittlesLawHoldsWithStallsAtBothEdgesOfARampedWindow) {
  const uint64_t qd = 6, ramp = 200'000, runtime = 1'000'000;
  PhaseRecorder rec(0, PhaseWindow{.ramp_ns = ramp, .runtime_ns = runtime}, 50'000);
  struct Io {
    uint64_t issue = 0, done = 0;
    bool measured = false, live = false;
  };
  std::vector<Io> slots(qd);
  uint64_t k = 0;
  auto issue = [&](Io& io, uint64_t t) {
    const Admit a = rec.Open(t);
    if (a == Admit::kStop) return;
    ++k;
    // Mostly 1-21 us; every 53rd I/O a 400 us stall (some straddle the start, some the end).
    const uint64_t service = k % 53 == 0 ? 400'000 : 1'000 + (k * 7919) % 20'000;
    io = Io{t, t + service, a == Admit::kMeasure, true};
  };
  for (Io& io : slots) issue(io, 0);
  for (;;) {  // the completions in time order, each slot resubmitting at once
    Io* next = nullptr;
    for (Io& io : slots) {
      if (io.live && (!next || io.done < next->done)) next = &io;
    }
    if (!next) break;
    const Io io = *next;
    next->live = false;
    if (io.measured) {
      rec.Record(Direction::kWrite, 0, 4096, io.issue, io.done);
    } else {
      rec.RampCompleted(Direction::kWrite, 0, 4096, io.issue, io.done);
    }
    issue(*next, io.done);
  }
  rec.Finish(rec.MeasuredEnd());
  PhaseResult r;
  rec.MoveInto(r);
  const DirectionStats& w = r.dirs[1];
  const double outstanding = r.Iops(w) * w.latency.Mean() / 1e9;
  EXPECT_NEAR(outstanding, static_cast<double>(qd), 1e-3 * qd) << r.measured_ns;
  EXPECT_EQ(r.edge.in_flight, qd);
  EXPECT_GT(r.edge.longest_ns, 0u);
}

// The ramp is not a window: a stall that begins in it is counted by the window its I/Os complete
// in, with their true latency, and the time they ran before the window is in its measured length
// (so the stall is in the figures and Little's law still holds).
TEST(PhaseRecorder, AStallBegunInTheRampIsInTheWindowsFigures) {
  const uint64_t qd = 4, ramp = 100'000, runtime = 1'000'000;
  PhaseRecorder rec(0, PhaseWindow{.ramp_ns = ramp, .runtime_ns = runtime}, 0);
  // Every slot issued at 90 us in the ramp, stalled until 590 us; then 10 us I/Os.
  for (uint64_t s = 0; s < qd; ++s) ASSERT_EQ(rec.Open(90'000), Admit::kRamp);
  uint64_t counted = 0;
  for (uint64_t s = 0; s < qd; ++s) {
    rec.RampCompleted(Direction::kWrite, 0, 4096, 90'000, 590'000);
    for (uint64_t t = 590'000;; t += 10'000) {
      if (rec.Open(t) == Admit::kStop) break;
      rec.Record(Direction::kWrite, 0, 4096, t, t + 10'000);
      ++counted;
    }
  }
  rec.Finish(rec.MeasuredEnd());
  PhaseResult r;
  rec.MoveInto(r);
  const DirectionStats& w = r.dirs[1];
  EXPECT_EQ(r.edge.from_ramp, qd);
  EXPECT_EQ(w.ios, counted + qd);
  EXPECT_EQ(w.latency.max(), 500'000u);
  // Measured: the runtime plus the stall's 10 us before the window (at depth 4: 10 us).
  EXPECT_EQ(r.measured_ns, runtime + 10'000);
  EXPECT_NEAR(r.Iops(w) * w.latency.Mean() / 1e9, static_cast<double>(qd), 1e-3);
}

// A closed loop of `qd` slots on a serial server (FIFO, `service_ns` per I/O) that starts with its
// queue empty, run for `runtime_ns` with the given fill: the merged result.
PhaseResult SerialServerFromEmpty(uint64_t qd, uint64_t service_ns, uint64_t runtime_ns,
                                  uint64_t fill_ios) {
  PhaseRecorder rec(0, PhaseWindow{.runtime_ns = runtime_ns, .fill_ios = fill_ios}, 0);
  struct Io {
    uint64_t issue, done;
    bool measured, fill;
  };
  std::deque<Io> queue;  // in issue order, which is completion order on a FIFO server
  uint64_t server_free = 0;
  auto issue = [&](uint64_t t) {
    const Admit a = rec.Open(t);
    if (a == Admit::kStop) return;
    const bool fill = rec.Issued(4096, a == Admit::kMeasure);
    server_free = std::max(server_free, t) + service_ns;
    queue.push_back(Io{t, server_free, a == Admit::kMeasure, fill});
  };
  for (uint64_t i = 0; i < qd; ++i) issue(0);
  while (!queue.empty()) {
    const Io io = queue.front();
    queue.pop_front();
    if (io.fill) rec.FillCompleted(io.done);
    if (io.measured) {
      rec.Record(Direction::kRead, 0, 4096, io.issue, io.done);
    } else {
      rec.RampCompleted(Direction::kRead, 0, 4096, io.issue, io.done);
    }
    issue(io.done);
  }
  rec.Finish(rec.MeasuredEnd());
  PhaseResult r;
  rec.MoveInto(r);
  return r;
}

// A window whose queue starts empty does not count the queue's fill as stationary: on a serial
// server of 10 us per I/O (100k IOPS at most), a 1 ms window at QD 32 read 114k IOPS with a
// mean latency of 280 us (the first 32 I/Os waited 10-320 us, not 320); with the fill (the
// window opens once 32 ramp I/Os have completed) it reads the server's rate, Little's law
// exact.
TEST(PhaseRecorder, AWindowStartedWithAnEmptyQueueOpensAfterTheFill) {
  const uint64_t qd = 32, service = 10'000, runtime = 1'000'000;
  WorkloadSpec spec;
  spec.runtime_ns = runtime;
  spec.queue_depth = static_cast<uint32_t>(qd);
  ASSERT_EQ(FillIos(spec, spec.queue_depth), qd);
  const PhaseResult r = SerialServerFromEmpty(qd, service, runtime, FillIos(spec, qd));
  const DirectionStats& d = r.dirs[0];
  EXPECT_NEAR(r.Iops(d), 1e9 / service, 1e9 / service * 1e-3) << r.measured_ns;
  EXPECT_NEAR(d.latency.Mean(), static_cast<double>(qd * service), qd * service * 1e-3);
  EXPECT_NEAR(r.Iops(d) * d.latency.Mean() / 1e9, static_cast<double>(qd), 1e-3 * qd);
  EXPECT_EQ(r.edge.from_ramp, qd - 1);  // in flight at the start (the last of the fill ended it)
  // Without the fill the same loop overstates the server by about half a latency per window.
  const PhaseResult unfilled = SerialServerFromEmpty(qd, service, runtime, 0);
  EXPECT_GT(unfilled.Iops(unfilled.dirs[0]), 1.1 * 1e9 / service);
}

// The fill is for closed loops ended by time: a window ended by bytes runs to its last
// completion (no bias from an empty start), and an open loop's queue is not full.
TEST(PhaseRecorder, TheFillIsForClosedLoopsEndedByTime) {
  WorkloadSpec spec;
  spec.queue_depth = 8;
  spec.io_bytes = 1 << 20;
  EXPECT_EQ(FillIos(spec, 8), 0u);
  spec.runtime_ns = 1'000'000;
  EXPECT_EQ(FillIos(spec, 8), 0u);  // bytes and time: may end by bytes
  spec.io_bytes = 0;
  EXPECT_EQ(FillIos(spec, 8), 8u);
  spec.rate_iops = 1000;
  EXPECT_EQ(FillIos(spec, 8), 0u);
  // A ramp by time shorter than the fill: the window opens when the fill is done.
  // The fill is the first two I/Os issued, whatever order they end in, failures included.
  PhaseRecorder rec(0, PhaseWindow{.ramp_ns = 10, .runtime_ns = 1000, .fill_ios = 2}, 0);
  EXPECT_EQ(rec.Open(0), Admit::kRamp);
  EXPECT_TRUE(rec.Issued(4096, false));
  EXPECT_EQ(rec.Open(0), Admit::kRamp);
  EXPECT_TRUE(rec.Issued(4096, false));
  rec.FillCompleted(30);                  // the first one, failed: no RampCompleted
  EXPECT_EQ(rec.Open(30), Admit::kRamp);  // past the ramp's 10 ns, but one of two filled
  EXPECT_FALSE(rec.Issued(4096, false));  // issued after the fill: not the fill's
  rec.RampCompleted(Direction::kRead, 0, 4096, 30, 40);
  EXPECT_FALSE(rec.measuring());  // an I/O that overtook the fill does not end it
  rec.FillCompleted(50);
  rec.RampCompleted(Direction::kRead, 0, 4096, 0, 50);
  EXPECT_TRUE(rec.measuring());
  EXPECT_EQ(rec.measure_start_ns(), 50u);
  EXPECT_EQ(rec.Open(50), Admit::kMeasure);
}

// A ramp I/O abandoned at the window's edge (still not done kEdgeWaitNs after it) is not counted,
// nor is its time before the measured start: the measured length stays the window's.
TEST(PhaseRecorder, ARampIoAbandonedAtTheEdgeAddsNoTimeBeforeTheStart) {
  PhaseRecorder rec(0, PhaseWindow{.runtime_ns = 1000, .fill_ios = 2}, 0);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(rec.Open(0), Admit::kRamp);
    ASSERT_TRUE(rec.Issued(4096, false));
  }
  rec.FillCompleted(10);
  rec.RampCompleted(Direction::kRead, 0, 4096, 0, 10);
  ASSERT_EQ(rec.Open(10), Admit::kRamp);
  ASSERT_FALSE(rec.Issued(4096, false));  // a ramp I/O that hangs
  rec.FillCompleted(20);
  rec.RampCompleted(Direction::kRead, 0, 4096, 0, 20);
  ASSERT_EQ(rec.Open(20), Admit::kMeasure);
  rec.Issued(4096, true);
  rec.Record(Direction::kRead, 0, 4096, 20, 500);
  ASSERT_EQ(rec.Open(1020), Admit::kStop);
  rec.RampCompleted(Direction::kRead, 0, 4096, 10, 1020 + PhaseRecorder::kEdgeWaitNs + 1);
  rec.Finish(rec.MeasuredEnd());
  PhaseResult r;
  rec.MoveInto(r);
  EXPECT_EQ(r.edge.from_ramp, 0u);
  EXPECT_EQ(r.edge.in_flight, 1u);
  EXPECT_EQ(r.edge.abandoned, 1u);
  EXPECT_EQ(r.dirs[0].ios, 1u);
  EXPECT_EQ(r.measured_ns, 1000u);
}

// A round held throughout by the previous round's I/Os (a stall longer than it) issued nothing:
// no I/O and no measured time of its own, said in edge.held_all (not an error).
TEST(PhaseRecorder, ARoundHeldThroughoutHasNoIoOfItsOwnAndSaysSo) {
  const uint64_t qd = 4, runtime = 1'000'000;
  PhaseRecorder rec(0, PhaseWindow{.runtime_ns = runtime}, 0);
  for (uint64_t s = 0; s < qd; ++s) {
    rec.HeldCompleted(1'500'000);  // the previous round's I/Os, done after this window's end
    EXPECT_EQ(rec.Open(1'500'000), Admit::kStop);
  }
  rec.Finish(rec.MeasuredEnd());
  PhaseResult r;
  rec.MoveInto(r);
  EXPECT_TRUE(r.edge.held_all);
  EXPECT_EQ(r.edge.held, qd);
  EXPECT_EQ(r.Total().ios, 0u);
  EXPECT_EQ(r.measured_ns, 0u);  // its time is the previous round's (which ran past its end)
  EXPECT_TRUE(CheckCompletedIo(r, "round", "a longer --round").ok());
}

}  // namespace
}  // namespace ssdlab
