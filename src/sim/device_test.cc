#include "sim/device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "base/rng.h"
#include "sim/exponential.h"
#include "sim/fastdiv.h"
#include "sim/params.h"

namespace ssdlab::sim {
namespace {

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

struct Fixture {
  explicit Fixture(const std::string& target)
      : p(ParseSimTarget(target).value()), g(DeriveGeometry(p)), dev(p, g) {}
  SimParams p;
  Geometry g;
  SimDevice dev;
};

uint64_t ReferenceExponentialNs(uint64_t k, double mean_ns) {
  return static_cast<uint64_t>(-mean_ns * std::log(static_cast<double>(k) * 0x1.0p-53));
}

// The inline draws are the formula's bit for bit: on random draws, on the edges of k's range
// and of its binades, and on draws placed within a hair of an integer (the fallback).
TEST(Exponential, TruncatedDrawsAreTheFormulasBitForBit) {
  const std::vector<double> means = {0.5, 1.0, 37.5, 1000.0, 3000.0, 12345.678, 2.5e6};
  std::vector<uint64_t> ks = {1,
                              2,
                              3,
                              (uint64_t{1} << 52) - 1,
                              uint64_t{1} << 52,
                              (uint64_t{1} << 52) + 1,
                              (uint64_t{1} << 53) - 1,
                              uint64_t{1} << 53};
  for (int b = 2; b < 53; ++b)
    for (int64_t d = -2; d <= 2; ++d) ks.push_back((uint64_t{1} << b) + d);
  Rng rng(7);
  for (int i = 0; i < 2'000'000; ++i) ks.push_back((rng.Next() >> 11) + 1);
  for (double mean : means) {
    for (uint64_t k : ks) {
      ASSERT_EQ(TruncatedExponentialNs(k, mean), ReferenceExponentialNs(k, mean))
          << "k " << k << " mean " << mean;
    }
    // Draws whose value is nearly the integer n: k = 2^53 * exp(-n / mean) and neighbours.
    for (double n = 1; n < 40 * mean && n < 1e7; n = n * 1.7 + 1) {
      const auto k0 = static_cast<int64_t>(std::exp(-std::floor(n) / mean) * 0x1.0p53);
      for (int64_t d = -3; d <= 3; ++d) {
        const int64_t k = k0 + d;
        if (k < 1 || k > (int64_t{1} << 53)) continue;
        ASSERT_EQ(TruncatedExponentialNs(k, mean), ReferenceExponentialNs(k, mean))
            << "k " << k << " mean " << mean;
      }
    }
  }
}

// The approximation's own error is as small as its header says (the slack, mean_ns * 38 *
// 2^-40, is thousands of times this for every mean).
TEST(Exponential, NegLogWithinItsBound) {
  Rng rng(11);
  double worst = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    const uint64_t k = (rng.Next() >> (11 + rng.Below(53))) + 1;
    const double ref = -std::log(static_cast<double>(k) * 0x1.0p-53);
    worst = std::max(worst, std::abs(kExponentialTable.NegLog(k) - ref));
  }
  EXPECT_LT(worst, 5e-14);
  EXPECT_GT(worst, 0.0);  // (the check compares two different computations)
}

TEST(FastDiv, DivAndModExact) {
  for (uint32_t d : {1u, 2u, 3u, 7u, 16u, 96u, 1000u, 65537u, 4294967295u}) {
    const FastDiv f(d);
    for (uint32_t x : {0u, 1u, 2u, 5u, 95u, 96u, 97u, 65535u, 65536u, 123456789u, 2147483648u,
                       4294967294u, 4294967295u}) {
      EXPECT_EQ(f.Div(x), x / d) << x << " / " << d;
      EXPECT_EQ(f.Mod(x), x % d) << x << " % " << d;
    }
  }
}

TEST(LinkCalendar, FillsGapsBeforeLaterBookings) {
  LinkCalendar c;
  EXPECT_EQ(c.Book(100, 10, 0), 110u);  // [100, 110)
  EXPECT_EQ(c.Book(105, 10, 0), 120u);  // busy at 105: right after, [110, 120)
  EXPECT_EQ(c.Book(0, 50, 0), 50u);     // fits in the gap before [100, 120)
  EXPECT_EQ(c.Book(40, 50, 0), 100u);   // exactly [50, 100): the link is now busy 0..120
  EXPECT_EQ(c.Book(60, 5, 0), 125u);    // no gap left before the end
  EXPECT_EQ(c.Book(200, 10, 150), 210u);
  EXPECT_EQ(c.Book(150, 10, 150), 160u);  // before [200, 210)
  EXPECT_EQ(c.Book(155, 41, 155), 251u);  // [160, 200) is too short: after 210
}

TEST(LinkCalendar, AgreesWithFirstFitOverEveryBooking) {
  // Reference: every interval ever booked, first fit from `ready`. Mixed workloads book reads
  // ahead (data ready after tR) and writes at once; the calendar must give the same ends.
  Rng rng(7);
  LinkCalendar c;
  std::vector<std::pair<uint64_t, uint64_t>> booked;  // disjoint, sorted by begin
  uint64_t now = 0;
  for (int i = 0; i < 20000; ++i) {
    now += rng.Below(40);
    const uint64_t ready = now + (rng.Below(3) == 0 ? rng.Below(400) : 0);
    const uint64_t dur = 1 + rng.Below(30);
    uint64_t start = ready;
    auto it = booked.begin();
    for (; it != booked.end(); ++it) {
      if (it->second <= start) continue;
      if (it->first >= start + dur) break;
      start = it->second;
    }
    booked.insert(it, {start, start + dur});
    ASSERT_EQ(c.Book(ready, dur, now), start + dur) << "booking " << i;
  }
}

TEST(SimDevice, SataLinkIsSharedByBothDirections) {
  // A read booked first (its data is ready only after tR) does not keep a later write's data
  // off the idle link; both still share one link.
  Fixture f("sim:tiny?cmd_us=0");
  const uint64_t t0 = 0;
  f.dev.Submit(Direction::kWrite, 0, 4096, t0);
  const uint64_t t1 = 100000000;  // long after that program
  const uint64_t read_done = f.dev.Submit(Direction::kRead, 0, 4096, t1);
  const uint64_t write_done = f.dev.Submit(Direction::kWrite, 1 << 20, 4096, t1);
  EXPECT_LT(write_done, read_done);  // the write's data crossed while the read sensed
}

TEST(SimDevice, ReadsOfUnwrittenPagesSkipNand) {
  Fixture f("sim:tiny");
  const uint64_t t0 = 1000000;
  const uint64_t unwritten = f.dev.Submit(Direction::kRead, 0, 4096, t0) - t0;
  const uint64_t w = f.dev.Submit(Direction::kWrite, 8192, 4096, t0 + 10000000);
  const uint64_t t1 = w + 50000000;  // long after the program finished
  const uint64_t written = f.dev.Submit(Direction::kRead, 8192, 4096, t1) - t1;
  EXPECT_GE(written, unwritten + static_cast<uint64_t>(f.p.t_read_us * 1000));
  EXPECT_EQ(f.dev.counters().nand_reads, 1u);
}

TEST(SimDevice, WritesCompleteWhenBufferedNotWhenProgrammed) {
  Fixture f("sim:tiny");
  const uint64_t done = f.dev.Submit(Direction::kWrite, 0, 4096, 0);
  EXPECT_LT(done, static_cast<uint64_t>(f.p.t_prog_us * 1000));
}

TEST(SimDevice, FullBufferMakesWritesWaitForNand) {
  Fixture f("sim:tiny?buffer=256KiB");
  uint64_t t = 0, last = 0;
  // 4 MiB at once: far more than the buffer; completions must follow NAND program speed.
  for (uint64_t off = 0; off < (4 << 20); off += 4096)
    last = f.dev.Submit(Direction::kWrite, off, 4096, t);
  const double nand_units_per_ns = f.g.dies * f.g.units_per_prog / (f.p.t_prog_us * 1000);
  const double min_ns = ((4 << 20) / 4096 - f.g.buffer_pages) / nand_units_per_ns;
  EXPECT_GT(static_cast<double>(last), min_ns * 0.9);
}

// read_flush: a read reaching an idle drive that holds buffered writes waits for their program;
// a read with nothing buffered, or with the option off, does not.
TEST(SimDevice, ReadFlushMakesAReadAfterWritesWaitForTheirProgram) {
  const uint64_t t_prog_ns = 1000000;  // 1 ms
  auto read_after_write = [&](const std::string& target, bool write_first) {
    Fixture f(target);
    uint64_t t = 1000000;
    f.dev.Submit(Direction::kWrite, 0, 4096, t);  // mapped, so the reads below touch NAND
    t += 100000000;                               // its program long done
    f.dev.Submit(Direction::kRead, 0, 4096, t);   // flushes the unit above if read_flush
    t += 100000000;
    if (write_first) t = f.dev.Submit(Direction::kWrite, 1 << 20, 4096, t) + 1000;
    return f.dev.Submit(Direction::kRead, 0, 4096, t) - t;
  };
  const std::string flush = "sim:tiny?t_prog_us=1000&read_flush=1";
  const uint64_t plain = read_after_write(flush, false);
  const uint64_t flushed = read_after_write(flush, true);
  const uint64_t off = read_after_write("sim:tiny?t_prog_us=1000", true);
  EXPECT_LT(plain, t_prog_ns / 2);
  EXPECT_GE(flushed, plain + t_prog_ns);
  EXPECT_LT(off, t_prog_ns / 2);
  // The flushed unit was programmed once: a second read does not flush again.
  Fixture f(flush);
  const uint64_t w = f.dev.Submit(Direction::kWrite, 0, 4096, 0);
  const uint64_t r1 = f.dev.Submit(Direction::kRead, 0, 4096, w + 1000);
  const uint64_t r2 = f.dev.Submit(Direction::kRead, 0, 4096, r1 + 1000) - (r1 + 1000);
  EXPECT_GE(r1 - w, t_prog_ns);
  EXPECT_LT(r2, t_prog_ns / 2);
}

// read_flush_big_pct: after a write larger than 4 KiB the next read flushes with that chance
// (one draw per write; the reads after a read that drew none wait for nothing); after a 4 KiB
// write it always does.
TEST(SimDevice, ReadFlushAfterALargeWriteHasItsChance) {
  // Of 1000 write-read-read rounds on an idle drive: how many first and second reads waited.
  auto waited = [](const std::string& target, uint32_t write_bytes) {
    Fixture f(target);
    f.dev.Submit(Direction::kWrite, 0, 4096, 0);  // mapped, so the reads touch NAND
    uint64_t t = 100000000;
    std::pair<int, int> n{0, 0};
    for (uint64_t i = 1; i <= 1000; ++i) {
      const uint64_t w = f.dev.Submit(Direction::kWrite, (i % 64) << 20, write_bytes, t);
      const uint64_t r1 = f.dev.Submit(Direction::kRead, 0, 4096, w + 1000);
      const uint64_t r2 = f.dev.Submit(Direction::kRead, 0, 4096, r1 + 1000);
      n.first += r1 - w - 1000 >= 1000000;
      n.second += r2 - r1 - 1000 >= 1000000;
      // Empties the open group for the next round: a read after a 4 KiB write flushes it.
      const uint64_t w4 = f.dev.Submit(Direction::kWrite, 32 << 20, 4096, r2 + 100000000);
      t = f.dev.Submit(Direction::kRead, 0, 4096, w4 + 1000) + 100000000;
    }
    return n;
  };
  const std::string flush = "sim:tiny?t_prog_us=1000&read_flush=1&read_flush_big_pct=30";
  const auto big = waited(flush, 8192);
  // 1000 draws of chance 0.3: within 4 standard deviations (14.5) of 300.
  EXPECT_NEAR(big.first, 300, 60);
  EXPECT_EQ(big.second, 0);
  EXPECT_EQ(waited(flush, 4096), std::make_pair(1000, 0));
  EXPECT_EQ(waited("sim:tiny?t_prog_us=1000&read_flush=1", 8192), std::make_pair(1000, 0));
  EXPECT_EQ(big, waited(flush, 8192));  // seeded
}

// ctrl_write_jitter_pct: that share of a write command's controller time is drawn from an
// exponential of the same mean, so QD 1 write latencies spread around an unchanged mean.
TEST(SimDevice, WriteJitterSpreadsWriteLatencyAroundTheSameMean) {
  auto latencies_us = [](const std::string& target) {
    Fixture f(target);
    std::vector<double> out;
    uint64_t t = 0;
    for (uint64_t i = 0; i < 2000; ++i) {
      const uint64_t done = f.dev.Submit(Direction::kWrite, (i % 256) * 4096, 4096, t);
      out.push_back(static_cast<double>(done - t) / 1e3);
      t = done + 10000000;  // idle: buffered units programmed, nothing queued
    }
    return out;
  };
  const std::string base = "sim:tiny?ctrl_write_us=50";
  const std::vector<double> plain = latencies_us(base);
  const std::vector<double> jittered = latencies_us(base + "&ctrl_write_jitter_pct=80");
  const auto [lo, hi] = std::minmax_element(jittered.begin(), jittered.end());
  EXPECT_LT(
      *std::max_element(plain.begin(), plain.end()) - *std::min_element(plain.begin(), plain.end()),
      1.0);
  // 2000 draws of a mean of 40 us: the sample mean is within 4 us (4.5 standard errors).
  EXPECT_NEAR(Mean(jittered), Mean(plain), 4);
  EXPECT_LT(*lo, Mean(plain) - 30);   // the fixed part is 10 of the 50 us
  EXPECT_GT(*hi, Mean(plain) + 150);  // an exponential's tail: the largest of 2000 ~ 7.6x
  EXPECT_EQ(jittered, latencies_us(base + "&ctrl_write_jitter_pct=80"));
}

// QD 1 write latencies (us) of `n` writes of `bytes` at aligned offsets, each `gap_ns` after
// the last completed.
std::vector<double> WriteLatenciesUs(const std::string& target, uint32_t bytes, int n,
                                     uint64_t gap_ns) {
  Fixture f(target);
  std::vector<double> out;
  uint64_t t = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t done = f.dev.Submit(Direction::kWrite, (i % 64) * uint64_t{bytes}, bytes, t);
    out.push_back(static_cast<double>(done - t) / 1e3);
    t = done + gap_ns;
  }
  return out;
}

