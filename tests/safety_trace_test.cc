// End-to-end tests of issue 43's trace and virtual-clock cases: fields that overflow 64 bits are
// malformed records (never wrapped onto offset 0 of the user's file), times near 2^64 neither
// crash the simulator nor lose I/Os, gaps of years in virtual time cost nothing and keep the
// time series bounded, --interval has one lower bound, traces from pipes are read once (or
// refused where replay needs two passes), and a command of zero cost still advances the
// simulator's clock.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A user's file of `bytes` holding a known pattern.
std::string UserFile(const TempDir& t, uint64_t bytes) {
  std::string data(bytes, '\0');
  for (uint64_t i = 0; i < bytes; ++i) data[i] = static_cast<char>('a' + i % 23);
  WriteText(t / "user.img", data);
  return data;
}

TEST(SafetyTraceE2E, ASectorThatWrapsPast2To64IsRefusedAndTheFileIsUntouched) {
  TempDir t;
  const std::string before = UserFile(t, 1 << 20);
  // Tencent sector 2^55 is byte 2^64: it wrapped to offset 0 and replay wrote there.
  WriteText(t / "t.csv", "0,8,8,1,0\n1,36028797018963968,8,1,0\n");
  Proc p = RunSsdlab({"replay", t / "t.csv", "--target", t / "user.img", "--remap", "none"});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_TRUE(Has(p.err, t / "t.csv:2: Offset 36028797018963968 (512-B sectors) overflows"))
      << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_EQ(ReadFile(t / "user.img"), before);
  // An MSR offset of 2^64 - 4096 with 8192 bytes ends past 2^64: the pre-scan refuses it.
  WriteText(t / "m.csv", "1,hm,0,Write,18446744073709547520,8192,1\n");
  p = RunSsdlab({"replay", t / "m.csv", "--target", t / "user.img"});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_TRUE(Has(p.err, t / "m.csv:1: Offset 18446744073709547520 (bytes) overflows")) << p.err;
  EXPECT_EQ(ReadFile(t / "user.img"), before);
  // trace stats names the same record.
  p = RunSsdlab({"trace", "stats", t / "t.csv"});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_TRUE(Has(p.err, t / "t.csv:2: Offset")) << p.err;
}

TEST(SafetyTraceE2E, AWaitOf2To64UsIsAnErrorNotACrashOnEveryGcMode) {
  TempDir t;
  WriteText(t / "w.log",
            "fio version 2 iolog\nf add\nf open\nf write 0 4096\nf wait 18446744073709551615\n"
            "f write 4096 4096\nf write 8192 4096\n");
  for (const char* target : {"sim:tiny", "sim:tiny?gc_lazy=1&gc_yield=1"}) {
    Proc p = RunSsdlab({"replay", t / "w.log", "--target", target});
    EXPECT_EQ(p.exit_code, 2) << target << p.out << p.err;
    EXPECT_TRUE(Has(p.err, t / "w.log:5: wait 18446744073709551615")) << target << p.err;
  }
  // Times that fit but lie more than 2^62 ns (146 years) apart are refused by name too.
  WriteText(t / "v3.log",
            "fio version 3 iolog\n0 f write 0 4096\n18446744073709550 f write 4096 4096\n");
  Proc p = RunSsdlab({"replay", t / "v3.log", "--target", "sim:tiny?gc_lazy=1&gc_yield=1"});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_TRUE(Has(p.err, "trace record 2 of " + t / "v3.log")) << p.err;
  // Up to there every I/O counts, on every GC mode.
  WriteText(t / "far.log",
            "fio version 3 iolog\n0 f write 0 4096\n4000000000000000 f write 4096 4096\n"
            "4000000000000001 f write 8192 4096\n");
  for (const char* target : {"sim:tiny", "sim:tiny?gc_lazy=1", "sim:tiny?gc_lazy=1&gc_yield=1"}) {
    p = RunSsdlab({"replay", t / "far.log", "--target", target, "--json", t / "far.json"});
    ASSERT_EQ(p.exit_code, 0) << target << p.out << p.err;
    json j = ReadJson(t / "far.json");
    EXPECT_EQ(j["results"]["total"]["ios"], 3) << target;
    EXPECT_EQ(j["replay"]["trace"]["records"], 3) << target;
  }
}

