// Readers, decompression, blktrace merging and completion matching, malformed input, the
// replay source and trace statistics, on files generated here.
#include "trace/trace.h"

#include <gtest/gtest.h>
#include <linux/blktrace_api.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "base/units.h"
#include "trace/input.h"
#include "trace/replay_source.h"
#include "trace/stats.h"

namespace ssdlab::trace {
namespace {

namespace fs = std::filesystem;

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(SSDLAB_TEST_TMP) /
           ("ssdlab-trace-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  std::string WriteGzip(const std::string& name, const std::string& text) {
    gzFile f = gzopen(Path(name).c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    return Path(name);
  }
  std::string WriteZstd(const std::string& name, const std::string& text, size_t keep = SIZE_MAX) {
    std::string out(ZSTD_compressBound(text.size()), '\0');
    size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
    out.resize(std::min(n, keep));
    return Write(name, out);
  }
  // Writes `text` to file `name` and reads its records into `recs`, checking that it holds
  // `count` of them and that its format is detected as `format` (call it under
  // ASSERT_NO_FATAL_FAILURE).
  void ReadAs(const std::string& name, const std::string& text, TraceFormat format, size_t count,
              std::vector<TraceRecord>* recs);
  fs::path dir_;
};

std::vector<TraceRecord> ReadAll(const std::string& path, TraceOptions o = {},
                                 Status* error = nullptr, TraceReader** keep = nullptr) {
  std::vector<TraceRecord> out;
  auto r = OpenTrace(path, o);
  if (!r.ok()) {
    if (error) *error = r.status();
    return out;
  }
  TraceRecord rec;
  for (;;) {
    auto more = (*r)->Next(&rec);
    if (!more.ok()) {
      if (error) *error = more.status();
      break;
    }
    if (!more.value()) break;
    out.push_back(rec);
  }
  if (keep) *keep = r->release();
  return out;
}

// The records of the block trace `path` timed by their D (issue) events, not their Q events.
std::vector<TraceRecord> ReadIssued(const std::string& path) {
  TraceOptions o;
  o.event = BlkEvent::kIssue;
  return ReadAll(path, o);
}

void TraceTest::ReadAs(const std::string& name, const std::string& text, TraceFormat format,
                       size_t count, std::vector<TraceRecord>* recs) {
  SCOPED_TRACE(name);
  *recs = ReadAll(Write(name, text));
  ASSERT_EQ(recs->size(), count);
  EXPECT_EQ(DetectTraceFormat(Path(name)).value(), format);
}

const char kMsr[] =
    "128166372003061629,hm,0,Read,3154305024,4096,2336\n"
    "128166372016382155,hm,0,Write,3154296832,8192,10000\n"
    "128166372026382245,hm,1,Read,0,512,90\n";

TEST_F(TraceTest, MsrFieldsAndUnits) {
  auto recs = ReadAll(Write("msr.csv", kMsr));
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].time_ns, 128166372003061629ULL * 100);
  EXPECT_EQ(recs[0].offset_bytes, 3154305024u);
  EXPECT_EQ(recs[0].bytes, 4096u);
  EXPECT_EQ(recs[0].dir, Direction::kRead);
  EXPECT_EQ(recs[0].response_ns, 233600);
  EXPECT_EQ(recs[1].dir, Direction::kWrite);
  EXPECT_EQ(recs[2].device, 1u);
  EXPECT_EQ(DetectTraceFormat(Path("msr.csv")).value(), TraceFormat::kMsr);
  // A header line (after blank lines and comments) is skipped.
  auto with_header = ReadAll(Write("h.csv", std::string("\n# MSR\nTimestamp,Hostname,DiskNumber,"
                                                        "Type,Offset,Size,ResponseTime\n") +
                                                kMsr));
  EXPECT_EQ(with_header.size(), 3u);
  EXPECT_EQ(DetectTraceFormat(Path("h.csv")).value(), TraceFormat::kMsr);
}

TEST_F(TraceTest, DeviceFilter) {
  TraceOptions o;
  o.device_id = "1";
  TraceReader* r = nullptr;
  auto recs = ReadAll(Write("msr.csv", kMsr), o, nullptr, &r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].bytes, 512u);
  EXPECT_EQ(r->filtered(), 2u);
  delete r;
}

