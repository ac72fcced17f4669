// Invariants of the model: results must not depend on how the drive is scaled, on
// how a sustained test is cut into rounds, and background GC must be bounded by idle time.
// Virtual time only: nothing here depends on wall-clock timing.
#include <gtest/gtest.h>

#include <string>

#include "base/units.h"
#include "sim/test_util.h"
#include "stats/histogram.h"

namespace ssdlab::simtest {
namespace {

constexpr uint64_t kSecond = 1000000000ull;

// The DC400-like preset (lazy GC in batches of a fixed size) on a smaller drive.
std::string LazyTarget(const std::string& capacity, uint32_t scale) {
  return "sim:dc-sata-read-intensive?capacity=" + capacity + "&scale=" + std::to_string(scale);
}

// 4 KiB random writes with the PTS load (16 jobs x QD 8) for `seconds` of virtual time.
WorkloadSpec RandomWrites(const SimBackend& b, double seconds, uint64_t seed) {
  WorkloadSpec s = Spec(b, "randwrite", "4KiB", 8, "", "1s", "0%-100%", 16, seed);
  s.runtime_ns = static_cast<uint64_t>(seconds * static_cast<double>(kSecond));
  return s;
}

const Histogram& WriteLatency(const PhaseResult& r) {
  return r.dirs[static_cast<size_t>(Direction::kWrite)].latency;
}

TEST(Invariance, LazyGcStallsAndSteadyIopsDoNotDependOnScale) {
  // 512 GiB at scale 16 (32 GiB simulated) and 256 (2 GiB): the lazy GC batch is a fixed
  // number of bytes, so its stall is the same length on both, and so is the steady rate.
  // Whole batches at once (gc_batch_pace=0): at QD 128 every I/O in flight waits out a stall,
  // so the p99.9 write latency is the stall length (the maximum is one stall, the longest of
  // a few, so it gets a wider margin).
  struct Figures {
    double iops, wa, stall_us, max_us;
  };
  auto run = [](uint32_t scale) {
    auto b = Open(LazyTarget("512GiB", scale) + "&gc_batch_pace=0");
    RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 8, "2x", "", "0%-100%", 16, 11));
    PhaseResult r = RunSpec(*b, RandomWrites(*b, 30, 12));
    return Figures{WriteIops(r), Counter(r, "write_amplification"),
                   WriteLatency(r).Percentile(99.9) / 1e3,
                   static_cast<double>(WriteLatency(r).max()) / 1e3};
  };
  const Figures a = run(16), b = run(256);
  RecordProperty("iops_scale16", std::to_string(a.iops));
  RecordProperty("iops_scale256", std::to_string(b.iops));
  RecordProperty("stall_us_scale16", std::to_string(a.stall_us));
  RecordProperty("stall_us_scale256", std::to_string(b.stall_us));
  EXPECT_NEAR(b.iops / a.iops, 1.0, 0.05) << a.iops << " vs " << b.iops;
  EXPECT_NEAR(b.wa / a.wa, 1.0, 0.05) << a.wa << " vs " << b.wa;
  EXPECT_NEAR(b.stall_us / a.stall_us, 1.0, 0.05) << a.stall_us << " vs " << b.stall_us;
  EXPECT_NEAR(b.max_us / a.max_us, 1.0, 0.10) << a.max_us << " vs " << b.max_us;
  // The stalls are the lazy batches (tenths of a second), not queueing at QD 128 alone.
  EXPECT_GT(a.stall_us, 100000);
}

// The DC400 preset paces its lazy batches (gc_batch_pace): in steady state no write waits out
// a batch, at any scale. Its datasheet's write QoS (p99.9 at most 4 ms, a command's own) plus
// the queue's mean wait bounds the p99.9 at QD 8 and 32; the longest write stays far below a
// batch at once (half a second at this preset's 96 MiB).
TEST(Invariance, PacedLazyBatchesKeepSteadyWriteTailsWithinTheQos) {
  for (uint32_t scale : {16u, 256u}) {
    auto b = Open(LazyTarget("512GiB", scale));
    RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 8, "2x", "", "0%-100%", 16, 11));
    for (uint32_t qd : {8u, 32u}) {
      WorkloadSpec s = Spec(*b, "randwrite", "4KiB", qd, "", "1s", "0%-100%", 1, 40 + qd);
      s.runtime_ns = 20 * kSecond;
      const PhaseResult r = RunSpec(*b, s);
      const Histogram& lat = WriteLatency(r);
      const double mean_us = lat.Mean() / 1e3, p999_us = lat.Percentile(99.9) / 1e3;
      RecordProperty("p99_9_us_qd" + std::to_string(qd) + "_scale" + std::to_string(scale),
                     std::to_string(p999_us));
      EXPECT_GT(Counter(r, "write_amplification"), 1.5) << "not in steady state";
      EXPECT_LE(p999_us, 4000 + mean_us) << "QD " << qd << " scale " << scale;
      EXPECT_LT(static_cast<double>(lat.max()) / 1e3, 50000) << "QD " << qd << " scale " << scale;
    }
  }
}