// Every merge_every-th write that does not cover whole merge units waits merge_us; writes of
// whole units never do.
TEST(SimDevice, MergesOfPartialWritesHoldEveryNthOne) {
  const std::string target = "sim:tiny?merge_unit=8KiB&merge_every=4&merge_us=1000";
  const std::vector<double> small = WriteLatenciesUs(target, 4096, 40, 1000000);
  const double fast = *std::min_element(small.begin(), small.end());
  for (size_t i = 0; i < small.size(); ++i) {
    if (i % 4 == 3) {
      EXPECT_GT(small[i], fast + 990) << "write " << i;
    } else {
      EXPECT_LT(small[i], fast + 100) << "write " << i;
    }
  }
  const std::vector<double> whole = WriteLatenciesUs(target, 8192, 40, 1000000);
  EXPECT_LT(*std::max_element(whole.begin(), whole.end()),
            *std::min_element(whole.begin(), whole.end()) + 100);
}

// With a partial-write log, housekeeping holds writes only when the log took writes: 8 KiB
// writes on an 8 KiB merge unit see no hold, 4 KiB ones do, and without the log every write
// size does.
TEST(SimDevice, HousekeepingHoldsWritesOnlyAfterPartialWritesWhenLogged) {
  const std::string hk = "sim:tiny?hk_period_ms=10&hk_us=2000";
  auto worst_us = [](const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end());
  };
  // 200 writes 0.5 ms apart cross about 10 windows.
  const double whole_logged =
      worst_us(WriteLatenciesUs(hk + "&merge_unit=8KiB", 8192, 200, 500000));
  const double small_logged =
      worst_us(WriteLatenciesUs(hk + "&merge_unit=8KiB", 4096, 200, 500000));
  const double whole_plain = worst_us(WriteLatenciesUs(hk, 8192, 200, 500000));
  EXPECT_LT(whole_logged, 500);
  EXPECT_GT(small_logged, 1000);
  EXPECT_GT(whole_plain, 1000);
}

