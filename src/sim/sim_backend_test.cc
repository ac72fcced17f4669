#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "base/units.h"
#include "sim/sim.h"
#include "sim/test_util.h"
#include "workload/request_source.h"

namespace ssdlab::simtest {
namespace {

TEST(SimBackend, TargetInfo) {
  auto b = Open("sim:dc-sata-read-intensive");
  EXPECT_EQ(b->info().kind, "sim");
  EXPECT_EQ(b->info().path, "sim:dc-sata-read-intensive");
  EXPECT_EQ(b->info().model, "dc-sata-read-intensive");
  EXPECT_EQ(b->info().logical_block_bytes, 512u);
  // Scaled 1/256 of 1.6 TB.
  EXPECT_NEAR(static_cast<double>(b->info().size_bytes), 1600321314816.0 / 256,
              1600e9 / 256 * 0.02);
  EXPECT_FALSE(b->params().empty());
  EXPECT_EQ(b->params().front().first, "capacity");
}

TEST(SimBackend, AProbeHasTheTargetsFactsAndRunsNoIo) {
  const std::string target = "sim:tiny?capacity=64MiB";
  auto probe = OpenSimBackend(target, SimOpenOptions{.probe = true});
  ASSERT_TRUE(probe.ok()) << probe.status().message();
  auto b = Open(target);
  EXPECT_EQ((*probe)->info().size_bytes, b->info().size_bytes);
  EXPECT_EQ((*probe)->info().serial, b->info().serial);
  EXPECT_EQ((*probe)->info().details, b->info().details);
  const WorkloadSpec s = Spec(*b, "randwrite", "4KiB", 4, "1MiB");
  auto r = (*probe)->RunPhase(s, RunControl{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInternal);
  EXPECT_FALSE((*probe)->SubmitAt(Direction::kWrite, 0, 4096, 0).ok());
  EXPECT_FALSE((*probe)->Idle(1000, RunControl{}).ok());
  EXPECT_TRUE(b->RunPhase(s, RunControl{}).ok());  // the full open runs
}

TEST(SimBackend, SameSeedSameResultsBitForBit) {
  auto run = [] {
    auto b = Open("sim:tiny?capacity=64MiB");
    WorkloadSpec s = Spec(*b, "randrw", "4KiB:70,64KiB:30", 8, "", "300ms", "0%-100%", 3);
    s.interval_ns = 50 * kNsPerMs;
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 4, "2x"));
    return RunSpec(*b, s);
  };
  PhaseResult a = run(), c = run();
  EXPECT_EQ(a.measured_ns, c.measured_ns);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(a.dirs[d].ios, c.dirs[d].ios);
    EXPECT_EQ(a.dirs[d].latency.sum(), c.dirs[d].latency.sum());
    EXPECT_EQ(a.dirs[d].latency.NonEmptyBuckets(), c.dirs[d].latency.NonEmptyBuckets());
  }
  EXPECT_EQ(a.counters, c.counters);
  ASSERT_EQ(a.intervals.size(), c.intervals.size());
  EXPECT_EQ(a.intervals.size(), 6u);
  EXPECT_GT(a.dirs[0].ios, 0u);
  EXPECT_GT(a.dirs[1].ios, 0u);
}