TEST(Invariance, EagerGcAtQd1DoesNotDependOnScale) {
  // The DC400 preset with an eager GC (and 24% OP, so that QD 1 writes soon need it) at scale
  // 256 (924 blocks, a watermark of 5) and 1024 (235 blocks, 0.5% of them 1.2): a sequential
  // fill, then 4 KiB random writes at QD 1 past the spare area. The eager GC copies in the
  // gaps between the commands on both; with a watermark of 3 blocks (the least, before) the
  // small drive started its GC at the emergency level, and stalls of up to 74 ms took its mean
  // from 74 to 107 us.
  struct Figures {
    double mean_us, max_us, wa;
  };
  auto run = [](uint32_t scale) {
    auto b = Open("sim:dc-sata-read-intensive?gc_lazy=0&op=24&scale=" + std::to_string(scale));
    RunSpec(*b, Spec(*b, "write", "128KiB", 32, "1x"));
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 1, "0.4x", "", "0%-100%", 1, 21));
    PhaseResult r = RunSpec(*b, Spec(*b, "randwrite", "4KiB", 1, "", "4s", "0%-100%", 1, 22));
    return Figures{WriteLatency(r).Mean() / 1e3, static_cast<double>(WriteLatency(r).max()) / 1e3,
                   Counter(r, "write_amplification")};
  };
  const Figures a = run(256), b = run(1024);
  RecordProperty("mean_us_scale256", std::to_string(a.mean_us));
  RecordProperty("mean_us_scale1024", std::to_string(b.mean_us));
  EXPECT_GT(a.wa, 1.5);  // the GC runs
  EXPECT_GT(b.wa, 1.5);
  EXPECT_NEAR(b.mean_us / a.mean_us, 1.0, 0.03) << a.mean_us << " vs " << b.mean_us;
  EXPECT_LT(b.max_us, 10000) << "a stall of the whole pool's refill";
}

// WSAT-like: 4 KiB random writes from factory-fresh for `total_s`, cut into rounds of
// `round_s` (0: one continuous phase with 1 s intervals), each round a new seed as the PTS
// suite runs them. Returns the write IOPS over the second half (the plateau).
double WsatPlateau(double round_s, double total_s) {
  auto b = Open(LazyTarget("32GiB", 16));
  uint64_t ios = 0;
  double measured_s = 0;
  if (round_s == 0) {
    WorkloadSpec s = RandomWrites(*b, total_s, 100);
    s.interval_ns = kSecond;
    PhaseResult r = RunSpec(*b, s);
    for (const IntervalSample& iv : r.intervals) {
      if (iv.t_begin_ns < static_cast<uint64_t>(total_s / 2 * kSecond)) continue;
      ios += iv.dirs[static_cast<size_t>(Direction::kWrite)].ios;
      measured_s += static_cast<double>(iv.t_end_ns - iv.t_begin_ns) / kSecond;
    }
  } else {
    const int rounds = static_cast<int>(total_s / round_s + 0.5);
    for (int i = 0; i < rounds; ++i) {
      PhaseResult r = RunSpec(*b, RandomWrites(*b, round_s, 100 + i));
      if (i < rounds / 2) continue;
      ios += r.dirs[static_cast<size_t>(Direction::kWrite)].ios;
      measured_s += static_cast<double>(r.measured_ns) / kSecond;
    }
    // Rounds follow each other without gaps: the virtual time is the rounds' runtime and the
    // first round's fill (its queue starts empty, backend/phase_recorder.h; each later round
    // takes the I/Os in flight over), a few milliseconds.
    const double now_s = static_cast<double>(b->now_ns()) / kSecond;
    EXPECT_GT(now_s, total_s);
    EXPECT_LT(now_s, total_s + 0.01);
  }
  // The rounds' measured times partition the time line (each I/O's time is counted by the
  // round that issued it, backend/phase_recorder.h) but for the edges of the second half: the
  // I/Os of the round before it holding slots in its first round, and those of its last round
  // (or the continuous phase's last interval) running past the end.
  EXPECT_NEAR(measured_s, total_s / 2, 0.01 * total_s / 2);
  return static_cast<double>(ios) / measured_s;
}

TEST(Invariance, WsatPlateauDoesNotDependOnRoundLength) {
  const double total_s = 240;
  const double continuous = WsatPlateau(0, total_s);
  RecordProperty("plateau_continuous", std::to_string(continuous));
  for (double round_s : {0.25, 5.0, 60.0}) {
    const double v = WsatPlateau(round_s, total_s);
    RecordProperty("plateau_round_" + std::to_string(round_s), std::to_string(v));
    EXPECT_NEAR(v / continuous, 1.0, 0.05)
        << "rounds of " << round_s << " s: " << v << " IOPS, continuous " << continuous;
  }
}

