// The served drive's lifecycle end to end: `ssdlab app NAME --target sim:PRESET` (the drive
// served, ext4 made and mounted, the app run, everything undone, the drive's counters stored)
// and `sim serve --daemon --pid-file` (the parent returns once the device is usable; SIGTERM to
// the pid stops it cleanly). Skipped, with the reason, where the machine has no FUSE, no loop
// devices, no mkfs.ext4 or no PostgreSQL.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Mount points (field 5 of /proc/self/mountinfo) under `dir`.
std::vector<std::string> MountsUnder(const std::string& dir) {
  std::vector<std::string> found;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  const std::string canon = fs::weakly_canonical(dir).string();
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string f[5];
    for (auto& x : f) ls >> x;
    if (f[4].rfind(canon, 0) == 0) found.push_back(f[4]);
  }
  return found;
}

// Loop devices whose backing file lies under `dir`.
std::vector<std::string> LoopsUnder(const std::string& dir) {
  std::vector<std::string> found;
  const std::string canon = fs::weakly_canonical(dir).string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/block", ec)) {
    std::string back = ReadFile(e.path() / "loop" / "backing_file");
    if (back.rfind(canon, 0) == 0) found.push_back(e.path().filename().string());
  }
  return found;
}

bool HaveFuseAndLoops(std::string* why) {
  if (access("/dev/fuse", R_OK | W_OK) != 0) *why = "no usable /dev/fuse here";
  if (access("/dev/loop-control", R_OK | W_OK) != 0)
    *why = "no loop devices here (/dev/loop-control; root needed)";
  if (Shell("command -v mkfs.ext4 && command -v losetup") != 0)
    *why = "mkfs.ext4 or losetup is not installed";
  return why->empty();
}

// A private TMPDIR the database servers' users can enter: `app --target` makes its directories
// there, so the test sees everything it leaves.
class ServeAppE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!HaveFuseAndLoops(&why)) GTEST_SKIP() << why;
    chmod(tmp_.path().c_str(), 0755);
    work_ = tmp_ / "tmp";
    fs::create_directories(work_);
    chmod(work_.c_str(), 0755);
    const char* old = std::getenv("TMPDIR");
    if (old != nullptr) old_tmpdir_ = old;
    setenv("TMPDIR", work_.c_str(), 1);
  }
  void TearDown() override {
    if (old_tmpdir_.empty()) {
      unsetenv("TMPDIR");
    } else {
      setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    }
    // A daemon a failed test left running, then whatever it left mounted.
    const pid_t daemon = std::atoi(ReadFile(tmp_ / "serve.pid").c_str());
    if (daemon > 0) kill(daemon, SIGKILL);
    RunSsdlab({"sim", "serve", "--cleanup", tmp_ / "fuse"});
    for (const std::string& m : MountsUnder(work_)) Unmount(m);
    for (const auto& e : fs::directory_iterator(work_, ec_))
      RunSsdlab({"sim", "serve", "--cleanup", (e.path() / "drive").string()});
  }
  void ExpectNothingLeft() {
    EXPECT_TRUE(MountsUnder(work_).empty());
    EXPECT_TRUE(LoopsUnder(work_).empty());
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(work_, ec_)) left.push_back(e.path());
    EXPECT_TRUE(left.empty()) << left.front();
  }
  TempDir tmp_;
  std::string work_, old_tmpdir_;
  std::error_code ec_;
};

// pgbench on a served dc-sata-mixed, a short setting: the app's figures and the drive's counters
// over the test are printed and stored, and nothing stays mounted or attached afterwards.
TEST_F(ServeAppE2E, PgbenchOnAServedDcSataMixedStoresTheDrivesCounters) {
  if (Shell("command -v pgbench") != 0) GTEST_SKIP() << "pgbench is not installed";
  const std::string db = tmp_ / "r.db", out = tmp_ / "r.json";
  Proc p = RunSsdlab({"app",      "pgbench", "--target",  "sim:dc-sata-mixed",
                      "--db",     db,        "--run",     "served",
                      "--json",   out,       "--time",    "2s",
                      "--warmup", "0",       "--threads", "2",
                      "--scale",  "1",       "--buffer",  "16MiB"});
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_TRUE(Has(p.err, "making an ext4 filesystem on /dev/loop")) << p.err;
  EXPECT_TRUE(Has(p.out, "pgbench: ")) << p.out;
  EXPECT_TRUE(Has(p.out, "simulated drive sim:dc-sata-mixed over the test: host writes")) << p.out;
  json doc = ReadJson(out);
  EXPECT_EQ(doc["context"]["target"]["kind"], "sim");
  EXPECT_EQ(doc["context"]["config"]["target"], "sim:dc-sata-mixed");
  const json& r = doc["tests"][0]["results"];
  EXPECT_GT(r["tps"].get<double>(), 0);
  ASSERT_TRUE(r.contains("simulated_drive")) << r.dump();
  const json& d = r["simulated_drive"];
  EXPECT_EQ(d["target"], "sim:dc-sata-mixed");
  EXPECT_GT(d["host_pages_written"].get<uint64_t>(), 0u) << d.dump();
  EXPECT_GT(d["nand_pages_written"].get<uint64_t>(), 0u) << d.dump();
  EXPECT_GE(d["write_amplification"].get<double>(), 1.0) << d.dump();
  EXPECT_GE(d["nand_pages_written"].get<uint64_t>(), d["host_pages_written"].get<uint64_t>());
  EXPECT_GT(d["transport_round_trip_ns"].get<uint64_t>(), 0u);
  EXPECT_TRUE(d.contains("paced") && d.contains("gc_page_copies") && d.contains("erases"));
  std::string schema_out;
  EXPECT_EQ(Shell(std::string(SSDLAB_PYTHON) + " " + SSDLAB_SOURCE_DIR +
                      "/scripts/check_schema.py --doc app " + out + " " + SSDLAB_SOURCE_DIR +
                      "/docs/schema/results.schema.json",
                  &schema_out),
            0)
      << schema_out;
  ExpectNothingLeft();
}