TEST(SimBackend, CountersAndLimits) {
  auto b = Open("sim:tiny?capacity=64MiB");
  PhaseResult r = RunSpec(*b, Spec(*b, "randwrite", "4KiB", 4, "16MiB"));
  EXPECT_EQ(r.counters_name, "sim");
  ASSERT_GE(r.counters.size(), 6u);
  const char* names[] = {
      "write_amplification", "host_pages_written", "nand_pages_written", "gc_page_copies", "erases",
      "free_blocks"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(r.counters[i].first, names[i]);
  EXPECT_EQ(r.dirs[1].bytes, 16u << 20);
  EXPECT_EQ(Counter(r, "host_pages_written"), 4096);
  EXPECT_DOUBLE_EQ(Counter(r, "write_amplification"), 1.0);
  // A fresh drive's pool shrinks while it is written: the minimum follows it.
  EXPECT_LE(Counter(r, "free_blocks_min"), Counter(r, "free_blocks"));
  // Runtime limit: the measured time is the runtime plus the drain of the I/Os in flight at its
  // end, at the queue's depth (backend/phase_recorder.h), so Little's law holds exactly.
  PhaseResult t = RunSpec(*b, Spec(*b, "randread", "4KiB", 4, "", "250ms"));
  EXPECT_GE(t.measured_ns, 250 * kNsPerMs);
  EXPECT_LE(t.measured_ns, 250 * kNsPerMs + t.dirs[0].latency.max());
  EXPECT_EQ(t.edge.in_flight, 4u);
  EXPECT_NEAR(t.Iops(t.dirs[0]) * t.dirs[0].latency.Mean() * 1e-9, 4.0, 4e-3);
  EXPECT_GT(t.dirs[0].ios, 0u);
  EXPECT_EQ(Counter(t, "host_pages_written"), 0);
}

// The ramp's I/Os are not measured, but those still in flight when the window opens are counted
// by it when they complete (the start edge: backend/phase_recorder.h), and reported as such.
TEST(SimBackend, RampIsExcludedFromStatsAndCountersButForItsIosCompletingInTheWindow) {
  auto b = Open("sim:tiny?capacity=64MiB");
  WorkloadSpec s = Spec(*b, "randwrite", "4KiB", 4, "8MiB");
  s.ramp_bytes = 4 << 20;
  PhaseResult r = RunSpec(*b, s);
  EXPECT_GT(r.edge.from_ramp, 0u);
  EXPECT_LT(r.edge.from_ramp, 4u);  // at most the queue's depth less the slot that crossed over
  EXPECT_EQ(r.dirs[1].bytes, (8u << 20) + r.edge.from_ramp * 4096);
  EXPECT_EQ(Counter(r, "host_pages_written"), 2048);
  WorkloadSpec t = Spec(*b, "randwrite", "4KiB", 4, "", "100ms");
  t.ramp_ns = 50 * kNsPerMs;
  PhaseResult q = RunSpec(*b, t);
  EXPECT_EQ(q.edge.from_ramp, 4u);  // a ramp by time ends with every slot busy
  // The measured length adds the mean time the counted I/Os ran outside the window, before it
  // (the ramp's) and after it (the end edge's): each less than the longest latency.
  EXPECT_GE(q.measured_ns, 100 * kNsPerMs);
  EXPECT_LE(q.measured_ns, 100 * kNsPerMs + 2 * q.dirs[1].latency.max());
  EXPECT_NEAR(q.Iops(q.dirs[1]) * q.dirs[1].latency.Mean() * 1e-9, 4.0, 4e-3);
  // Counters count what was submitted in the window; the statistics add the ramp's I/Os that
  // completed in it, and the I/Os in flight at its end are waited for.
  EXPECT_EQ(Counter(q, "host_pages_written") + static_cast<double>(q.edge.from_ramp),
            static_cast<double>(q.dirs[1].ios));
}

TEST(SimBackend, IntervalsAndIoLogAddUp) {
  struct Sink : IoLogSink {
    void Write(const IoRecord* r, size_t n) override {
      for (size_t i = 0; i < n; ++i) bytes += r[i].bytes, ++count;
    }
    uint64_t count = 0, bytes = 0;
  } sink;
  auto b = Open("sim:tiny?capacity=64MiB");
  WorkloadSpec s = Spec(*b, "randrw", "4KiB", 8, "", "1s");
  s.interval_ns = 100 * kNsPerMs;
  uint64_t callbacks = 0, ios = 0;
  RunControl c;
  c.io_log = &sink;
  c.on_interval = [&](const IntervalSample& i) {
    ++callbacks;
    ios += i.dirs[0].ios + i.dirs[1].ios;
  };
  auto r = b->RunPhase(s, c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->intervals.size(), 10u);
  EXPECT_EQ(callbacks, 10u);
  uint64_t series_ios = 0;
  for (const IntervalSample& i : r->intervals) series_ios += i.dirs[0].ios + i.dirs[1].ios;
  EXPECT_EQ(series_ios, r->Total().ios);
  // The last interval, seen as it closed at the runtime's end, then took in the I/Os in flight
  // there (the edge: at most the queue depth).
  EXPECT_LE(ios, r->Total().ios);
  EXPECT_LE(r->Total().ios - ios, r->edge.in_flight);
  EXPECT_EQ(r->edge.in_flight, 8u);
  EXPECT_EQ(sink.count, r->Total().ios);
  EXPECT_EQ(sink.bytes, r->Total().bytes);
  // The series ends at the last completion, within one I/O's latency of the runtime's end.
  EXPECT_GE(r->intervals.back().t_end_ns, kNsPerS);
  EXPECT_LE(r->intervals.back().t_end_ns, kNsPerS + r->edge.longest_ns);
}

TEST(SimBackend, OpenLoopRateAndLatencyFromSchedule) {
  auto b = Open("sim:tiny?capacity=64MiB");
  WorkloadSpec s = Spec(*b, "randread", "4KiB", 4, "", "1s", "0%-100%", 2);
  s.rate_iops = 5000;
  PhaseResult r = RunSpec(*b, s);
  EXPECT_NEAR(r.Iops(r.Total()), 5000, 50);
  // Overload: rate far above capacity; latency counted from the scheduled time grows.
  WorkloadSpec o = s;
  o.rate_iops = 10e6;
  o.runtime_ns = 100 * kNsPerMs;
  PhaseResult q = RunSpec(*b, o);
  EXPECT_GT(q.dirs[0].latency.max(), 10 * q.dirs[0].latency.min());
}

TEST(SimBackend, StopInterrupts) {
  auto b = Open("sim:tiny?capacity=64MiB");
  std::atomic<bool> stop{true};
  RunControl c;
  c.stop = &stop;
  auto r = b->RunPhase(Spec(*b, "randread", "4KiB", 4, "", "1000s"), c);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->interrupted);
  EXPECT_LT(r->measured_ns, 1000 * kNsPerS);
}

