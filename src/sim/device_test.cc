#include "sim/device.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "base/rng.h"
#include "sim/fastdiv.h"
#include "sim/params.h"

namespace ssdlab::sim {
namespace {

struct Fixture {
  explicit Fixture(const std::string& target)
      : p(ParseSimTarget(target).value()), g(DeriveGeometry(p)), dev(p, g) {}
  SimParams p;
  Geometry g;
  SimDevice dev;
};

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