// A read that arrives while other commands are in flight is not held by a flush (only an
// idle drive flushes): at depth the mix keeps its speed.
TEST(SimDevice, ReadFlushLeavesABusyDriveAlone) {
  Fixture f("sim:tiny?t_prog_us=1000&read_flush=1");
  const uint64_t w = f.dev.Submit(Direction::kWrite, 0, 4096, 0);
  // Submitted before the write completed: the drive is busy.
  const uint64_t r = f.dev.Submit(Direction::kRead, 8192, 4096, w - 1) - (w - 1);
  EXPECT_LT(r, 1000000u / 2);
}

// t_prog_type_pct: programs of successive pages of a die alternate LSB (shorter) and MSB
// (longer) on MLC, averaging t_prog.
TEST(SimDevice, ProgramTimeFollowsThePageType) {
  auto buffered_write_ns = [](const std::string& target) {
    Fixture f(target + "&buffer=64KiB");
    uint64_t last = 0;
    for (uint64_t off = 0; off < (8 << 20); off += 4096)
      last = f.dev.Submit(Direction::kWrite, off, 4096, 0);
    return last;
  };
  const uint64_t same = buffered_write_ns("sim:tiny?bits_per_cell=2&t_prog_us=1000");
  const uint64_t typed =
      buffered_write_ns("sim:tiny?bits_per_cell=2&t_prog_us=1000&t_prog_type_pct=80");
  // NAND-bound either way; the mean program time is the same, within the end effects.
  EXPECT_NEAR(static_cast<double>(typed), static_cast<double>(same), 0.1 * same);
  EXPECT_NE(typed, same);
}