TEST(SimBackend, StatePersistsAndPurgeResets) {
  auto b = Open("sim:tiny?capacity=64MiB");
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
  EXPECT_GT(b->counters().host_pages_written, 0u);
  const uint64_t t = b->now_ns();
  ASSERT_TRUE(b->Idle(kNsPerS, RunControl{}).ok());
  EXPECT_EQ(b->now_ns(), t + kNsPerS);
  b->ResetFactoryFresh();
  EXPECT_EQ(b->counters().host_pages_written, 0u);
  EXPECT_EQ(b->counters().nand_pages_written, 0u);
  // A purged drive reads nothing from NAND.
  PhaseResult r = RunSpec(*b, Spec(*b, "randread", "4KiB", 4, "1MiB"));
  EXPECT_EQ(Counter(r, "nand_page_reads"), 0);
}

// host_max_cmd: a large request goes to the drive as several commands at once. One 16 MiB
// read at QD 1 books its controller time, NAND reads and link transfer one after another; as
// 128 KiB commands they overlap, so it reaches the link-bound rate of 128 KiB reads at depth.
// Requests no larger than the limit, and every other workload, are unchanged.
TEST(SimBackend, HostSplitsLargeRequestsIntoCommands) {
  auto mb_s = [](const std::string& target, const std::string& rw, uint64_t bs, uint32_t qd) {
    auto b = Open(target);
    RunSpec(*b, Spec(*b, "write", "128KiB", 8, "", "", "0%-50%"));  // never split
    auto r = RunSpec(*b, Spec(*b, rw, std::to_string(bs), qd, "", "", "0%-50%"));
    const DirectionStats& d = r.dirs[rw == "read" ? 0 : 1];
    EXPECT_EQ(d.ios * bs, d.bytes);  // one I/O per request, split or not
    return r.BytesPerS(d) / 1e6;
  };
  const std::string plain = "sim:dc-sata-mixed?scale=4096&host_max_cmd=0";
  const std::string split = "sim:dc-sata-mixed?scale=4096&host_max_cmd=128KiB";
  const uint64_t k128 = 128 << 10, m16 = 16 << 20;
  const double whole = mb_s(plain, "read", m16, 1);
  const double pieces = mb_s(split, "read", m16, 1);
  const double deep = mb_s(plain, "read", k128, 32);
  RecordProperty("read_16MiB_qd1_mb_s", std::to_string(whole) + " -> " + std::to_string(pieces));
  RecordProperty("read_128KiB_qd32_mb_s", std::to_string(deep));
  EXPECT_GT(pieces, 1.1 * whole);
  EXPECT_GT(pieces, 0.97 * deep);
  EXPECT_LE(pieces, 1.01 * deep);
  EXPECT_GT(mb_s(split, "write", m16, 1), 1.05 * mb_s(plain, "write", m16, 1));
  EXPECT_EQ(mb_s(split, "read", k128, 32), deep);
  EXPECT_FALSE(OpenSimBackend("sim:tiny?logical_block=4096&host_max_cmd=1000").ok());
}