TEST_F(TraceTest, MalformedLineNamesFileAndLine) {
  std::string p = Write("bad.csv", std::string(kMsr) + "128166372026382245,hm,1,Flush,x,512,90\n" +
                                       "128166372026382245,hm,1,Read,0,512,90\n");
  Status err;
  ReadAll(p, {}, &err);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.message().find(p + ":4:"), std::string::npos) << err.message();
  TraceOptions o;
  o.skip_bad = 1;
  TraceReader* r = nullptr;
  auto recs = ReadAll(p, o, &err, &r);
  EXPECT_EQ(recs.size(), 4u);
  EXPECT_EQ(r->skipped(), 1u);
  delete r;
}

TEST_F(TraceTest, GzipAndZstdReadTheSame) {
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += std::to_string(1000 + i) + ",W," + std::to_string(i * 4096) + ",4096," +
            std::to_string(1577808000000000ULL + i * 10) + "\n";
  }
  auto plain = ReadAll(Write("a.csv", text));
  auto gz = ReadAll(WriteGzip("a.csv.gz", text));
  auto zs = ReadAll(WriteZstd("a.csv.zst", text));
  ASSERT_EQ(plain.size(), 20000u);
  ASSERT_EQ(gz.size(), plain.size());
  ASSERT_EQ(zs.size(), plain.size());
  for (size_t i = 0; i < plain.size(); i += 997) {
    EXPECT_EQ(gz[i].offset_bytes, plain[i].offset_bytes);
    EXPECT_EQ(zs[i].time_ns, plain[i].time_ns);
  }
  EXPECT_EQ(DetectTraceFormat(Path("a.csv.zst")).value(), TraceFormat::kAlibaba);
  EXPECT_EQ(plain[1].time_ns - plain[0].time_ns, 10000u);  // us
  EXPECT_EQ(plain[5].device, 1005u);
}

TEST_F(TraceTest, TruncatedCompressedInputIsAnError) {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "0,R," + std::to_string(i * 512) + ",512,1\n";
  std::string full = ReadAll(WriteZstd("full.zst", text)).empty() ? "" : "ok";
  ASSERT_EQ(full, "ok");
  Status err;
  ReadAll(WriteZstd("t.zst", text, 3000), {}, &err);
  EXPECT_FALSE(err.ok());
  EXPECT_NE(err.message().find("truncated zstd"), std::string::npos) << err.message();
  // gzip: cut the file.
  std::string gz = WriteGzip("t.gz", text);
  fs::resize_file(gz, fs::file_size(gz) / 2);
  err = Status::Ok();
  ReadAll(gz, {}, &err);
  EXPECT_FALSE(err.ok());
  EXPECT_NE(err.message().find("gzip"), std::string::npos) << err.message();
}

TEST_F(TraceTest, TencentAndSpcUnits) {
  std::vector<TraceRecord> t, s;
  ASSERT_NO_FATAL_FAILURE(ReadAs("t.csv", "1538323200,12910952,128,0,1063\n1538323201,8,16,1,7\n",
                                 TraceFormat::kTencent, 2, &t));
  EXPECT_EQ(t[0].offset_bytes, 12910952ULL * 512);
  EXPECT_EQ(t[0].bytes, 128u * 512);
  EXPECT_EQ(t[1].dir, Direction::kWrite);
  EXPECT_EQ(t[1].time_ns - t[0].time_ns, 1000000000u);
  EXPECT_EQ(t[0].device, 1063u);
  ASSERT_NO_FATAL_FAILURE(ReadAs("s.spc",
                                 "0,20941264,8192,W,0.551706\n1,20939840,4096,r,0.554041\n",
                                 TraceFormat::kSpc, 2, &s));
  EXPECT_EQ(s[0].offset_bytes, 20941264ULL * 512);
  EXPECT_EQ(s[0].bytes, 8192u);
  EXPECT_EQ(s[0].dir, Direction::kWrite);
  EXPECT_EQ(s[0].time_ns, 551706000u);
  EXPECT_EQ(s[1].dir, Direction::kRead);
  EXPECT_EQ(s[1].device, 1u);
}

// fio's I/O logs, version 2 (no times: waits between the I/Os) and version 3 (times in ms).
const char kFioV2Log[] = R"(fio version 2 iolog
/dev/sdb add
/dev/sdb open
/dev/sdb read 0 4096
/dev/sdb wait 1500
/dev/sdb write 8192 16384
/dev/sdb trim 0 4096
/dev/sdb close
)";
const char kFioV3Log[] = R"(fio version 3 iolog
0 /dev/sdb add
0 /dev/sdb open
10 /dev/sdb read 0 4096
250 /dev/sdc write 4096 4096
300 /dev/sdb close
)";

