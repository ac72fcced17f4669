// A deterministic fuzz test of the trace readers and of replay on the simulator. Seeded random
// traces of every format (fields near 0 and near 2^64, malformed numbers, damaged lines and
// bytes; plain, gzip or zstd, sometimes truncated) are read with --skip-bad and characterised;
// random traces (times near 0 and 2^64, gaps of years) are replayed on simulated drives with GC
// at work, in every GC mode, every timing and every remap. Bounded by a fixed number of cases,
// never by wall time. What must hold: no crash and no sanitizer report (run it under ASan and
// UBSan with scripts/asan_trace_fuzz.sh), every record read fits 64 bits, every request the
// source hands out is counted once, and the time series stays bounded.
#include <gtest/gtest.h>
#include <linux/blktrace_api.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/rng.h"
#include "base/units.h"
#include "sim/sim.h"
#include "trace/replay_source.h"
#include "trace/stats.h"
#include "trace/trace.h"
#include "workload/parse.h"

namespace ssdlab::trace {
namespace {

namespace fs = std::filesystem;

constexpr int kReaderCases = 100;  // per format
constexpr int kReplayCases = 60;
constexpr uint64_t kSeed = 43;

class Fuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(SSDLAB_TEST_TMP) /
           ("trace-fuzz-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// A number near an edge of 64 bits (or of the units the readers multiply by), or small.
uint64_t Edge(Rng& rng) {
  static const uint64_t kEdges[] = {0,
                                    1,
                                    7,
                                    511,
                                    512,
                                    4095,
                                    4096,
                                    65536,
                                    UINT32_MAX,
                                    uint64_t{1} << 32,
                                    (uint64_t{1} << 55) - 1,
                                    uint64_t{1} << 55,
                                    uint64_t{1} << 61,
                                    (uint64_t{1} << 62) - 1,
                                    uint64_t{1} << 62,
                                    uint64_t{1} << 63,
                                    UINT64_MAX / 1000000000,
                                    UINT64_MAX / 1000,
                                    UINT64_MAX / 1000 + 1,
                                    UINT64_MAX / 512,
                                    UINT64_MAX / 100,
                                    UINT64_MAX / 100 + 1,
                                    UINT64_MAX - 4095,
                                    UINT64_MAX - 1,
                                    UINT64_MAX};
  switch (rng.Below(4)) {
    case 0:
      return kEdges[rng.Below(std::size(kEdges))];
    case 1:
      return kEdges[rng.Below(std::size(kEdges))] - rng.Below(3);
    case 2:
      return rng.Next();
    default:
      return rng.Below(1 << 20);
  }
}

// A field: mostly a number (near an edge), sometimes not one.
std::string Num(Rng& rng) {
  static const char* kJunk[] = {"",
                                "-1",
                                "18446744073709551616",
                                "99999999999999999999999",
                                "1e5",
                                "0x10",
                                "abc",
                                " 12 ",
                                "1.5",
                                "+3",
                                "nan"};
  if (rng.Below(12) == 0) return kJunk[rng.Below(std::size(kJunk))];
  return std::to_string(Edge(rng));
}

// A length field: mostly a few KiB, now and then a number near an edge (trace stats walks a
// record's 4 KiB units, so huge lengths are kept rare to keep the test quick).
std::string Len(Rng& rng) {
  if (rng.Below(8) == 0) return Num(rng);
  return std::to_string(rng.Below(3) ? 512 * (1 + rng.Below(128)) : rng.Below(70000));
}

// Seconds with a fraction, as blkparse and SPC write them.
std::string Seconds(Rng& rng) {
  if (rng.Below(10) == 0) return Num(rng);
  std::string frac = std::to_string(rng.Below(1000000000));
  frac.insert(0, 9 - std::min<size_t>(9, frac.size()), '0');
  if (rng.Below(8) == 0) frac += "123";  // more than 9 digits
  const uint64_t sec = Edge(rng);
  return std::to_string(rng.Below(2) ? sec % 100000 : sec) + "." + frac;
}

// Fields joined by `sep` (a braced list evaluates its elements in order: the same draws for
// the same seed whatever the compiler).
std::string Join(std::initializer_list<std::string> fields, const char* sep) {
  std::string out;
  for (const std::string& f : fields) out += (out.empty() ? "" : sep) + f;
  return out;
}

std::string Line(TraceFormat f, Rng& rng) {
  switch (f) {
    case TraceFormat::kMsr:
      return Join(
          {Num(rng), "hm", Num(rng), rng.Below(2) ? "Read" : "Write", Num(rng), Len(rng), Num(rng)},
          ",");
    case TraceFormat::kAlibaba:
      return Join({Num(rng), rng.Below(2) ? "R" : "W", Num(rng), Len(rng), Num(rng)}, ",");
    case TraceFormat::kTencent:
      return Join({Num(rng), Num(rng), Len(rng), std::to_string(rng.Below(3)), Num(rng)}, ",");
    case TraceFormat::kSpc:
      return Join({Num(rng), Num(rng), Len(rng), rng.Below(2) ? "r" : "w", Seconds(rng)}, ",");
    case TraceFormat::kFioV2:
      if (rng.Below(4) == 0) return "f wait " + Num(rng);
      return Join({"f", rng.Below(2) ? "read" : "write", Num(rng), Len(rng)}, " ");
    case TraceFormat::kFioV3:
      return Join({Num(rng), "f", rng.Below(3) ? "write" : "trim", Num(rng), Len(rng)}, " ");
    case TraceFormat::kBlkparse: {
      static const char* kActs[] = {"Q", "D", "C", "M", "G"};
      return Join({"  8,0", "1", std::to_string(rng.Below(100)), Seconds(rng), "42",
                   kActs[rng.Below(5)], rng.Below(2) ? "W" : "R", Num(rng), "+", Len(rng), "[fio]"},
                  " ");
    }
    default:
      return "";
  }
}

std::string Header(TraceFormat f) {
  if (f == TraceFormat::kFioV2) return "fio version 2 iolog\nf add\n";
  if (f == TraceFormat::kFioV3) return "fio version 3 iolog\n";
  return "";
}

std::string BlktraceEvents(Rng& rng, int n) {
  static const uint32_t kActs[] = {
      __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_WRITE),
      __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_READ),
      __BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_ISSUE | BLK_TC_READ),
      __BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_COMPLETE | BLK_TC_READ),
      __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_WRITE | BLK_TC_DISCARD),
      BLK_TC_ACT(BLK_TC_NOTIFY)};
  std::string out;
  for (int i = 0; i < n; ++i) {
    blk_io_trace e{};
    e.magic = rng.Below(40) ? BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION
                            : static_cast<uint32_t>(rng.Next());
    e.time = Edge(rng);
    e.sector = Edge(rng);
    e.bytes = static_cast<uint32_t>(rng.Below(8) ? 4096 * (1 + rng.Below(64)) : Edge(rng));
    e.action = kActs[rng.Below(std::size(kActs))];
    e.device = 8u << 20;
    e.pdu_len = static_cast<uint16_t>(rng.Below(8) == 0 ? rng.Below(64) : 0);
    out.append(reinterpret_cast<const char*>(&e), sizeof e);
    out.append(e.pdu_len, 'p');
  }
  if (rng.Below(6) == 0) out.resize(out.size() - rng.Below(std::min<size_t>(out.size(), 47)));
  return out;
}