// t_prog_jitter_us: every native program takes a random (exponential, seeded) extra. Each read
// below waits for the program of the write before it (read_flush), so its wait shows that
// program's time: spread with a mean of tPROG + the jitter's, and the same again on a rerun.
TEST(SimDevice, ProgramJitterSpreadsProgramTimesBySeed) {
  auto waits_us = [](const std::string& target) {
    Fixture f(target);
    f.dev.Submit(Direction::kWrite, 0, 4096, 0);  // mapped, so the reads touch NAND
    uint64_t t = 100000000;
    std::vector<double> out;
    for (uint64_t i = 1; i <= 400; ++i) {
      const uint64_t w = f.dev.Submit(Direction::kWrite, (i % 64) << 20, 4096, t);
      const uint64_t r = f.dev.Submit(Direction::kRead, 0, 4096, w + 1000);
      out.push_back(static_cast<double>(r - w - 1000) / 1e3);
      t = r + 100000000;  // the drive idle again
    }
    return out;
  };
  const std::string flush = "sim:tiny?t_prog_us=1000&read_flush=1";
  const std::vector<double> plain = waits_us(flush);
  const std::vector<double> jittered = waits_us(flush + "&t_prog_jitter_us=300");
  auto spread = [](const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
  };
  EXPECT_GE(Mean(plain), 1000);
  EXPECT_LT(spread(plain), 50);
  // 400 draws of a mean of 300 us: the sample mean is within 60 us (4 standard errors).
  EXPECT_NEAR(Mean(jittered) - Mean(plain), 300, 60);
  EXPECT_GT(spread(jittered), 1000);  // an exponential's tail: the largest of 400 ~ 6x its mean
  EXPECT_EQ(jittered, waits_us(flush + "&t_prog_jitter_us=300"));
  // Every seed has its own stream (seeds 2 and 3 once drew the same).
  EXPECT_NE(waits_us(flush + "&t_prog_jitter_us=300&seed=2"),
            waits_us(flush + "&t_prog_jitter_us=300&seed=3"));
  EXPECT_NE(jittered, waits_us(flush + "&t_prog_jitter_us=300&seed=0"));
}