TEST_F(TraceTest, FioIologV2AndV3) {
  std::vector<TraceRecord> v2, v3;
  ASSERT_NO_FATAL_FAILURE(ReadAs("v2.log", kFioV2Log, TraceFormat::kFioV2, 3, &v2));
  EXPECT_EQ(v2[1].time_ns, 1500000u);
  EXPECT_EQ(v2[1].bytes, 16384u);
  EXPECT_EQ(v2[2].dir, Direction::kTrim);
  ASSERT_NO_FATAL_FAILURE(ReadAs("v3.log", kFioV3Log, TraceFormat::kFioV3, 2, &v3));
  EXPECT_EQ(v3[0].time_ns, 10000u);
  EXPECT_EQ(v3[1].time_ns, 250000u);
  EXPECT_NE(v3[0].device, v3[1].device);
  TraceOptions o;
  o.device_id = "/dev/sdc";
  auto only = ReadAll(Path("v3.log"), o);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].dir, Direction::kWrite);
}

TEST_F(TraceTest, BlkparseTextMatchesCompletions) {
  std::string text =
      "  8,0    0        1     0.000001000   697  Q   W 1000 + 8 [fio]\n"
      "  8,0    0        2     0.000002000   697  G   W 1000 + 8 [fio]\n"
      "  8,0    0        3     0.000003000   697  D   W 1000 + 8 [fio]\n"
      "  8,0    1        4     0.000004000   698  Q   R 5000 + 16 [fio]\n"
      "  8,0    1        5     0.000005000   698  D   R 5000 + 16 [fio]\n"
      "  8,0    0        6     0.000103000     0  C   W 1000 + 8 [0]\n"
      "  8,0    1        7     0.000205000     0  C   R 5000 + 16 [0]\n"
      "  8,0    1        0     0.000300000     0  m   N cfq schedule dispatch\n"
      "CPU0 (8,0):\n"
      " Reads Queued:           0,        0KiB\n";
  auto q = ReadAll(Write("b.txt", text));
  EXPECT_EQ(DetectTraceFormat(Path("b.txt")).value(), TraceFormat::kBlkparse);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].time_ns, 1000u);
  EXPECT_EQ(q[0].offset_bytes, 1000u * 512);
  EXPECT_EQ(q[0].bytes, 4096u);
  EXPECT_EQ(q[0].dir, Direction::kWrite);
  EXPECT_EQ(q[0].response_ns, 100000);  // D -> C: the device's time, also for Q events
  EXPECT_EQ(q[1].response_ns, 200000);
  auto d = ReadIssued(Path("b.txt"));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].time_ns, 3000u);
  EXPECT_EQ(d[0].response_ns, 100000);  // D -> C
  EXPECT_EQ(d[0].device, (8u << 20) | 0u);
}

// A blk_io_trace event (host byte order) with no payload, or `pdu` bytes of one.
std::string BlkEvent(uint64_t t, uint32_t action, uint64_t sector, uint32_t bytes, uint32_t cpu,
                     uint16_t pdu = 0, uint32_t device = (8u << 20)) {
  blk_io_trace e{};
  e.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION;
  e.time = t;
  e.sector = sector;
  e.bytes = bytes;
  e.action = action;
  e.device = device;
  e.cpu = cpu;
  e.pdu_len = pdu;
  std::string s(reinterpret_cast<const char*>(&e), sizeof e);
  s += std::string(pdu, 'x');
  return s;
}

constexpr uint32_t kQW = __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_WRITE);
constexpr uint32_t kQR = __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_READ);
constexpr uint32_t kDR = __BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_ISSUE | BLK_TC_READ);
constexpr uint32_t kCR = __BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_COMPLETE | BLK_TC_READ);
constexpr uint32_t kQD = __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_WRITE | BLK_TC_DISCARD);
constexpr uint32_t kNote = BLK_TC_ACT(BLK_TC_NOTIFY);