// Ctrl-C while the app runs on the served drive: the run stops (exit 130, stored as
// interrupted), and the filesystem, the loop device and the FUSE mount are all gone.
TEST_F(ServeAppE2E, CtrlCWhileTheAppRunsLeavesNothingMounted) {
  if (Shell("command -v pgbench") != 0) GTEST_SKIP() << "pgbench is not installed";
  const std::string out = tmp_ / "out", err = tmp_ / "err";
  const pid_t pid = StartSsdlab(
      {"app", "pgbench", "--target", "sim:dc-sata-mixed", "--db", tmp_ / "r.db", "--run", "cut",
       "--time", "300s", "--warmup", "0", "--threads", "2", "--scale", "1", "--buffer", "16MiB"},
      out, err);
  // The measured run has started once its line is printed (bounded: 3 minutes, or its exit).
  bool running = false;
  int status = 0;
  for (int i = 0; i < 1800 && !running; ++i) {
    running = Has(ReadFile(err), "running pgbench");
    if (running || waitpid(pid, &status, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!running) kill(pid, SIGKILL);
  ASSERT_TRUE(running) << ReadFile(err);
  kill(pid, SIGINT);
  EXPECT_EQ(Wait(pid), 130) << ReadFile(err);
  EXPECT_TRUE(Has(ReadFile(err), "interrupted; what was measured is stored in run cut"))
      << ReadFile(err);
  ExpectNothingLeft();
}

// A program the app needs is missing (here initdb beside a --server-bin): one line naming it,
// exit 3, and nothing was served or mounted.
TEST_F(ServeAppE2E, AMissingProgramIsOneLineAndExit3BeforeServing) {
  const std::string bin = tmp_ / "bin";
  fs::create_directories(bin);
  std::ofstream(bin + "/postgres") << "#!/bin/sh\nexit 0\n";
  chmod((bin + "/postgres").c_str(), 0755);
  Proc p = RunSsdlab({"app", "pgbench", "--target", "sim:tiny", "--db", tmp_ / "r.db",
                      "--server-bin", bin + "/postgres", "--time", "1s", "--warmup", "0"});
  EXPECT_EQ(p.exit_code, 3) << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_TRUE(Has(p.err, bin + "/initdb not found")) << p.err;
  ExpectNothingLeft();
}

// mkfs.ext4 missing (hidden in a private mount namespace): one line naming it, exit 3.
TEST_F(ServeAppE2E, AMissingMkfsIsOneLineAndExit3) {
  if (Shell("command -v unshare && command -v pgbench") != 0)
    GTEST_SKIP() << "unshare or pgbench is not installed";
  std::string mkfs;
  ASSERT_EQ(Shell("command -v mkfs.ext4", &mkfs), 0);
  while (!mkfs.empty() && mkfs.back() == '\n') mkfs.pop_back();
  std::string out;
  const int rc = Shell("unshare -m --propagation private sh -c 'mount --bind /dev/null " + mkfs +
                           " && exec " + SSDLAB_BINARY + " app pgbench --target sim:tiny --db " +
                           (tmp_ / "r.db") + " --time 1s --warmup 0' 2>&1",
                       &out);
  EXPECT_EQ(rc, 3) << out;
  EXPECT_EQ(CountLines(out), 1) << out;
  EXPECT_TRUE(Has(out, "mkfs.ext4 not found; install e2fsprogs")) << out;
  ExpectNothingLeft();
}

// Whether `pid` is gone (or a zombie nobody reaped yet: it has exited).
bool Gone(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

// Polls until `pid` is gone, for up to 60 s; false if it is still there.
bool WaitGone(pid_t pid) {
  for (int i = 0; i < 600; ++i) {
    if (Gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Gone(pid);
}

// `sim serve --daemon --pid-file`: the command returns once the device is usable (its lines
// printed), the pid file names the server; data written to the loop device, SIGTERM to that pid
// stops it cleanly (nothing mounted, the pid file removed, the state and --json written), and a
// second daemon on the same state finds the data.
TEST_F(ServeAppE2E, DaemonReturnsWhenUsableAndStopsCleanlyOnSigterm) {
  const std::string dir = tmp_ / "fuse", pid_file = tmp_ / "serve.pid", state = tmp_ / "d.st";
  const std::string json_path = tmp_ / "serve.json", data = tmp_ / "data";
  fs::create_directories(dir);
  const std::vector<std::string> args = {"sim",      "serve",      "sim:tiny?state=" + state,
                                         "--fuse",   dir,          "--loop",
                                         "--daemon", "--pid-file", pid_file,
                                         "--json",   json_path};
  Proc p = RunSsdlab(args);
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  std::string dev;
  std::istringstream lines(p.out);
  for (std::string l; std::getline(lines, l);)
    if (l.rfind("loop: ", 0) == 0) dev = l.substr(6);
  ASSERT_EQ(dev.rfind("/dev/loop", 0), 0u) << p.out;
  EXPECT_TRUE(Has(p.out, "\nready\n")) << p.out;
  EXPECT_TRUE(Has(p.out, "mount: " + dir)) << p.out;
  const pid_t pid = std::atoi(ReadFile(pid_file).c_str());
  ASSERT_GT(pid, 0) << ReadFile(pid_file);
  EXPECT_TRUE(Has(p.out, "pid: " + std::to_string(pid))) << p.out;
  EXPECT_FALSE(Gone(pid));
  EXPECT_FALSE(MountsUnder(dir).empty());

  // The device is usable now: 1 MiB written through it (direct), read back.
  std::string out;
  ASSERT_EQ(Shell("head -c 1048576 /dev/urandom > " + data + " && dd if=" + data + " of=" + dev +
                      " bs=64k oflag=direct status=none && cmp -n 1048576 " + data + " " + dev,
                  &out),
            0)
      << out;
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  ASSERT_TRUE(WaitGone(pid));
  EXPECT_TRUE(MountsUnder(dir).empty());
  EXPECT_TRUE(LoopsUnder(dir).empty());
  EXPECT_FALSE(fs::exists(pid_file));
  const json doc = ReadJson(json_path);
  EXPECT_EQ(doc["state"], state) << doc.dump();
  EXPECT_GE(doc["write_bytes"].get<uint64_t>(), 1048576u) << doc.dump();
  EXPECT_TRUE(fs::exists(state));

  // The same state served again: the data is there.
  Proc again = RunSsdlab(args);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  std::string dev2;
  std::istringstream lines2(again.out);
  for (std::string l; std::getline(lines2, l);)
    if (l.rfind("loop: ", 0) == 0) dev2 = l.substr(6);
  EXPECT_EQ(Shell("cmp -n 1048576 " + data + " " + dev2, &out), 0) << out;
  const pid_t pid2 = std::atoi(ReadFile(pid_file).c_str());
  ASSERT_GT(pid2, 0);
  ASSERT_EQ(kill(pid2, SIGTERM), 0);
  ASSERT_TRUE(WaitGone(pid2));
  EXPECT_TRUE(MountsUnder(dir).empty());
}

// A daemon that fails before it is ready: the command's own exit status and the one-line error
// (here a directory that is not empty), and no pid file left.
TEST_F(ServeAppE2E, DaemonFailingBeforeReadyExitsWithItsError) {
  const std::string dir = tmp_ / "full", pid_file = tmp_ / "serve.pid";
  fs::create_directories(dir);
  std::ofstream(dir + "/x") << "x";
  Proc p = RunSsdlab(
      {"sim", "serve", "sim:tiny", "--fuse", dir, "--loop", "--daemon", "--pid-file", pid_file});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_TRUE(Has(p.err, "is not an empty directory")) << p.err;
  EXPECT_FALSE(Has(p.out, "ready")) << p.out;
  EXPECT_FALSE(fs::exists(pid_file));
  Proc alone = RunSsdlab({"sim", "serve", "sim:tiny", "--fuse", dir, "--daemon"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_TRUE(Has(alone.err, "--daemon and --pid-file FILE go together")) << alone.err;
}

// --target and --dir: exactly one; --target only a simulated drive (exit 2, one line).
TEST(ServeAppRefusals, TargetOrDirAndOnlyASimulatedDrive) {
  TempDir t;
  Proc both = RunSsdlab(
      {"app", "pgbench", "--target", "sim:tiny", "--dir", t.path().string(), "--db", t / "r.db"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_TRUE(Has(both.err, "give either --dir DIR or --target sim:PRESET")) << both.err;
  Proc none = RunSsdlab({"app", "pgbench", "--db", t / "r.db"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_TRUE(Has(none.err, "give either --dir DIR or --target sim:PRESET")) << none.err;
  Proc real = RunSsdlab({"app", "pgbench", "--target", "/dev/sda", "--db", t / "r.db"});
  EXPECT_EQ(real.exit_code, 2) << real.err;
  EXPECT_EQ(CountLines(real.err), 1) << real.err;
  EXPECT_TRUE(Has(real.err, "--target serves a simulated drive")) << real.err;
}

}  // namespace
}  // namespace ssdlab::test