TEST(SimDevice, TrimFreesSpaceAndCountsNoNandWrites) {
  Fixture f("sim:tiny");
  for (uint64_t off = 0; off < (1 << 20); off += 4096)
    f.dev.Submit(Direction::kWrite, off, 4096, 0);
  EXPECT_EQ(f.dev.ftl().mapped_pages(), 256u);
  f.dev.Submit(Direction::kTrim, 0, 1 << 20, 1);
  EXPECT_EQ(f.dev.ftl().mapped_pages(), 0u);
  EXPECT_EQ(f.dev.counters().nand_pages, 256u);
}

TEST(SimDevice, PartialUnitWriteReadsOldDataFirst) {
  Fixture f("sim:tiny?logical_block=512");
  f.dev.Submit(Direction::kWrite, 0, 4096, 0);
  const uint64_t reads = f.dev.counters().nand_reads;
  f.dev.Submit(Direction::kWrite, 512, 512, 100000000);
  EXPECT_EQ(f.dev.counters().nand_reads, reads + 1);
  EXPECT_EQ(f.dev.counters().host_pages, 2u);
}

TEST(SimDevice, ControllerTimeGrowsPerKibByDirection) {
  // Controller-bound (fast link, no NAND reads of unwritten space, tiny buffer not reached):
  // n commands back to back take n x (ctrl_X_us + (KiB - 4) x ctrl_X_kib_us).
  const std::string base =
      "sim:tiny?cmd_us=0&link_mb_s=1000000&ctrl_read_us=10&ctrl_write_us=20"
      "&ctrl_read_kib_us=2&ctrl_write_kib_us=1&buffer=64MiB&ctrl_unit_us=";
  auto span = [&](const std::string& target, Direction dir, uint32_t bytes) {
    Fixture f(target);
    uint64_t last = 0;
    for (int i = 0; i < 100; ++i)
      last = std::max(last, f.dev.Submit(dir, uint64_t{bytes} * i, bytes, 0));
    return static_cast<double>(last) / 100;
  };
  EXPECT_NEAR(span(base + "0", Direction::kRead, 4096), 10000, 200);
  EXPECT_NEAR(span(base + "0", Direction::kRead, 16384), 10000 + 12 * 2000, 300);
  EXPECT_NEAR(span(base + "0", Direction::kWrite, 16384), 20000 + 12 * 1000, 300);
  // ctrl_unit_us adds its quarter per KiB to both directions.
  EXPECT_NEAR(span(base + "4", Direction::kRead, 16384), 10000 + 12 * 3000, 300);
}