// HIR-like: steady state, then cycles of 5 s of random writes and `wait_s` of idle; the write
// IOPS of the last burst.
double HirBurstIops(double wait_s) {
  // Big enough that 50 s of background GC stays below its target share of free blocks.
  auto b = Open(LazyTarget("64GiB", 16));
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
  RunSpec(*b, Spec(*b, "randwrite", "4KiB", 8, "3x", "", "0%-100%", 16, 11));
  double iops = 0;
  for (int i = 0; i < 3; ++i) {
    iops = WriteIops(RunSpec(*b, RandomWrites(*b, 5, 20 + i)));
    EXPECT_TRUE(b->Idle(static_cast<uint64_t>(wait_s * kSecond), RunControl{}).ok());
  }
  return iops;
}

TEST(Invariance, HostIdleRecoveryGrowsWithTheWait) {
  const double w5 = HirBurstIops(5), w15 = HirBurstIops(15), w50 = HirBurstIops(50);
  RecordProperty("burst_iops_wait5", std::to_string(w5));
  RecordProperty("burst_iops_wait15", std::to_string(w15));
  RecordProperty("burst_iops_wait50", std::to_string(w50));
  EXPECT_GT(w15, w5 * 1.05) << w5 << " " << w15;
  EXPECT_GT(w50, w15 * 1.05) << w15 << " " << w50;
}

// The TP test's shape: cells of two workloads in turn (1 MiB and 128 KiB sequential reads, 8
// jobs x QD 16: the 1 MiB cell leaves 128 MiB in flight, a third of a second at the
// controller's pace). The 128 KiB cell's throughput must not depend on the cells' length: it
// starts once the last cell's commands have completed, not behind them (before, a 0.5 s cell
// lost most of its window).
double AlternatingCellBytesPerS(double cell_s) {
  auto b = Open(LazyTarget("64GiB", 16));
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
  double bw = 0;
  for (int round = 0; round < 2; ++round) {
    for (const char* bs : {"1MiB", "128KiB"}) {
      WorkloadSpec s = Spec(*b, "read", bs, 16, "", "1s", "0%-100%", 8, 30 + round);
      s.runtime_ns = static_cast<uint64_t>(cell_s * static_cast<double>(kSecond));
      const PhaseResult r = RunSpec(*b, s);
      if (std::string(bs) == "128KiB") bw = r.BytesPerS(r.Total());
    }
  }
  return bw;
}

TEST(Invariance, AlternatingCellsDoNotDependOnTheirLength) {
  const double long_cells = AlternatingCellBytesPerS(8),
               short_cells = AlternatingCellBytesPerS(0.5);
  RecordProperty("bytes_per_s_8s_cells", std::to_string(long_cells));
  RecordProperty("bytes_per_s_0_5s_cells", std::to_string(short_cells));
  EXPECT_GT(long_cells, 100e6);
  EXPECT_NEAR(short_cells / long_cells, 1.0, 0.03) << short_cells << " " << long_cells;
}

// A window of a closed loop that starts with its queue empty (no ramp, no previous round of
// the same workload) opens once the queue has turned over (backend/phase_recorder.h): its figures
// do not depend on its length and never pass the interface. 1 MiB sequential reads, 8 jobs x QD
// 16 on the 550 MB/s SATA link of a filled drive: before, a 20 ms window read 767 MB/s and a 1 s
// one 466 MB/s; 4 KiB random writes, 16 jobs x QD 8, fresh: 4 ms read 19% above 1 s.
TEST(Invariance, AWindowStartedEmptyDoesNotDependOnItsLengthNorPassTheLink) {
  auto b = Open(LazyTarget("64GiB", 16));
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
  auto read_bw = [&](uint64_t runtime_ns, uint64_t seed) {
    RunSpec(*b,
            Spec(*b, "randwrite", "4KiB", 1, "", "1ms", "0%-100%", 1, seed));  // breaks the stream
    WorkloadSpec s = Spec(*b, "read", "1MiB", 16, "", "1s", "0%-100%", 8, seed);
    s.runtime_ns = runtime_ns;
    const PhaseResult r = RunSpec(*b, s);
    return r.BytesPerS(r.Total());
  };
  const double short_bw = read_bw(20'000'000, 1), long_bw = read_bw(kSecond, 2);
  RecordProperty("read_bytes_per_s_20ms", std::to_string(short_bw));
  RecordProperty("read_bytes_per_s_1s", std::to_string(long_bw));
  EXPECT_LE(short_bw, 550e6);
  EXPECT_LE(long_bw, 550e6);
  EXPECT_NEAR(short_bw / long_bw, 1.0, 0.03) << short_bw << " " << long_bw;

  auto fresh = Open(LazyTarget("64GiB", 16));
  const double iops_4ms = WriteIops(RunSpec(*fresh, RandomWrites(*fresh, 0.004, 1)));
  auto fresh2 = Open(LazyTarget("64GiB", 16));
  const double iops_1s = WriteIops(RunSpec(*fresh2, RandomWrites(*fresh2, 1, 1)));
  RecordProperty("write_iops_4ms", std::to_string(iops_4ms));
  RecordProperty("write_iops_1s", std::to_string(iops_1s));
  EXPECT_NEAR(iops_4ms / iops_1s, 1.0, 0.05) << iops_4ms << " " << iops_1s;
}

}  // namespace
}  // namespace ssdlab::simtest