// SubmitAt (the entry `sim serve` paces): commands submitted one at a time, each when the
// previous completes, see what a QD1 phase of the same requests sees, write by write, and the
// drive's counters move as in the phase. A flush waits for every command submitted before it.
TEST(SimBackend, SubmitAtMatchesAQd1Phase) {
  auto phase = Open("sim:tiny?capacity=64MiB");
  const PhaseResult r = RunSpec(*phase, Spec(*phase, "write", "4KiB", 1, "8MiB"));
  auto served = Open("sim:tiny?capacity=64MiB");
  uint64_t t = served->now_ns(), sum_ns = 0;
  const uint64_t n = (8 << 20) / 4096;
  for (uint64_t i = 0; i < n; ++i) {
    auto done = served->SubmitAt(Direction::kWrite, i * 4096, 4096, t);
    ASSERT_TRUE(done.ok()) << done.status().message();
    ASSERT_GT(*done, t);
    sum_ns += *done - t;
    t = *done;
  }
  const DirectionStats& w = r.dirs[static_cast<size_t>(Direction::kWrite)];
  ASSERT_EQ(w.ios, n);
  EXPECT_EQ(sum_ns, w.latency.sum());
  EXPECT_EQ(served->counters().host_pages_written, n);
  EXPECT_EQ(served->counters().nand_pages_written, phase->counters().nand_pages_written);
  auto done = served->SubmitAt(Direction::kWrite, 0, 64 << 10, t);
  ASSERT_TRUE(done.ok());
  EXPECT_GE(served->FlushAt(t), *done);
  EXPECT_EQ(served->FlushAt(*done + 5), *done + 6);
  EXPECT_FALSE(served->SubmitAt(Direction::kRead, served->info().size_bytes, 4096, t).ok());
  EXPECT_FALSE(served->SubmitAt(Direction::kRead, 0, 4096, t - 1).ok());  // before the clock
}

TEST(SimBackend, BadPhaseIsInvalid) {
  auto b = Open("sim:tiny?capacity=64MiB");
  WorkloadSpec s = Spec(*b, "randread", "4KiB", 1, "1MiB");
  s.range_end_bytes = b->info().size_bytes + 4096;
  auto r = b->RunPhase(s, RunControl{});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
}