// ctrl_turn_us: a read after a write, or a write after a read, costs the controller that much
// more; commands in the same direction as the last do not.
TEST(SimDevice, ControllerTurnCostsAChangeOfDirectionOnly) {
  const std::string base =
      "sim:tiny?cmd_us=0&link_mb_s=1000000&ctrl_read_us=10&ctrl_write_us=20&buffer=64MiB"
      "&ctrl_turn_us=";
  // 100 commands back to back from time 0; per command, the controller-bound mean span.
  auto span = [&](const std::string& target, bool alternate) {
    Fixture f(target);
    uint64_t last = 0;
    for (int i = 0; i < 100; ++i) {
      const Direction dir = alternate && i % 2 ? Direction::kRead : Direction::kWrite;
      last = std::max(last, f.dev.Submit(dir, uint64_t{4096} * i, 4096, 0));
    }
    return static_cast<double>(last) / 100;
  };
  EXPECT_NEAR(span(base + "0", false), 20000, 200);
  EXPECT_NEAR(span(base + "7", false), 20000, 200);                     // writes only: no turn
  EXPECT_NEAR(span(base + "0", true), 15000, 200);                      // half reads, half writes
  EXPECT_NEAR(span(base + "7", true), 15000 + 7000 * 99 / 100.0, 200);  // 99 turns
}

