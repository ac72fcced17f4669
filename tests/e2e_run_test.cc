// End-to-end tests of `ssdlab run` on files and loop devices.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

struct LogLine {
  uint64_t start_ns, offset, bytes, latency_ns;
  std::string dir;
};

std::vector<LogLine> ParseLatLog(const std::string& text) {
  std::vector<LogLine> out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "start_ns,direction,offset,bytes,latency_ns");
  while (std::getline(in, line)) {
    LogLine l;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream f(line);
    f >> l.start_ns >> l.dir >> l.offset >> l.bytes >> l.latency_ns;
    out.push_back(l);
  }
  return out;
}

TEST(RunE2E, CountsAndBytesAddUpWithLatLog) {
  TempDir t;
  Proc p = RunSsdlab({"run",
                      "--target",
                      t / "f",
                      "--size",
                      "32MiB",
                      "--rw",
                      "randrw",
                      "--rwmix-read",
                      "70",
                      "--bs",
                      "4KiB:50,16KiB:30,64KiB:20",
                      "--qd",
                      "8",
                      "--jobs",
                      "2",
                      "--io-size",
                      "16MiB",
                      "--json",
                      t / "r.json",
                      "--lat-log",
                      t / "lat.csv"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json r = ReadJson(t / "r.json");
  EXPECT_EQ(r["schema_version"], 1);
  const json& res = r["results"];
  uint64_t rios = res["read"]["ios"], wios = res["write"]["ios"], tios = res["total"]["ios"];
  uint64_t rb = res["read"]["bytes"], wb = res["write"]["bytes"], tb = res["total"]["bytes"];
  EXPECT_EQ(rios + wios, tios);
  EXPECT_EQ(rb + wb, tb);
  EXPECT_EQ(res["trim"]["ios"], 0);
  // Each job stops issuing once its 8 MiB share is reached: at most one block over.
  EXPECT_GE(tb, 16u << 20);
  EXPECT_LT(tb, (16u << 20) + 2 * 65536);
  EXPECT_NEAR(static_cast<double>(rios) / tios, 0.70, 0.05);
  auto log = ParseLatLog(ReadFile(t / "lat.csv"));
  ASSERT_EQ(log.size(), tios);
  uint64_t lr = 0, lb = 0;
  for (const auto& l : log) {
    lr += l.dir == "read";
    lb += l.bytes;
    EXPECT_TRUE(l.dir == "read" || l.dir == "write") << l.dir;
    EXPECT_EQ(l.offset % l.bytes, 0u);
    EXPECT_LE(l.offset + l.bytes, 32u << 20);
    EXPECT_GT(l.latency_ns, 0u);
  }
  EXPECT_EQ(lr, rios);
  EXPECT_EQ(lb, tb);
  // Latency statistics agree with the log exactly where they are exact.
  uint64_t max_lat = 0;
  for (const auto& l : log) max_lat = std::max(max_lat, l.latency_ns);
  EXPECT_EQ(res["total"]["lat_ns"]["max"], max_lat);
  const json& lat = res["total"]["lat_ns"];
  EXPECT_LE(lat["p99_999"].get<double>(), lat["max"].get<double>());
  EXPECT_LE(lat["p50"].get<double>(), lat["p99"].get<double>());
  uint64_t hist_total = 0;
  for (const auto& b : res["total"]["histogram"]) hist_total += b[1].get<uint64_t>();
  EXPECT_EQ(hist_total, tios);
}

TEST(RunE2E, JsonHasEveryField) {
  TempDir t;
  Proc p = RunSsdlab({"run", "--target", t / "f", "--size", "8MiB", "--rw", "randread", "--runtime",
                      "1s", "--json", "-"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json r = json::parse(p.out);  // nothing but JSON on stdout
  for (const char* k : {"schema_version", "context", "results", "intervals", "cpu", "errors",
                        "io_errors", "verify", "interrupted", "notes", "measured_ns"}) {
    EXPECT_TRUE(r.contains(k)) << k;
  }
  for (const char* k : {"tool_version", "git_revision", "host", "kernel", "cpu_model", "target",
                        "workload", "seed", "start_time", "end_time", "engine"}) {
    EXPECT_TRUE(r["context"].contains(k)) << k;
  }
  for (const char* d : {"read", "write", "trim", "total"}) {
    for (const char* k : {"ios", "bytes", "iops", "bw_bytes_per_s", "lat_ns", "histogram"}) {
      EXPECT_TRUE(r["results"][d].contains(k)) << d << "." << k;
    }
    for (const char* k :
         {"min", "mean", "stddev", "p50", "p90", "p99", "p99_9", "p99_99", "p99_999", "max"}) {
      EXPECT_TRUE(r["results"][d]["lat_ns"][k].is_number()) << d << "." << k;
    }
  }
  EXPECT_GT(r["results"]["read"]["ios"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["context"]["target"]["kind"], "file");
  EXPECT_FALSE(r["intervals"].empty());
  EXPECT_NE(p.err.find("IOPS"), std::string::npos) << "human table goes to stderr with --json -";
}

TEST(RunE2E, SameSeedSameOffsetsAndData) {
  TempDir t;
  auto run = [&](const std::string& file, const std::string& seed, const std::string& log) {
    Proc p = RunSsdlab({"run", "--target", t / file, "--size", "8MiB", "--rw", "randwrite", "--bs",
                        "4KiB:80,32KiB:20", "--dist", "zipf:1.1", "--qd", "1", "--io-size", "4MiB",
                        "--seed", seed, "--lat-log", t / log});
    EXPECT_EQ(p.exit_code, 0) << p.err;
  };
  run("a", "7", "a.csv");
  run("b", "7", "b.csv");
  run("c", "8", "c.csv");
  auto key = [](const std::vector<LogLine>& v) {
    std::vector<std::tuple<std::string, uint64_t, uint64_t>> k;
    for (const auto& l : v) k.emplace_back(l.dir, l.offset, l.bytes);
    return k;
  };
  auto a = key(ParseLatLog(ReadFile(t / "a.csv")));
  auto b = key(ParseLatLog(ReadFile(t / "b.csv")));
  auto c = key(ParseLatLog(ReadFile(t / "c.csv")));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::string fa = ReadFile(t / "a"), fb = ReadFile(t / "b"), fc = ReadFile(t / "c");
  EXPECT_EQ(fa.size(), 8u << 20);
  EXPECT_TRUE(fa == fb) << "same seed, same bytes";
  EXPECT_FALSE(fa == fc);
}

TEST(RunE2E, VerifyReportsExactlyTheCorruptedBlocks) {
  TempDir t;
  Proc w = RunSsdlab({"run", "--target", t / "f", "--size", "16MiB", "--rw", "write", "--bs",
                      "4KiB", "--qd", "16", "--verify"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  Proc clean = RunSsdlab({"run", "--target", t / "f", "--rw", "read", "--bs", "64KiB", "--qd", "4",
                          "--verify", "--json", t / "clean.json"});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(ReadJson(t / "clean.json")["verify"]["failures"], 0);
  // Corrupt three 4 KiB blocks: one bit, one header, one whole block zeroed.
  {
    std::fstream f(t / "f", std::ios::in | std::ios::out | std::ios::binary);
    auto flip = [&](uint64_t off) {
      f.seekg(static_cast<std::streamoff>(off));
      char c;
      f.read(&c, 1);
      c ^= 0x10;
      f.seekp(static_cast<std::streamoff>(off));
      f.write(&c, 1);
    };
    flip(5 * 4096 + 1000);
    flip(100 * 4096 + 8);  // inside the header: the offset field
    std::string zeros(4096, '\0');
    f.seekp(2000 * 4096);
    f.write(zeros.data(), 4096);
  }
  Proc r = RunSsdlab({"run", "--target", t / "f", "--rw", "read", "--bs", "16KiB", "--qd", "8",
                      "--verify", "--json", t / "r.json"});
  EXPECT_EQ(r.exit_code, 1) << "verify failures give exit status 1";
  EXPECT_NE(r.err.find("verify: 3 blocks failed"), std::string::npos) << r.err;
  json v = ReadJson(t / "r.json")["verify"];
  EXPECT_EQ(v["failures"], 3);
  ASSERT_EQ(v["records"].size(), 3u);
  EXPECT_EQ(v["records"][0]["offset"], 5 * 4096);
  EXPECT_EQ(v["records"][1]["offset"], 100 * 4096);
  EXPECT_EQ(v["records"][2]["offset"], 2000 * 4096);
  EXPECT_NE(v["records"][0]["problem"].get<std::string>().find("checksum"), std::string::npos);
  EXPECT_NE(v["records"][2]["problem"].get<std::string>().find("no verify header"),
            std::string::npos);
}

TEST(RunE2E, ReadOfNewFileFillsItFirst) {
  TempDir t;
  Proc p = RunSsdlab({"run", "--target", t / "f", "--size", "8MiB", "--rw", "randread", "--runtime",
                      "1s", "--verify", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json r = ReadJson(t / "r.json");
  ASSERT_EQ(r["notes"].size(), 1u);
  EXPECT_NE(r["notes"][0].get<std::string>().find("filled 8 MiB"), std::string::npos);
  EXPECT_EQ(r["verify"]["failures"], 0);
  EXPECT_GT(r["results"]["read"]["ios"].get<uint64_t>(), 0u);
  // A second read finds the file written and does not fill again.
  Proc q = RunSsdlab({"run", "--target", t / "f", "--rw", "read", "--json", t / "q.json"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_TRUE(ReadJson(t / "q.json")["notes"].empty());
}

TEST(RunE2E, RampIsExcluded) {
  TempDir t;
  Proc p = RunSsdlab({"run", "--target", t / "f", "--size", "4MiB", "--rw", "write", "--bs",
                      "64KiB", "--ramp", "1x", "--io-size", "2x", "--json", t / "r.json",
                      "--lat-log", t / "l.csv"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json r = ReadJson(t / "r.json");
  EXPECT_EQ(r["results"]["write"]["bytes"], 8u << 20);
  EXPECT_EQ(ParseLatLog(ReadFile(t / "l.csv")).size(), 128u);
}

TEST(RunE2E, RateLimitIssuesOnSchedule) {
  TempDir t;
  Proc p = RunSsdlab({"run", "--target", t / "f", "--size", "8MiB", "--rw", "randwrite",
                      "--rate-iops", "400", "--runtime", "2s", "--qd", "4", "--json", t / "r.json",
                      "--lat-log", t / "l.csv"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  uint64_t ios = ReadJson(t / "r.json")["results"]["write"]["ios"];
  // Never more than the schedule allows in 2 s (800, +1 at the boundary), however fast the
  // device; latency counts from the scheduled time, so the k-th I/O starts at exactly k x 2.5 ms
  // even when a busy machine delays its submission.
  EXPECT_GE(ios, 1u);
  EXPECT_LE(ios, 801u);
  auto log = ParseLatLog(ReadFile(t / "l.csv"));
  ASSERT_EQ(log.size(), ios);
  std::vector<uint64_t> starts;
  for (const auto& l : log) starts.push_back(l.start_ns);
  std::sort(starts.begin(), starts.end());
  for (size_t k = 0; k < starts.size(); ++k) EXPECT_EQ(starts[k], k * 2'500'000) << "I/O " << k;
}

TEST(RunE2E, EnginesAndTrim) {
  TempDir t;
  for (const char* engine : {"io_uring", "libaio", "psync"}) {
    Proc p = RunSsdlab({"run", "--target", t / "f", "--size", "8MiB", "--rw", "randrw", "--qd", "4",
                        "--io-size", "2MiB", "--engine", engine, "--json", t / "r.json"});
    ASSERT_EQ(p.exit_code, 0) << engine << ": " << p.err;
    json r = ReadJson(t / "r.json");
    EXPECT_GE(r["results"]["total"]["bytes"].get<uint64_t>(), 2u << 20) << engine;
    EXPECT_EQ(r["context"]["engine"]["name"], engine);
  }
  Proc trim = RunSsdlab(
      {"run", "--target", t / "f", "--rw", "trim", "--bs", "1MiB", "--json", t / "t.json"});
  ASSERT_EQ(trim.exit_code, 0) << trim.err;
  EXPECT_EQ(ReadJson(t / "t.json")["results"]["trim"]["bytes"], 8u << 20);
  struct stat st;
  ASSERT_EQ(stat((t / "f").c_str(), &st), 0);
  EXPECT_LT(st.st_blocks * 512, 1 << 20) << "trim punched holes";
  // Synchronous trims (psync, libaio) end on time like everything else.
  for (const char* engine : {"psync", "libaio"}) {
    Proc timed = RunSsdlab({"run", "--target", t / "f", "--rw", "randtrim", "--runtime", "1s",
                            "--engine", engine, "--json", t / "tt.json"});
    ASSERT_EQ(timed.exit_code, 0) << engine << ": " << timed.err;
    EXPECT_GT(ReadJson(t / "tt.json")["results"]["trim"]["ios"].get<uint64_t>(), 0u);
  }
}

// Each bad input: exit 2, one line naming the problem, and the target untouched.
TEST(RunE2E, BadInputsFailCleanly) {
  TempDir t;
  std::string f = t / "f";
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"--bogus"}, "--bogus"},
      {{"--bs", "4XB"}, "XB"},
      {{"--bs", "1000"}, "multiple"},
      {{"--range", "0%-150%"}, "--range"},
      {{"--range", "0-1GiB"}, "beyond the target"},
      {{"--size", "1PB"}, "does not fit"},
      {{"--qd", "0"}, "--qd"},
      {{"--json", t / "missing/dir/r.json"}, "does not exist"},
      {{"--lat-log", t / "missing/l.csv"}, "does not exist"},
      {{"--dist", "gauss"}, "gauss"},
      {{"--runtime", "10 parsecs"}, "runtime"},
      // fio's names, typed out of habit, are answered with ssdlab's.
      {{"--iodepth", "32"}, "--iodepth is fio's name; ssdlab's is --qd N"},
      {{"--numjobs=4"}, "--numjobs is fio's name; ssdlab's is --jobs N"},
      {{"--filename", f}, "--filename is fio's name; ssdlab's is --target PATH"},
      {{"--rwmixwrite=30"}, "--rwmixwrite is fio's name; ssdlab's is --rwmix-read PCT"},
  };
  for (const Case& c : cases) {
    std::map<std::string, std::string> flags = {
        {"--target", f}, {"--size", "8MiB"}, {"--rw", "randwrite"}, {"--runtime", "1s"}};
    std::vector<std::string> args = {"run"};
    if (c.args.size() == 2) flags[c.args[0]] = c.args[1];
    for (const auto& [k, v] : flags) args.insert(args.end(), {k, v});
    if (c.args.size() == 1) args.push_back(c.args[0]);
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 2) << c.expect << ": " << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_NE(p.err.find(c.expect), std::string::npos) << p.err;
    EXPECT_FALSE(std::filesystem::exists(f)) << "target created despite " << c.expect;
  }
  Proc dev = RunSsdlab({"run", "--target", "/dev/ssdlab-no-such-device", "--rw", "randread"});
  EXPECT_EQ(dev.exit_code, 2);
  EXPECT_NE(dev.err.find("does not exist"), std::string::npos) << dev.err;
  Proc nosize = RunSsdlab({"run", "--target", f, "--rw", "randread"});
  EXPECT_EQ(nosize.exit_code, 2);
  EXPECT_NE(nosize.err.find("--size"), std::string::npos) << nosize.err;
}

TEST(RunE2E, ReadOnlyTargetRefusesWrites) {
  TempDir t;
  std::string f = t / "f";
  ASSERT_EQ(RunSsdlab({"run", "--target", f, "--size", "4MiB", "--rw", "write"}).exit_code, 0);
  // Root ignores permission bits; the immutable attribute binds root too.
  if (Shell("chattr +i " + f) != 0) GTEST_SKIP() << "chattr +i unsupported here";
  std::string before = ReadFile(f);
  Proc p = RunSsdlab({"run", "--target", f, "--rw", "randwrite", "--runtime", "1s"});
  Proc r = RunSsdlab({"run", "--target", f, "--rw", "randread", "--runtime", "1s"});
  Shell("chattr -i " + f);
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_NE(p.err.find("read-only"), std::string::npos) << p.err;
  EXPECT_EQ(ReadFile(f), before);
  EXPECT_EQ(r.exit_code, 0) << "reading a read-only file works: " << r.err;
}

TEST(RunE2E, SigintKeepsPartialResults) {
  TempDir t;
  pid_t pid = StartSsdlab({"run", "--target", t / "f", "--size", "16MiB", "--rw", "randrw",
                           "--runtime", "120s", "--json", t / "r.json", "--lat-log", t / "l.csv"},
                          t / "out", t / "err");
  // Wait (bounded) until I/O has been measured: the log gets its first batch.
  std::error_code ec;
  for (int i = 0; i < 600; ++i) {
    auto size = std::filesystem::file_size(t / "l.csv", ec);
    if (!ec && size > 4096 * 20) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGINT);
  int rc = Wait(pid);
  EXPECT_EQ(rc, 130) << ReadFile(t / "err");
  json r = ReadJson(t / "r.json");
  EXPECT_TRUE(r["interrupted"].get<bool>());
  EXPECT_GT(r["results"]["total"]["ios"].get<uint64_t>(), 0u);
  EXPECT_LT(r["measured_ns"].get<uint64_t>(), 100ull * 1000000000ull);
  EXPECT_NE(ReadFile(t / "err").find("interrupted"), std::string::npos);
}

// A loop device of our own: refused while mounted, written when free and --destructive.
class LoopDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!loops_.Attach(dir_ / "img", 64 << 20, &dev_)) GTEST_SKIP() << loops_.error();
  }
  TempDir dir_;
  LoopDevices loops_;
  std::string dev_;
};

TEST_F(LoopDeviceTest, RefusesMountedAndNeedsDestructive) {
  Proc plain = RunSsdlab({"run", "--target", dev_, "--rw", "randwrite", "--runtime", "1s"});
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("--destructive"), std::string::npos) << plain.err;

  Proc ok = RunSsdlab({"run", "--target", dev_, "--rw", "randwrite", "--runtime", "1s",
                       "--destructive", "--json", dir_ / "r.json"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ReadJson(dir_ / "r.json")["context"]["target"]["kind"], "block");

  if (!loops_.Mount(dev_, dir_ / "mnt", true)) GTEST_SKIP() << loops_.error();
  Proc refused =
      RunSsdlab({"run", "--target", dev_, "--rw", "randwrite", "--runtime", "1s", "--destructive"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("mounted on"), std::string::npos) << refused.err;
  Proc reading = RunSsdlab({"run", "--target", dev_, "--rw", "randread", "--runtime", "1s"});
  EXPECT_EQ(reading.exit_code, 0) << "reads are harmless: " << reading.err;
}

}  // namespace
}  // namespace ssdlab::test