TEST_F(TraceTest, BlktraceMergesPerCpuFilesInTimeOrder) {
  // CPU 0 has the even times, CPU 1 the odd ones: the merged stream interleaves them.
  std::string c0, c1;
  c0 += BlkEvent(0, kNote, 0, 0, 0, 16);  // a process-name note with a payload
  for (int i = 0; i < 100; ++i) {
    std::string& f = i % 2 ? c1 : c0;
    f += BlkEvent(1000 * i, i % 3 == 0 ? kQW : kQR, 8 * i, 4096, i % 2);
  }
  c1 += BlkEvent(200000, kQD, 64, 1 << 20, 1);
  Write("t.blktrace.0", c0);
  Write("t.blktrace.1", c1);
  TraceReader* r = nullptr;
  auto recs = ReadAll(Path("t"), {}, nullptr, &r);  // the set's name
  ASSERT_EQ(recs.size(), 101u);
  EXPECT_EQ(r->files().size(), 2u);
  EXPECT_EQ(r->format(), TraceFormat::kBlktrace);
  for (size_t i = 1; i < recs.size(); ++i) EXPECT_LE(recs[i - 1].time_ns, recs[i].time_ns);
  EXPECT_EQ(recs[3].dir, Direction::kWrite);
  EXPECT_EQ(recs[4].dir, Direction::kRead);
  EXPECT_EQ(recs[7].offset_bytes, 8u * 7 * 512);
  EXPECT_EQ(recs[100].dir, Direction::kTrim);
  delete r;
  // One file of the set names the whole set.
  EXPECT_EQ(ReadAll(Path("t.blktrace.1")).size(), 101u);
  EXPECT_EQ(DetectTraceFormat(Path("t.blktrace.0")).value(), TraceFormat::kBlktrace);
}

TEST_F(TraceTest, BlktraceIssueEventsAndResponseTimes) {
  std::string c0;
  c0 += BlkEvent(100, kQR, 80, 4096, 0);
  c0 += BlkEvent(150, kDR, 80, 4096, 0);
  c0 += BlkEvent(160, kQR, 800, 8192, 0);
  c0 += BlkEvent(170, kDR, 800, 8192, 0);
  c0 += BlkEvent(5150, kCR, 80, 4096, 0);
  c0 += BlkEvent(9170, kCR, 800, 8192, 0);
  Write("x.blktrace.0", c0);
  auto q = ReadAll(Path("x.blktrace.0"));
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].time_ns, 100u);
  EXPECT_EQ(q[0].response_ns, 5000);  // D -> C
  // Without D events, C - Q.
  Write("nod.blktrace.0", BlkEvent(100, kQR, 80, 4096, 0) + BlkEvent(900, kCR, 80, 4096, 0));
  auto nod = ReadAll(Path("nod.blktrace.0"));
  ASSERT_EQ(nod.size(), 1u);
  EXPECT_EQ(nod[0].response_ns, 800);
  auto d = ReadIssued(Path("x.blktrace.0"));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].time_ns, 150u);
  EXPECT_EQ(d[0].response_ns, 5000);
  EXPECT_EQ(d[1].response_ns, 9000);
}

TEST_F(TraceTest, BlktraceTruncatedRecord) {
  std::string c0 = BlkEvent(100, kQR, 80, 4096, 0) + BlkEvent(200, kQR, 88, 4096, 0);
  c0.resize(c0.size() - 10);
  std::string p = Write("y.blktrace.0", c0);
  Status err;
  auto recs = ReadAll(p, {}, &err);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.message().find(p + ": byte 48"), std::string::npos) << err.message();
  EXPECT_NE(err.message().find("truncated"), std::string::npos);
  TraceOptions o;
  o.skip_bad = 1;
  err = Status::Ok();
  recs = ReadAll(p, o, &err);
  EXPECT_TRUE(err.ok()) << err.message();
  EXPECT_EQ(recs.size(), 1u);
}

TEST_F(TraceTest, BlktraceFromZstd) {
  std::string c0;
  for (int i = 0; i < 1000; ++i) c0 += BlkEvent(i, kQW, i * 8, 4096, 0);
  WriteZstd("z.blktrace.0.zst", c0);
  EXPECT_EQ(ReadAll(Path("z.blktrace.0.zst")).size(), 1000u);
}

TEST_F(TraceTest, UnknownFormatAsksForFormat) {
  Status err;
  ReadAll(Write("what.txt", "hello world\n"), {}, &err);
  EXPECT_NE(err.message().find("give --format"), std::string::npos) << err.message();
}

// ---- replay source ----