TEST(SimDevice, ReadAheadServesSmallSequentialReadsFromDram) {
  // 4 KiB sequential reads one at a time over written data: with read-ahead the reads after
  // the first two find their data in DRAM (no tR each), so they take far less time.
  auto run = [](const std::string& q, uint64_t* nand_reads) {
    Fixture f("sim:tiny?cmd_us=0&t_read_us=200" + q);
    uint64_t t = 0;
    for (uint64_t off = 0; off < (2 << 20); off += 4096)
      t = f.dev.Submit(Direction::kWrite, off, 4096, t);
    t += 1000000000;  // programs done
    const uint64_t t0 = t;
    for (uint64_t off = 0; off < (1 << 20); off += 4096)
      t = f.dev.Submit(Direction::kRead, off, 4096, t);
    *nand_reads = f.dev.counters().nand_reads;
    return t - t0;
  };
  uint64_t reads_off = 0, reads_on = 0;
  const uint64_t off = run("", &reads_off);
  const uint64_t on = run("&read_ahead=64KiB", &reads_on);
  EXPECT_LT(on * 3, off);
  // The same data is read from NAND (ahead of need), plus at most the window past the end.
  EXPECT_LE(reads_on, reads_off + 64 / 4);
  // Random reads do not trigger it: same time with and without.
  auto random = [](const std::string& q) {
    Fixture f("sim:tiny?cmd_us=0" + q);
    uint64_t t = 0;
    for (uint64_t off = 0; off < (4 << 20); off += 4096)
      t = f.dev.Submit(Direction::kWrite, off, 4096, t);
    t += 1000000000;
    const uint64_t t0 = t;
    uint64_t x = 3;
    for (int i = 0; i < 200; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      t = f.dev.Submit(Direction::kRead, ((x >> 33) % 1024) * 4096, 4096, t);
    }
    return t - t0;
  };
  // (one in ~250 random reads happens to start where another ended)
  EXPECT_NEAR(static_cast<double>(random("&read_ahead=64KiB")), static_cast<double>(random("")),
              0.01 * static_cast<double>(random("")));
}

TEST(SimDevice, ReadAheadDataRewrittenIsReadAgain) {
  // The third read of a stream finds its unit in the read-ahead buffer unless the unit was
  // rewritten in between (then it waits for a NAND read of the new data).
  auto third_read_ns = [](bool rewrite) {
    Fixture f("sim:tiny?cmd_us=0&t_read_us=200&read_ahead=64KiB");
    uint64_t t = 0;
    for (uint64_t off = 0; off < (1 << 20); off += 4096)
      t = f.dev.Submit(Direction::kWrite, off, 4096, t);
    t += 1000000000;
    t = f.dev.Submit(Direction::kRead, 0, 4096, t);
    t = f.dev.Submit(Direction::kRead, 4096, 4096, t);  // continues: reads 8K..72K ahead
    t += 10000000;
    if (rewrite) t = f.dev.Submit(Direction::kWrite, 8192, 4096, t) + 1000000000;
    return f.dev.Submit(Direction::kRead, 8192, 4096, t) - t;
  };
  EXPECT_LT(third_read_ns(false), 200000u);
  EXPECT_GE(third_read_ns(true), 200000u);
}

// A lazy-GC drive whose GC is bound by controller time (20 us a copy): a batch of 10% of the
// blocks takes tens of milliseconds.
constexpr const char* kLazyTiny =
    "sim:tiny?capacity=64MiB&op=50&gc_lazy=1&gc_batch_pct=10&ctrl_gc_us=20";

// 4 KiB random writes at QD 1 with `think_ns` between a completion and the next write, over
// `fills` times the user space: the longest write latency and the GC copies made.
struct Qd1Writes {
  uint64_t max_ns = 0;
  double mean_ns = 0;
  uint64_t gc_copies = 0;
};
Qd1Writes RandomWritesAtQd1(const std::string& target, int fills, uint64_t think_ns) {
  Fixture f(target);
  Qd1Writes out;
  uint64_t t = 0, x = 7, sum = 0, n = 0;
  const uint64_t writes = fills * f.g.user_pages;
  for (uint64_t i = 0; i < writes; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t done =
        f.dev.Submit(Direction::kWrite, (x >> 33) % f.g.user_pages * 4096, 4096, t);
    if (i >= writes / 2) {  // after the drive has reached its steady state
      out.max_ns = std::max(out.max_ns, done - t);
      sum += done - t;
      ++n;
    }
    t = done + think_ns;
  }
  out.mean_ns = static_cast<double>(sum) / static_cast<double>(n);
  out.gc_copies = f.dev.counters().gc_copies;
  return out;
}