std::string Gzip(const std::string& s) {
  std::string out(compressBound(static_cast<uLong>(s.size())) + 32, '\0');
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = static_cast<uInt>(s.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(const std::string& s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 1));
  return out;
}

// Plain, gzip or zstd, now and then cut short.
std::string Compress(const std::string& s, Rng& rng) {
  std::string out = s;
  const uint64_t kind = rng.Below(3);
  if (kind == 1) out = Gzip(s);
  if (kind == 2) out = Zstd(s);
  if (kind != 0 && rng.Below(8) == 0 && !out.empty()) out.resize(rng.Below(out.size()));
  return out;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

// Reads every record of `path`; returns them (an error ends the read: it must be a Status).
std::vector<TraceRecord> ReadAllOf(const std::string& path, TraceFormat f) {
  TraceOptions o;
  o.format = f;
  o.skip_bad = 1000;  // more than any case has lines: every malformed one is counted
  std::vector<TraceRecord> out;
  auto r = OpenTrace(path, o);
  if (!r.ok()) return out;
  TraceRecord rec;
  for (;;) {
    auto more = (*r)->Next(&rec);
    if (!more.ok() || !more.value()) break;
    out.push_back(rec);
  }
  return out;
}

TEST_F(Fuzz, ReadersOfEveryFormatSurviveRandomAndOverflowingRecords) {
  const TraceFormat kText[] = {TraceFormat::kMsr,     TraceFormat::kAlibaba, TraceFormat::kTencent,
                               TraceFormat::kSpc,     TraceFormat::kFioV2,   TraceFormat::kFioV3,
                               TraceFormat::kBlkparse};
  Rng rng(kSeed);
  uint64_t records = 0;
  auto check = [&](const std::string& path, TraceFormat given) {
    for (TraceFormat f : {given, TraceFormat::kAuto}) {
      std::vector<TraceRecord> recs = ReadAllOf(path, f);
      StatsBuilder stats;
      for (const TraceRecord& r : recs) {
        EXPECT_GT(r.bytes, 0u);
        EXPECT_GE(r.offset_bytes + r.bytes, r.offset_bytes) << path;  // never wraps
        stats.Add(r);
      }
      records += recs.size();
      (void)SuggestRunFlags(stats.Finish());
    }
  };
  for (TraceFormat f : kText) {
    for (int c = 0; c < kReaderCases; ++c) {
      std::string text = Header(f);
      const uint64_t lines = rng.Below(24);
      for (uint64_t i = 0; i < lines; ++i) {
        std::string l = Line(f, rng);
        if (rng.Below(30) == 0 && !l.empty()) l[rng.Below(l.size())] = '\0';  // a damaged byte
        text += l + (rng.Below(20) ? "\n" : "\r\n");
      }
      const std::string path = Path("t" + std::to_string(c));
      WriteFile(path, Compress(text, rng));
      check(path, f);
    }
  }
  for (int c = 0; c < kReaderCases; ++c) {
    const std::string path = Path("b" + std::to_string(c) + ".blktrace.0");
    WriteFile(path, Compress(BlktraceEvents(rng, static_cast<int>(rng.Below(40))), rng));
    check(path, TraceFormat::kBlktrace);
    fs::remove(path);
  }
  EXPECT_GT(records, 1000u);  // the generator does make valid records too
}

// A random fio v3 trace (times in us): bursts near 0 and gaps of days or years; one in three
// is hostile, with offsets near 2^64 and times anywhere up to 2^64 us (errors by design).
std::string RandomTimedTrace(Rng& rng, uint64_t* n_records) {
  std::string t = "fio version 3 iolog\n";
  const bool hostile = rng.Below(3) == 0;
  uint64_t us = rng.Below(2) ? 0 : Edge(rng) % kMaxSchedNs / 1000;
  const uint64_t n = 1 + rng.Below(60);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t pick = rng.Below(40);
    if (pick == 0 && hostile) {
      const uint64_t e = Edge(rng);
      us = rng.Below(4) ? e / 1000 : e;  // anywhere up to 2^64 ns (or past it)
    } else if (pick < 4) {
      us = Edge(rng) % kMaxSchedNs / 1000;  // a jump, backwards or years forwards
    } else if (pick < 8) {
      us += rng.Below(1000) * 1000000ull * 86400;  // days
    } else {
      us += rng.Below(2000);
    }
    const uint64_t off = hostile && rng.Below(8) == 0 ? Edge(rng) : rng.Below(48 << 20);
    const uint64_t len = rng.Below(6) ? 512 * (1 + rng.Below(256)) : 1 + rng.Below(4 << 20);
    static const char* kOps[] = {"read", "write", "write", "trim"};
    t += std::to_string(us) + " f " + kOps[rng.Below(4)] + " " + std::to_string(off) + " " +
         std::to_string(len) + "\n";
  }
  *n_records = n;
  return t;
}