TEST(SafetyTraceE2E, AGapOfDaysInVirtualTimeKeepsTheSeriesBounded) {
  TempDir t;
  // 3.5 days between the first record and the others; the series had 302,401 intervals.
  WriteText(t / "gap.log",
            "fio version 3 iolog\n0 f write 0 4096\n302400000000 f write 4096 4096\n"
            "302400000001 f write 8192 4096\n");
  Proc p = RunSsdlab({"replay", t / "gap.log", "--target", "sim:tiny", "--json", t / "g.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json j = ReadJson(t / "g.json");
  EXPECT_EQ(j["results"]["total"]["ios"], 3);
  const json& iv = j["intervals"];
  ASSERT_LE(iv.size(), 16384u);
  uint64_t ios = 0, end = 0;
  for (const json& s : iv) {
    EXPECT_EQ(s["t_begin_ns"].get<uint64_t>(), end);
    end = s["t_end_ns"].get<uint64_t>();
    ios += s["write"]["ios"].get<uint64_t>();
  }
  EXPECT_EQ(ios, 3u);
  EXPECT_EQ(end, j["measured_ns"].get<uint64_t>());
  // 100 years: the same bound.
  WriteText(t / "cent.log",
            "fio version 3 iolog\n0 f write 0 4096\n3153600000000000 f write 4096 4096\n");
  p = RunSsdlab({"replay", t / "cent.log", "--target", "sim:tiny", "--json", t / "c.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  j = ReadJson(t / "c.json");
  EXPECT_EQ(j["results"]["total"]["ios"], 2);
  EXPECT_LE(j["intervals"].size(), 16384u);
}

TEST(SafetyTraceE2E, IntervalHasTheSameLowerBoundForReplayAndRun) {
  TempDir t;
  WriteText(t / "s.log", "fio version 3 iolog\n0 f write 0 4096\n10 f write 4096 4096\n");
  Proc replay = RunSsdlab({"replay", t / "s.log", "--target", "sim:tiny", "--interval", "1ns"});
  Proc run = RunSsdlab({"run", "--target", "sim:tiny", "--runtime", "1s", "--interval", "1ns"});
  EXPECT_EQ(replay.exit_code, 2) << replay.out << replay.err;
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_TRUE(Has(replay.err, "--interval 1ns is below 10ms")) << replay.err;
  EXPECT_EQ(replay.err, run.err);
  // 10ms and 0 (no series) are fine.
  for (const char* iv : {"10ms", "0"}) {
    Proc p = RunSsdlab({"replay", t / "s.log", "--target", "sim:tiny", "--interval", iv});
    EXPECT_EQ(p.exit_code, 0) << iv << p.err;
  }
}

TEST(SafetyTraceE2E, ATraceFromAPipeIsReadOnceOrRefused) {
  TempDir t;
  WriteText(t / "m.csv",
            "128166372003061629,hm,0,Read,3154305024,4096,2336\n"
            "128166372016382155,hm,0,Write,3154296832,8192,10000\n"
            "128166372026382245,hm,1,Read,0,512,90\n");
  const std::string bin = SSDLAB_BINARY;
  // trace stats is one pass: it reads the pipe (plain or compressed) once.
  std::string out;
  EXPECT_EQ(
      Shell("cat " + t / "m.csv" + " | " + bin + " trace stats /dev/stdin --json " + t / "s.json",
            &out),
      0)
      << out;
  EXPECT_EQ(ReadJson(t / "s.json")["trace"]["records"], 3) << out;
  EXPECT_EQ(Shell("gzip -c " + t / "m.csv" + " | " + bin + " trace stats /dev/stdin --json " +
                      t / "z.json",
                  &out),
            0)
      << out;
  EXPECT_EQ(ReadJson(t / "z.json")["trace"]["records"], 3) << out;
  // Replay on the simulator is one pass too.
  EXPECT_EQ(Shell("cat " + t / "m.csv" + " | " + bin +
                      " replay /dev/stdin --target sim:tiny --timing afap --remap modulo --json " +
                      t / "r.json",
                  &out),
            0)
      << out;
  EXPECT_EQ(ReadJson(t / "r.json")["replay"]["trace"]["records"], 3) << out;
  // On a real target it checks the trace before writing, then replays it: refused, untouched.
  const std::string before = UserFile(t, 1 << 20);
  EXPECT_EQ(Shell("cat " + t / "m.csv" + " | " + bin + " replay /dev/stdin --target " +
                      t / "user.img" + " --remap modulo",
                  &out),
            2)
      << out;
  EXPECT_TRUE(Has(out, "trace /dev/stdin is not a regular file")) << out;
  EXPECT_TRUE(Has(out, "save it to a file first")) << out;
  EXPECT_EQ(ReadFile(t / "user.img"), before);
  // --loop needs a pass per loop.
  EXPECT_EQ(Shell("cat " + t / "m.csv" + " | " + bin +
                      " replay /dev/stdin --target sim:tiny --remap modulo --loop 2",
                  &out),
            2)
      << out;
  EXPECT_TRUE(Has(out, "--loop")) << out;
}

TEST(SafetyTraceE2E, AZeroCostCommandStillTakesOneTick) {
  TempDir t;
  const std::string bin = SSDLAB_BINARY;
  const std::string target = "'sim:tiny?ctrl_trim_us=0&cmd_us=0'";
  // By runtime: it ends (it never did; `timeout` turns a hang into a failure).
  std::string out;
  EXPECT_EQ(Shell("timeout 120 " + bin + " run --target " + target +
                      " --rw randtrim --runtime 10ms --json " + t / "rt.json",
                  &out),
            0)
      << out;
  json rt = ReadJson(t / "rt.json");
  EXPECT_EQ(rt["measured_ns"], 10000000);
  EXPECT_GT(rt["results"]["trim"]["ios"].get<uint64_t>(), 0u);
  // By amount: a length and a rate.
  Proc p = RunSsdlab({"run", "--target", "sim:tiny?ctrl_trim_us=0&cmd_us=0", "--rw", "randtrim",
                      "--io-size", "1x", "--json", t / "io.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json io = ReadJson(t / "io.json");
  EXPECT_GT(io["measured_ns"].get<uint64_t>(), 0u);
  EXPECT_GT(io["results"]["trim"]["iops"].get<double>(), 0);
}

}  // namespace
}  // namespace ssdlab::test