std::vector<SourcedRequest> Drain(TraceRequestSource& s) {
  std::vector<SourcedRequest> out;
  SourcedRequest buf[7];
  for (;;) {
    size_t n = s.Fill(buf, 7);
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  return out;
}

TEST_F(TraceTest, ReplaySourceTimingRemapSplitLoop) {
  std::string p = Write("a.csv",
                        "0,R,0,4096,1000\n"
                        "0,W,1048576,4096,1010\n"
                        "0,R,4096,3000000,1030\n"  // split into 1 MiB pieces
                        "0,W,100,1000,1040\n");    // unaligned
  ReplayOptions o;
  o.timing = Timing::kScale;
  o.speedup = 2;
  o.remap = Remap::kModulo;
  o.range_begin_bytes = 1 << 20;
  o.range_end_bytes = 3 << 20;
  o.align_bytes = 4096;
  o.loops = 2;
  TraceRequestSource src([p] { return OpenTrace(p, {}); }, o);
  ASSERT_TRUE(src.Start().ok());
  auto reqs = Drain(src);
  ASSERT_TRUE(src.status().ok()) << src.status().message();
  ASSERT_EQ(reqs.size(), 2 * (1 + 1 + 3 + 1u));
  EXPECT_EQ(reqs[0].sched_ns, 0u);
  EXPECT_EQ(reqs[1].sched_ns, 5000u);  // 10 us / 2
  EXPECT_EQ(reqs[1].req.offset, (1u << 20) + (1u << 20));
  EXPECT_EQ(reqs[2].req.bytes, 1u << 20);
  EXPECT_EQ(reqs[4].req.bytes, 905216u);  // the last piece, its end aligned up
  EXPECT_EQ(reqs[5].req.offset, 1u << 20);
  EXPECT_EQ(reqs[5].req.bytes, 4096u);
  for (const auto& r : reqs) {
    EXPECT_GE(r.req.offset, 1u << 20);
    EXPECT_LE(r.req.offset + r.req.bytes, 3u << 20);
    EXPECT_EQ(r.req.offset % 4096, 0u);
  }
  // Second pass: 40 us span + 13.3 us mean gap, halved.
  EXPECT_EQ(reqs[6].sched_ns, 26666u);
  src.Close();
  EXPECT_EQ(src.counts().records, 8u);
  EXPECT_EQ(src.counts().split, 2u);
  EXPECT_EQ(src.counts().passes, 2u);
}

TEST_F(TraceTest, ReplaySourceWithoutRemapRefusesOutOfRange) {
  std::string p = Write("a.csv", "0,R,0,4096,1000\n0,R,99999999,4096,1001\n");
  ReplayOptions o;
  o.range_end_bytes = 1 << 20;
  TraceRequestSource src([p] { return OpenTrace(p, {}); }, o);
  ASSERT_TRUE(src.Start().ok());
  auto reqs = Drain(src);
  EXPECT_EQ(reqs.size(), 1u);
  EXPECT_FALSE(src.status().ok());
  EXPECT_NE(src.status().message().find("--remap"), std::string::npos);
}

// ---- 64-bit overflow of offsets, lengths and times ----

// The error of reading `text` as `f` (empty when it reads without one).
std::string ReadError(const std::string& path, TraceFormat f) {
  TraceOptions o;
  o.format = f;
  Status st;
  ReadAll(path, o, &st);
  return st.ok() ? "" : st.message();
}

TEST_F(TraceTest, EveryReaderRefusesFieldsThatOverflow64Bits) {
  struct Case {
    TraceFormat format;
    std::string text;
    std::string want;  // in the error, after "FILE:LINE: "
  };
  const Case cases[] = {
      // A Tencent sector of 2^55 is byte 2^64: it wrapped to offset 0.
      {TraceFormat::kTencent, "0,36028797018963968,8,1,0\n",
       "Offset 36028797018963968 (512-B sectors) overflows a 64-bit byte offset"},
      {TraceFormat::kTencent, "0,36028797018963967,8,1,0\n", "Offset 36028797018963967"},
      {TraceFormat::kTencent, "18446744074,0,8,1,0\n",
       "Timestamp 18446744074 (s) overflows a 64-bit time in ns"},
      // An MSR offset of 2^64 - 4096 with 8192 bytes ends past 2^64.
      {TraceFormat::kMsr, "1,hm,0,Write,18446744073709547520,8192,1\n",
       "Offset 18446744073709547520 (bytes) overflows a 64-bit byte offset at its end"},
      {TraceFormat::kMsr, "184467440737095517,hm,0,Read,0,4096,1\n",
       "Timestamp 184467440737095517"},
      {TraceFormat::kMsr, "1,hm,0,Read,0,4096,184467440737095517\n", "ResponseTime"},
      {TraceFormat::kAlibaba, "0,R,18446744073709551615,1,0\n", "offset 18446744073709551615"},
      {TraceFormat::kAlibaba, "0,R,0,4096,18446744073709552\n", "timestamp 18446744073709552"},
      {TraceFormat::kSpc, "0,36028797018963968,4096,r,0.0\n", "LBA 36028797018963968"},
      {TraceFormat::kSpc, "0,0,4096,r,18446744074.0\n", "Timestamp 18446744074.0"},
      {TraceFormat::kSpc, "0,0,4096,r,18446744073.7095516151\n", "Timestamp"},
      {TraceFormat::kFioV2,
       "fio version 2 iolog\nf add\nf write 0 4096\nf wait 18446744073709551615\n",
       "wait 18446744073709551615"},
      // Two waits that overflow only together.
      {TraceFormat::kFioV2,
       "fio version 2 iolog\nf wait 9223372036854776\nf wait 9223372036854776\n", "wait"},
      {TraceFormat::kFioV3, "fio version 3 iolog\n18446744073709552 f write 0 4096\n",
       "timestamp 18446744073709552 (us)"},
      {TraceFormat::kFioV3, "fio version 3 iolog\n0 f write 18446744073709551615 1\n",
       "offset 18446744073709551615"},
      {TraceFormat::kBlkparse,
       "  8,0    3        1 18446744074.000000000   697  Q   W 0 + 8 [fio]\n",
       "time 18446744074.000000000"},
      {TraceFormat::kBlkparse,
       "  8,0    3        1     0.000000000   697  Q   W 36028797018963968 + 8 [fio]\n",
       "sector 36028797018963968"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string name = "c" + std::to_string(n++) + ".txt";
    const std::string path = Write(name, c.text);
    const std::string err = ReadError(path, c.format);
    const int lines = static_cast<int>(std::count(c.text.begin(), c.text.end(), '\n'));
    const std::string line = path + ":" + std::to_string(lines) + ": ";
    EXPECT_NE(err.find(line), std::string::npos) << c.text << " -> " << err;
    EXPECT_NE(err.find(c.want), std::string::npos) << c.text << " -> " << err;
    // Tolerated with --skip-bad: the record is left out, never read wrapped.
    TraceOptions o;
    o.format = c.format;
    o.skip_bad = 1;
    TraceReader* keep = nullptr;
    Status st;
    auto recs = ReadAll(path, o, &st, &keep);
    std::unique_ptr<TraceReader> owned(keep);
    EXPECT_TRUE(st.ok()) << st.message();
    for (const TraceRecord& r : recs) EXPECT_GE(r.offset_bytes + r.bytes, r.offset_bytes);
    ASSERT_NE(keep, nullptr);
    EXPECT_EQ(keep->skipped(), 1u) << c.text;
  }
}

TEST_F(TraceTest, BlktraceSectorOverflowNamesTheFileAndByte) {
  const std::string ok = BlkEvent(1, kQW, 8, 4096, 0);
  const std::string bad = BlkEvent(2, kQW, uint64_t{1} << 55, 4096, 0);
  const std::string p = Write("o.blktrace.0", ok + bad);
  const std::string err = ReadError(p, TraceFormat::kAuto);
  EXPECT_NE(err.find(p + ": byte " + std::to_string(ok.size()) + ": sector 36028797018963968"),
            std::string::npos)
      << err;
}

TEST_F(TraceTest, ReplaySourceRefusesDueTimesBeyondItsRange) {
  // 3 records 2^61 ns apart: the third would be due at 2^62 ns.
  const uint64_t step_us = (uint64_t{1} << 61) / 1000 + 1000;
  std::string p =
      Write("far.log", "fio version 3 iolog\n0 f write 0 4096\n" + std::to_string(step_us) +
                           " f write 0 4096\n" + std::to_string(2 * step_us) + " f write 0 4096\n");
  ReplayOptions o;
  o.range_end_bytes = 1 << 20;
  TraceRequestSource src([p] { return OpenTrace(p, {}); }, o);
  ASSERT_TRUE(src.Start().ok());
  auto reqs = Drain(src);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].sched_ns, step_us * 1000);
  ASSERT_FALSE(src.status().ok());
  EXPECT_NE(src.status().message().find("trace record 3 of " + p), std::string::npos)
      << src.status().message();
  EXPECT_NE(src.status().message().find("2^62 ns"), std::string::npos);
  // Slowed down (scale:0.001) the second is out of range already; afap has no schedule.
  o.timing = Timing::kScale;
  o.speedup = 1e-3;
  TraceRequestSource slow([p] { return OpenTrace(p, {}); }, o);
  ASSERT_TRUE(slow.Start().ok());
  EXPECT_EQ(Drain(slow).size(), 1u);
  EXPECT_FALSE(slow.status().ok());
  o.timing = Timing::kAfap;
  TraceRequestSource afap([p] { return OpenTrace(p, {}); }, o);
  ASSERT_TRUE(afap.Start().ok());
  EXPECT_EQ(Drain(afap).size(), 3u);
  EXPECT_TRUE(afap.status().ok()) << afap.status().message();
}