TEST_F(Fuzz, ReplayOnTheSimulatorInEveryGcModeCountsEveryRequestOnce) {
  const char* kGc[] = {"",
                       "&gc_lazy=1",
                       "&gc_lazy=1&gc_yield=1",
                       "&gc=fifo&gc_bg_mb_s=50",
                       "&gc=cost-benefit&gc_lazy=1&gc_yield=1&suspend=0",
                       "&gc=d-choices&ctrl_trim_us=0&cmd_us=0"};
  Rng rng(kSeed + 1);
  int errors = 0;
  for (int c = 0; c < kReplayCases; ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const std::string gc = kGc[c % std::size(kGc)];
    auto b = OpenSimBackend("sim:tiny?capacity=64MiB" + gc);
    ASSERT_TRUE(b.ok()) << b.status().message();
    SimBackend& sim = **b;
    // GC at work: the drive written over 1.25 times first.
    auto fill = ResolveWorkload({.rw = "randwrite", .qd = 8, .io_size = "80MiB", .interval = "0"},
                                sim.info().size_bytes, sim.info().logical_block_bytes);
    ASSERT_TRUE(fill.ok()) << fill.status().message();
    ASSERT_TRUE(sim.RunPhase(*fill, RunControl{}).ok());
    EXPECT_GT(sim.counters().gc_page_copies, 0u);

    uint64_t n = 0;
    const std::string path = Path("r" + std::to_string(c) + ".log");
    WriteFile(path, RandomTimedTrace(rng, &n));
    ReplayOptions o;
    static const Timing kTiming[] = {Timing::kOriginal, Timing::kScale, Timing::kAfap};
    static const double kSpeed[] = {2, 0.5, 1e-3, 1e6};
    static const Remap kRemap[] = {Remap::kModulo, Remap::kScale, Remap::kNone};
    o.timing = kTiming[rng.Below(3)];
    o.speedup = o.timing == Timing::kScale ? kSpeed[rng.Below(4)] : 1;
    o.remap = kRemap[rng.Below(3)];
    o.range_end_bytes = sim.info().size_bytes;
    o.align_bytes = sim.info().logical_block_bytes;
    o.max_io_bytes = static_cast<uint32_t>(4096 << rng.Below(9));
    o.loops = 1 + rng.Below(3);
    for (const TraceRecord& r : ReadAllOf(path, TraceFormat::kFioV3))
      o.trace_end_bytes = std::max(o.trace_end_bytes, r.offset_bytes + r.bytes);
    TraceRequestSource src([path] { return OpenTrace(path, {}); }, o);
    ASSERT_TRUE(src.Start().ok());
    static const char* kInterval[] = {"0", "10ms", "1s"};
    auto spec = ResolveWorkload({.rw = "randrw",
                                 .bs = std::to_string(o.max_io_bytes),
                                 .qd = static_cast<uint32_t>(1 + rng.Below(32)),
                                 .io_size = "1x",
                                 .interval = kInterval[rng.Below(3)]},
                                sim.info().size_bytes, sim.info().logical_block_bytes);
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    WorkloadSpec& s = *spec;
    s.io_bytes = 0;  // the source ends the phase
    s.source = &src;
    auto r = sim.RunPhase(s, RunControl{});
    src.Close();
    ASSERT_TRUE(r.ok()) << r.status().message();
    // Every request handed out was run and counted once, whether or not the trace ended in an
    // error (a record out of range, a time beyond 2^62 ns), and the series holds them all.
    EXPECT_EQ(r->Total().ios, src.counts().requests);
    EXPECT_LE(r->intervals.size(), 16384u);
    if (s.interval_ns && r->measured_ns) {
      uint64_t series = 0;
      for (const IntervalSample& iv : r->intervals) {
        for (const auto& d : iv.dirs) series += d.ios;
      }
      EXPECT_EQ(series, r->Total().ios);
    }
    if (!src.status().ok()) {
      const std::string m = src.status().message();
      EXPECT_TRUE(m.find("2^62 ns") != std::string::npos ||
                  m.find("beyond the target's range") != std::string::npos ||
                  m.find("overflows a 64-bit") != std::string::npos)
          << m;
      ++errors;
    }
  }
  EXPECT_LT(errors, kReplayCases / 2);  // most replays run to the end
}

}  // namespace
}  // namespace ssdlab::trace
