#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/app.h"
#include "apps/child.h"
#include "apps/disk_stats.h"
#include "apps/parse.h"

namespace ssdlab {
namespace {

std::ifstream Data(const std::string& name) {
  return std::ifstream(std::string(SSDLAB_APPS_TESTDATA) + "/" + name);
}

TEST(ParseSysbench, CapturedRun) {
  auto in = Data("sysbench_oltp.txt");
  auto r = ParseSysbench(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(r->transactions, 1088u);
  EXPECT_EQ(r->queries, 21760u);
  EXPECT_DOUBLE_EQ(r->tps, 359.54);
  EXPECT_DOUBLE_EQ(r->qps, 7190.73);
  EXPECT_EQ(r->errors, 0u);
  EXPECT_DOUBLE_EQ(r->duration_s, 3.0256);
  EXPECT_DOUBLE_EQ(r->lat_min_ms, 1.92);
  EXPECT_DOUBLE_EQ(r->lat_mean_ms, 11.09);
  EXPECT_DOUBLE_EQ(r->lat_max_ms, 48.08);
  ASSERT_EQ(r->seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(r->seconds[0].t_s, 1);
  EXPECT_EQ(r->seconds[0].threads, 4u);
  EXPECT_DOUBLE_EQ(r->seconds[0].tps, 327.59);
  EXPECT_DOUBLE_EQ(r->seconds[0].qps, 6601.72);
  EXPECT_DOUBLE_EQ(r->seconds[0].lat_ms, 38.25);
  EXPECT_DOUBLE_EQ(r->seconds[2].t_s, 3);
  // The histogram holds every transaction; its p99 is sysbench's own (same buckets), within
  // the histograms' bucket widths (sysbench ~1.2%, ours 0.4%).
  EXPECT_EQ(r->latency.count(), 1088u);
  EXPECT_NEAR(r->latency.Percentile(99) / 1e6, 35.59, 35.59 * 0.02);
  EXPECT_NEAR(static_cast<double>(r->latency.min()) / 1e6, 1.925, 0.01);
}

TEST(ParseSysbench, TruncatedRunKeepsItsSeconds) {
  auto in = Data("sysbench_oltp.txt");
  std::stringstream full;
  full << in.rdbuf();
  std::string text = full.str();
  std::istringstream cut(text.substr(0, text.find("[ 3s ]")));
  auto r = ParseSysbench(cut);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->complete);
  ASSERT_EQ(r->seconds.size(), 2u);
  EXPECT_EQ(r->transactions, 713u);  // 327.59 + 385.27 rounded
  EXPECT_NEAR(r->tps, 356.43, 0.01);
  EXPECT_EQ(r->latency.count(), 0u);
}

TEST(ParseSysbench, RejectsOtherText) {
  std::istringstream in("hello\nworld\n");
  EXPECT_EQ(ParseSysbench(in).status().code(), Code::kInvalidArgument);
}

TEST(ParsePgbench, CapturedRunAndLog) {
  auto in = Data("pgbench.txt");
  auto r = ParsePgbench(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(r->transactions, 1410u);
  EXPECT_EQ(r->errors, 0u);
  EXPECT_DOUBLE_EQ(r->duration_s, 3);
  EXPECT_DOUBLE_EQ(r->lat_mean_ms, 8.503);
  EXPECT_DOUBLE_EQ(r->tps, 468.371628);
  ASSERT_EQ(r->seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(r->seconds[1].t_s, 2.0);
  EXPECT_DOUBLE_EQ(r->seconds[1].tps, 439.0);
  EXPECT_DOUBLE_EQ(r->seconds[1].lat_ms, 9.054);
  EXPECT_DOUBLE_EQ(r->seconds[1].lat_stddev_ms, 7.028);
  EXPECT_DOUBLE_EQ(r->seconds[1].errors_per_s, 0);

  auto log = Data("pgbench_txlog.txt");
  Histogram h;
  uint64_t failed = 0;
  auto n = ReadPgbenchLog(log, &h, &failed);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value(), 50u);
  EXPECT_EQ(h.count(), 50u);
  EXPECT_EQ(h.min() > 0, true);
  std::istringstream bad("0 1 12x 0 1 2\n0 2 100 0 1 2\n");
  EXPECT_EQ(ReadPgbenchLog(bad, &h, &failed).status().code(), Code::kInvalidArgument);
  std::istringstream cut("0 1 100 0 1 2\n0 2 1");  // killed while writing the last line
  Histogram h3;
  EXPECT_EQ(ReadPgbenchLog(cut, &h3, &failed).value(), 1u);
  EXPECT_EQ(h3.count(), 1u);
  std::istringstream failed_line("0 1 failed 0 1 2\n3 4 100 0 1 2\n");
  Histogram h2;
  failed = 0;
  EXPECT_EQ(ReadPgbenchLog(failed_line, &h2, &failed).value(), 1u);
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(h2.max(), 100'000u);
}

TEST(ParsePgbench, TruncatedRunWeighsLatencyByTps) {
  std::istringstream in(
      "pgbench (15)\nprogress: 1.0 s, 100.0 tps, lat 10.000 ms stddev 1.0, 0 failed\n"
      "progress: 2.0 s, 300.0 tps, lat 2.000 ms stddev 1.0, 2 failed\n");
  auto r = ParsePgbench(in);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->complete);
  EXPECT_EQ(r->transactions, 400u);
  EXPECT_DOUBLE_EQ(r->tps, 200);
  EXPECT_DOUBLE_EQ(r->lat_mean_ms, (100 * 10 + 300 * 2) / 400.0);
  EXPECT_DOUBLE_EQ(r->seconds[1].errors_per_s, 2);
}

TEST(BlockStat, ParseAndDiff) {
  // reads merges sectors ticks writes merges sectors ticks inflight io_ticks queue ...
  auto a = ParseBlockStat("100 0 800 50 200 0 1600 400 0 300 450 10 0 80 5 20 60");
  auto b = ParseBlockStat("300 0 2400 150 600 0 9600 1200 0 800 900 10 0 80 5 30 60");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->flush_ios, 20u);
  DiskSecond d = DiffBlockStat(a.value(), b.value(), 2.0, 5.0);
  EXPECT_DOUBLE_EQ(d.t_s, 5.0);
  EXPECT_DOUBLE_EQ(d.read_iops, 100);
  EXPECT_DOUBLE_EQ(d.write_iops, 200);
  EXPECT_DOUBLE_EQ(d.read_mb_s, 1600 * 512 / 1e6 / 2);
  EXPECT_DOUBLE_EQ(d.write_mb_s, 8000 * 512 / 1e6 / 2);
  EXPECT_DOUBLE_EQ(d.read_lat_ms, 0.5);
  EXPECT_DOUBLE_EQ(d.write_lat_ms, 2.0);
  EXPECT_DOUBLE_EQ(d.util_pct, 25);
  EXPECT_DOUBLE_EQ(d.flush_per_s, 5);
  EXPECT_EQ(ParseBlockStat("1 2 3").status().code(), Code::kInvalidArgument);
}

TEST(DiskSampler, SamplesARealStatFile) {
  // Any block device will do; this only checks the sampler thread produces intervals.
  std::string path;
  for (const auto& e : std::filesystem::directory_iterator("/sys/block")) {
    path = (e.path() / "stat").string();
    break;
  }
  if (path.empty()) GTEST_SKIP() << "no block devices";
  DiskSampler s(path, std::nullopt, 20'000'000);
  ASSERT_TRUE(s.Start().ok());
  while (s.seconds().size() < 3) usleep(5000);  // read under no lock: size only grows
  s.Stop();
  ASSERT_GE(s.seconds().size(), 3u);
  EXPECT_GT(s.seconds()[1].t_s, s.seconds()[0].t_s);
  const results::AppDevice d = s.Record();
  EXPECT_EQ(d.per_second.size(), s.seconds().size());
  EXPECT_EQ(d.temperature.source, "none");
  EXPECT_EQ(d.summary.seconds, s.seconds().size());
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

TEST(Child, TerminateKillsTheWholeGroup) {
  auto dir = std::filesystem::temp_directory_path() / ("apps_child_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string pidfile = (dir / "grandchild").string();
  SpawnOptions so;
  so.log_path = (dir / "log").string();
  // The shell ignores SIGTERM; its background child writes its pid and sleeps.
  auto c = Child::Spawn(
      {"/bin/sh", "-c", "trap '' TERM; sleep 1000 & echo $! > " + pidfile + "; wait"}, so, "dash");
  ASSERT_TRUE(c.ok()) << c.status().message();
  while (!std::filesystem::exists(pidfile) || std::filesystem::file_size(pidfile) == 0)
    usleep(5000);
  pid_t grandchild = 0;
  std::ifstream(pidfile) >> grandchild;
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(c->running());
  EXPECT_TRUE(Alive(grandchild));
  int code = c->Terminate(SIGTERM, 100'000'000);  // ignored: escalates to SIGKILL
  EXPECT_EQ(code, 128 + SIGKILL);
  for (int i = 0; i < 200 && Alive(grandchild); ++i) usleep(10000);
  // The grandchild may linger as a zombie of init for a moment; it must not be sleeping.
  std::ifstream st("/proc/" + std::to_string(grandchild) + "/stat");
  std::string line;
  std::getline(st, line);
  EXPECT_TRUE(line.empty() || line.find(") Z") != std::string::npos) << line;
  std::filesystem::remove_all(dir);
}

TEST(Child, WaitReportsExitCodeAndStop) {
  auto ok = Child::Spawn({"/bin/sh", "-c", "exit 3"}, {}, "dash");
  ASSERT_TRUE(ok.ok());
  ASSERT_TRUE(ok->Wait(0, nullptr).ok());
  EXPECT_EQ(ok->exit_code(), 3);
  auto slow = Child::Spawn({"sleep", "1000"}, {}, "coreutils");
  ASSERT_TRUE(slow.ok());
  std::atomic<bool> stop{true};
  EXPECT_EQ(slow->Wait(0, &stop).code(), Code::kInterrupted);
  EXPECT_EQ(slow->Terminate(SIGTERM, 10'000'000'000), 128 + SIGTERM);
  auto missing = Child::Spawn({"no-such-program-xyz"}, {}, "nothing");
  EXPECT_EQ(missing.status().code(), Code::kUnsupported);
  EXPECT_NE(missing.status().message().find("no-such-program-xyz"), std::string::npos);
}

TEST(Ports, FreeAndTaken) {
  auto p = FreeLoopbackPort();
  ASSERT_TRUE(p.ok());
  EXPECT_GT(p.value(), 0);
  // Take a port and check it is reported as in use.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  uint16_t taken = ntohs(a.sin_port);
  Status s = CheckLoopbackPortFree(taken);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("already in use"), std::string::npos);
  close(fd);
  EXPECT_TRUE(CheckLoopbackPortFree(taken).ok());
}

TEST(CheckApp, BadInput) {
  AppOptions o;
  o.name = "nope";
  o.dir = "/tmp";
  EXPECT_NE(CheckApp(o).message().find("unknown app 'nope'"), std::string::npos);
  o.name = "pgbench";
  o.dir = "/nonexistent/dir";
  EXPECT_EQ(CheckApp(o).code(), Code::kNotFound);
  o.dir = std::filesystem::temp_directory_path().string();
  o.scale = 1'000'000;  // ~16 TB
  Status s = CheckApp(o);
  EXPECT_EQ(s.code(), Code::kNoSpace);
  EXPECT_NE(s.message().find("free"), std::string::npos);
  o.scale = 1;
  o.server_bin = "/nonexistent/postgres";
  EXPECT_EQ(CheckApp(o).code(), Code::kUnsupported);
  o.threads = 0;
  EXPECT_EQ(CheckApp(o).code(), Code::kInvalidArgument);
}

TEST(EstimateDataBytes, GrowsWithScale) {
  AppOptions a;
  a.name = "sysbench-oltp";
  uint64_t small = EstimateDataBytes(a);
  a.table_rows *= 10;
  EXPECT_GT(EstimateDataBytes(a), small);
  a.name = "pgbench";
  a.scale = 1;
  uint64_t pg1 = EstimateDataBytes(a);
  a.scale = 100;
  EXPECT_GT(EstimateDataBytes(a), pg1 + 99 * (16ull << 20));
}

}  // namespace
}  // namespace ssdlab