TEST_F(TraceTest, ReplaySourceAlignsTheTopOfTheOffsetsWithoutWrapping) {
  // The record's end is the highest byte offset there is; aligned up it would wrap to 0.
  std::string p = Write("top.csv", "0,W,18446744073709547520,4095,0\n");
  ReplayOptions o;
  o.remap = Remap::kModulo;
  o.range_end_bytes = 3 << 20;
  o.align_bytes = 4096;
  TraceRequestSource src([p] { return OpenTrace(p, {}); }, o);
  ASSERT_TRUE(src.Start().ok());
  auto reqs = Drain(src);
  ASSERT_TRUE(src.status().ok()) << src.status().message();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].req.bytes, 4096u);
  EXPECT_LE(reqs[0].req.offset + reqs[0].req.bytes, 3u << 20);
  EXPECT_EQ(reqs[0].req.offset, (18446744073709547520ull % (3 << 20)) / 4096 * 4096);
  // Without --remap it lies beyond the range: refused, not wrapped to offset 0.
  o.remap = Remap::kNone;
  TraceRequestSource none([p] { return OpenTrace(p, {}); }, o);
  ASSERT_TRUE(none.Start().ok());
  EXPECT_TRUE(Drain(none).empty());
  EXPECT_FALSE(none.status().ok());
}