// RandomWritesAtQd1 over 6 fills of kLazyTiny, `think_ns` apart, into `batch`, and the same
// with `option` added to the target into `with`: both collect, and without the option a write
// now and then waits out a whole batch of 10% of the blocks, which takes far longer than a
// write.
void LazyBatchAgainst(const std::string& option, uint64_t think_ns, Qd1Writes* batch,
                      Qd1Writes* with) {
  SCOPED_TRACE("kLazyTiny against kLazyTiny" + option);
  const std::string lazy = kLazyTiny;
  *batch = RandomWritesAtQd1(lazy, 6, think_ns);
  *with = RandomWritesAtQd1(lazy + option, 6, think_ns);
  ASSERT_GT(batch->gc_copies, 0u);
  ASSERT_GT(with->gc_copies, 0u);
  EXPECT_GT(batch->max_ns, 2000000u);
}

// gc_yield: with the controller idle between QD 1 writes, lazy GC runs in those gaps, so no
// write waits for a batch; without it a write now and then waits out a whole batch. Both
// collect (yield keeps the pool between the low watermark and a batch above it, so its write
// amplification is a little higher).
TEST(SimDevice, GcYieldRunsLazyGcInTheControllersIdleTime) {
  Qd1Writes batch, yield;
  ASSERT_NO_FATAL_FAILURE(LazyBatchAgainst("&gc_yield=1", 1000000, &batch, &yield));
  // A copy step takes far less than a batch.
  EXPECT_LT(yield.max_ns, 500000u);
  EXPECT_LT(yield.mean_ns, batch.mean_ns);
}

// gc_batch_pace: a lazy batch, begun when the pool runs dry, copies between the writes (twice
// the victim's steady ratio per unit written) instead of all at once: no write waits out the
// batch, and the GC does about the same work (6% more copies here: the paced batch begins two
// blocks earlier, kPacedBatchLeadBlocks, a share of this small drive's spare area).
TEST(SimDevice, APacedLazyBatchHoldsNoWriteForTheWholeBatch) {
  Qd1Writes batch, paced;
  ASSERT_NO_FATAL_FAILURE(LazyBatchAgainst("&gc_batch_pace=2", 0, &batch, &paced));
  EXPECT_LT(paced.max_ns, batch.max_ns / 10);
  EXPECT_NEAR(static_cast<double>(paced.gc_copies) / static_cast<double>(batch.gc_copies), 1.0,
              0.1);
}

// gc_yield: once the pool runs dry, new writes wait for the batch, but a read submitted then
// goes ahead of the held writes and of GC's own work; without gc_yield it waits for the batch.
TEST(SimDevice, GcYieldLetsAReadGoAheadOfAGcStall) {
  auto read_in_stall = [](const std::string& target) {
    Fixture f(target);
    uint64_t t = 0, x = 7;
    for (uint64_t i = 0; i < 20 * f.g.user_pages; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint64_t done =
          f.dev.Submit(Direction::kWrite, (x >> 33) % f.g.user_pages * 4096, 4096, t);
      t += 25000;  // 25 us apart: the controller has no time left for GC, the NAND has
      if (done - (t - 25000) > 2000000) break;  // a write held by a stall of over 2 ms
      if (i + 1 == 20 * f.g.user_pages) ADD_FAILURE() << "no write was held by a stall";
    }
    return f.dev.Submit(Direction::kRead, 0, 4096, t) - t;
  };
  const std::string lazy = std::string(kLazyTiny) + "&t_prog_us=200&dies_per_channel=4";
  EXPECT_GT(read_in_stall(lazy), 1000000u);
  EXPECT_LT(read_in_stall(lazy + "&gc_yield=1"), 200000u);
}

TEST(SimDevice, BackgroundWorkRefillsThePool) {
  Fixture f("sim:tiny?capacity=64MiB&op=50&gc_bg_pct=20");
  uint64_t t = 0;
  uint64_t x = 1;
  for (int i = 0; i < 200000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t lpn = (x >> 33) % f.g.user_pages;
    t = f.dev.Submit(Direction::kWrite, lpn * 4096, 4096, t);
  }
  EXPECT_LT(f.dev.free_blocks(), f.g.bg_free_blocks);
  f.dev.Background(t + 1, t + 60ull * 1000000000);
  EXPECT_GE(f.dev.free_blocks(), f.g.bg_free_blocks);
}

}  // namespace
}  // namespace ssdlab::sim