// "The simulator's clock always advances": commands that cost nothing still take one tick,
// so a phase by runtime ends and one by amount has a length.
TEST(SimBackend, ZeroCostCommandsStillAdvanceTheClock) {
  auto b = Open("sim:tiny?capacity=64MiB&ctrl_trim_us=0&cmd_us=0");
  PhaseResult by_amount = RunSpec(*b, Spec(*b, "randtrim", "4KiB", 1, "1x"));
  EXPECT_EQ(by_amount.dirs[2].ios, (64u << 20) / 4096);
  EXPECT_GT(by_amount.measured_ns, 0u);
  EXPECT_GT(by_amount.Iops(by_amount.dirs[2]), 0);
  PhaseResult by_time = RunSpec(*b, Spec(*b, "randtrim", "4KiB", 4, "", "10ms"));
  EXPECT_NEAR(static_cast<double>(by_time.measured_ns), 10.0 * kNsPerMs, 4);  // + a tick or so
  EXPECT_GT(by_time.dirs[2].ios, 0u);
}

// A timed source of fixed requests.
class ListSource : public RequestSource {
 public:
  explicit ListSource(std::vector<SourcedRequest> v) : v_(std::move(v)) {}
  size_t Fill(SourcedRequest* out, size_t n) override {
    size_t k = 0;
    while (k < n && i_ < v_.size()) out[k++] = v_[i_++];
    return k;
  }
  bool timed() const override { return true; }

 private:
  std::vector<SourcedRequest> v_;
  size_t i_ = 0;
};

// Due times from 0 up to just below kMaxSchedNs, with gaps of years between bursts, on a drive
// whose GC is busy, in every GC mode: every I/O is counted, the series stays bounded and the
// clock never wraps (a wrapped completion once corrupted the controller's calendar with
// gc_yield and lost I/Os in the event queue).
TEST(SimBackend, DueTimesUpTo2To62NsCountEveryIoInEveryGcMode) {
  std::vector<SourcedRequest> reqs;
  const uint64_t bursts[] = {0, 1000, uint64_t{1} << 40, uint64_t{1} << 61,
                             kMaxSchedNs - 5 * kNsPerMs};
  uint64_t k = 0;
  for (uint64_t t0 : bursts) {
    for (uint64_t i = 0; i < 400; ++i, ++k) {
      SourcedRequest r;
      r.req = {(k * 7919 % 4096) * 4096, i % 3 ? 4096u : 16384u,
               i % 5 == 4 ? Direction::kRead : Direction::kWrite};
      r.sched_ns = t0 + i * 1000;
      reqs.push_back(r);
    }
  }
  for (const char* gc : {"", "&gc_lazy=1", "&gc_lazy=1&gc_yield=1", "&gc=fifo",
                         "&gc=cost-benefit&gc_lazy=1&gc_yield=1&gc_bg_mb_s=10"}) {
    SCOPED_TRACE(gc);
    auto b = Open(std::string("sim:tiny?capacity=64MiB") + gc);
    ASSERT_NE(b, nullptr);
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 8, "3x"));  // GC at work
    ListSource src(reqs);
    WorkloadSpec s = Spec(*b, "randwrite", "16KiB", 32, "1x");
    s.io_bytes = 0;
    s.runtime_ns = 0;
    s.source = &src;
    s.interval_ns = kNsPerS;
    PhaseResult r = RunSpec(*b, s);
    EXPECT_EQ(r.Total().ios, reqs.size());
    EXPECT_LE(r.intervals.size(), 16384u);
    EXPECT_GT(r.measured_ns, kMaxSchedNs - 5 * kNsPerMs);
    EXPECT_LT(r.measured_ns, kMaxSchedNs + kNsPerS);
    uint64_t series_ios = 0;
    for (const IntervalSample& iv : r.intervals) series_ios += iv.dirs[0].ios + iv.dirs[1].ios;
    EXPECT_EQ(series_ios, reqs.size());
  }
}

}  // namespace
}  // namespace ssdlab::simtest