// ---- pipes ----

// Writes `text` into the FIFO `path` from another thread (the reader's open waits for it).
class FifoWriter {
 public:
  FifoWriter(const std::string& path, std::string text)
      : t_([path, text = std::move(text)] { std::ofstream(path, std::ios::binary) << text; }) {}
  ~FifoWriter() { t_.join(); }

 private:
  std::thread t_;
};

TEST_F(TraceTest, APipeIsReadOnceFormatAndCompressionIncluded) {
  const std::string fifo = Path("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(CanReread(fifo));
  EXPECT_TRUE(CanReread(Write("msr.csv", kMsr)));
  {
    FifoWriter w(fifo, kMsr);
    auto recs = ReadAll(fifo);  // the format detected from the start of the one stream
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[2].bytes, 512u);
  }
  {
    WriteZstd("msr.zst", kMsr);
    std::ifstream in(Path("msr.zst"), std::ios::binary);
    std::string z((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    FifoWriter w(fifo, z);
    EXPECT_EQ(ReadAll(fifo).size(), 3u);
  }
  {
    FifoWriter w(fifo, BlkEvent(1, kQW, 8, 4096, 0) + BlkEvent(2, kQR, 16, 512, 0));
    EXPECT_EQ(ReadAll(fifo).size(), 2u);
  }
}

// ---- statistics ----

TEST(TraceStats, KnownShares) {
  StatsBuilder b;
  // 1000 I/Os 1 ms apart: 700 reads of 4 KiB, 300 writes of 64 KiB; 3 in 4 reads go to
  // units 0-9 (hot), the rest spread over units 1000+.
  for (int i = 0; i < 1000; ++i) {
    TraceRecord r;
    r.time_ns = static_cast<uint64_t>(i) * 1000000;
    if (i % 10 < 7) {
      r.dir = Direction::kRead;
      r.bytes = 4096;
      r.offset_bytes = (i % 4 != 3 ? (i % 10) : 1000 + i) * 4096ULL;
    } else {
      r.dir = Direction::kWrite;
      r.bytes = 65536;
      r.offset_bytes = (100000 + i * 16ULL) * 4096;
    }
    b.Add(r);
  }
  TraceStats s = b.Finish();
  EXPECT_EQ(s.records, 1000u);
  EXPECT_EQ(s.ios[0], 700u);
  EXPECT_EQ(s.ios[1], 300u);
  EXPECT_EQ(s.bytes[0], 700u * 4096);
  EXPECT_EQ(s.bytes[1], 300u * 65536);
  ASSERT_EQ(s.block_sizes.size(), 2u);
  EXPECT_EQ(s.block_sizes[0], (std::pair<uint32_t, uint64_t>(4096, 700)));
  EXPECT_EQ(s.duration_ns, 999000000u);
  EXPECT_EQ(s.interarrival.min(), 1000000u);
  EXPECT_EQ(s.interarrival.max(), 1000000u);
  EXPECT_EQ(s.bursts, 1u);  // every gap is <= 1 ms
  EXPECT_TRUE(s.working_set_exact);
  std::string flags = SuggestRunFlags(s);
  EXPECT_NE(flags.find("--rwmix-read 70"), std::string::npos) << flags;
  EXPECT_NE(flags.find("--bs 4KiB:70,64KiB:30"), std::string::npos) << flags;
  EXPECT_NE(flags.find("--rate-iops 1000"), std::string::npos) << flags;
  // Units: 7 hot ones (the hot reads), one per cold read, 16 per write; each access once.
  uint64_t hot = 0;
  for (int i = 0; i < 1000; ++i) hot += i % 10 < 7 && i % 4 != 3;
  const uint64_t cold = 700 - hot, units = 7 + cold + 300 * 16, accesses = hot + cold + 300 * 16;
  EXPECT_EQ(s.working_set_units, units);
  const double k1 = std::ceil(0.01 * units);  // the hottest 1%: the hot units and k1 - 7 others
  EXPECT_NEAR(s.hot_1pct, 100.0 * (hot + (k1 - 7)) / accesses, 1e-9);
  const double k20 = std::ceil(0.2 * units);
  EXPECT_NEAR(s.hot_20pct, 100.0 * (hot + (k20 - 7)) / accesses, 1e-9);
}

TEST(TraceStats, IdleSecondsOfAGapOfYearsCountExactlyAndAtOnce) {
  StatsBuilder b;
  const uint64_t years100_s = 100ull * 365 * 24 * 3600;
  TraceRecord r;
  r.bytes = 4096;
  b.Add(r);
  r.time_ns = years100_s * kNsPerS;
  b.Add(r);
  TraceStats s = b.Finish();
  // The first second (1 I/O), the idle ones (0), the last one.
  EXPECT_EQ(s.iops_per_s.count(), years100_s + 1);
  EXPECT_EQ(s.iops_per_s.Percentile(50), 0);
}

TEST(TraceStats, WorkingSetStaysBoundedAndEstimates) {
  StatsOptions o;
  o.sample_units = 4096;
  StatsBuilder b(o);
  const uint64_t units = 200000;
  for (uint64_t u = 0; u < units; ++u) {
    TraceRecord r;
    r.time_ns = u;
    r.bytes = 4096;
    r.offset_bytes = u * 4096;
    b.Add(r);
  }
  TraceStats s = b.Finish();
  EXPECT_FALSE(s.working_set_exact);
  EXPECT_NEAR(static_cast<double>(s.working_set_units), units, units * 0.1);
  EXPECT_EQ(s.sequential, units - 1);
}

}  // namespace
}  // namespace ssdlab::trace

namespace ssdlab::trace {
namespace {

// The formats are one table: names, parsing and help all read it.
TEST(TraceFormats, OneTableGivesTheNamesTheParserAndTheHelp) {
  const std::vector<TraceFormatInfo> table = TraceFormatTable();
  ASSERT_EQ(table.size(), 8u);
  std::string names = "auto";
  for (const TraceFormatInfo& f : table) {
    names += std::string(", ") + f.name;
    EXPECT_STREQ(TraceFormatName(f.format), f.name);
    ASSERT_TRUE(ParseTraceFormat(f.name).ok()) << f.name;
    EXPECT_EQ(ParseTraceFormat(f.name).value(), f.format);
    EXPECT_GT(std::strlen(f.description), 10u) << f.name;
  }
  EXPECT_EQ(TraceFormatNames(), names);
  EXPECT_EQ(names, "auto, blktrace, blkparse, fio-v2, fio-v3, msr, alibaba, tencent, spc");
  EXPECT_EQ(ParseTraceFormat("auto").value(), TraceFormat::kAuto);
  EXPECT_EQ(ParseTraceFormat("fio").value(), TraceFormat::kFioV2);
  EXPECT_EQ(ParseTraceFormat("csv").status().message(),
            "--format: unknown trace format 'csv' (" + names + ")");
}

}  // namespace
}  // namespace ssdlab::trace
