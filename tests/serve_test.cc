// `ssdlab sim serve` end to end: a simulated drive served over FUSE with a loop device takes
// fio, mkfs.ext4, a mount, files written and read back, and keeps them across a restart with
// the same state; refusals (a mount point in use, a state in use, --ublk here, a directory
// that is not empty, no permission for /dev/fuse); `--cleanup` after a SIGKILL. Skipped, with the
// reason, where the machine has no FUSE, no loop devices, or no fio/mkfs.ext4.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

bool IsMounted(const std::string& dir) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  const std::string canon = std::filesystem::weakly_canonical(dir).string();
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string f[5];
    for (auto& x : f) ls >> x;
    if (f[4] == canon) return true;
  }
  return false;
}

// A server started with its stdout on a pipe: the test reads its lines as they come ("loop:",
// "ready"), so nothing waits on a guess of how long start-up takes.
class Server {
 public:
  Server(const std::vector<std::string>& args, const std::string& err_path) {
    int fds[2];
    if (pipe(fds) != 0) return;
    std::vector<char*> argv = {const_cast<char*>(SSDLAB_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[0]);
      int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int n = open("/dev/null", O_RDONLY);
      dup2(n, 0);
      dup2(fds[1], 1);
      dup2(e, 2);
      execv(SSDLAB_BINARY, argv.data());
      _exit(127);
    }
    close(fds[1]);
    out_ = fdopen(fds[0], "r");
  }
  ~Server() {
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      Wait(pid_);
    }
    if (out_) fclose(out_);
  }
  // Reads lines until "ready" (true) or the end of its output (false: it exited).
  bool WaitReady() {
    std::string line;
    while (ReadLine(&line)) {
      lines_.push_back(line);
      if (line.rfind("loop: ", 0) == 0) loop_ = line.substr(6);
      if (line == "ready") return true;
    }
    return false;
  }
  // Sends `sig`, reads the rest of its output and returns its exit status.
  int Stop(int sig) {
    kill(pid_, sig);
    std::string line;
    while (ReadLine(&line)) lines_.push_back(line);
    waited_ = true;
    return Wait(pid_);
  }
  // Its exit status once it ends by itself (a refusal).
  int Finish() {
    std::string line;
    while (ReadLine(&line)) lines_.push_back(line);
    waited_ = true;
    return Wait(pid_);
  }
  std::string Output() const {
    std::string s;
    for (const auto& l : lines_) s += l + "\n";
    return s;
  }
  const std::string& loop() const { return loop_; }

 private:
  bool ReadLine(std::string* line) {
    if (!out_) return false;
    char buf[4096];
    if (!fgets(buf, sizeof buf, out_)) return false;
    *line = buf;
    if (!line->empty() && line->back() == '\n') line->pop_back();
    return true;
  }
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  bool waited_ = false;
  std::vector<std::string> lines_;
  std::string loop_;
};

class ServeE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse here";
    if (access("/dev/loop-control", R_OK | W_OK) != 0)
      GTEST_SKIP() << "no loop devices here (/dev/loop-control; root needed)";
    if (Shell("command -v fio && command -v mkfs.ext4 && command -v losetup") != 0)
      GTEST_SKIP() << "fio, mkfs.ext4 or losetup is not installed";
  }
  // Always leaves nothing behind, however the test ended: the ext4 mounts, then each served
  // directory through the documented command.
  void TearDown() override {
    for (const auto& m : mounts_)
      if (IsMounted(m)) umount2(m.c_str(), MNT_DETACH);
    servers_.clear();  // SIGKILLs any still running
    for (const auto& d : dirs_) RunSsdlab({"sim", "serve", "--cleanup", d});
  }
  std::string ServeDir(const std::string& name) {
    const std::string d = tmp_ / name;
    std::filesystem::create_directories(d);
    dirs_.push_back(d);
    return d;
  }
  Server& Start(const std::vector<std::string>& args) {
    servers_.push_back(
        std::make_unique<Server>(args, tmp_ / ("err" + std::to_string(servers_.size()))));
    return *servers_.back();
  }
  std::string Err(size_t i) { return ReadFile(tmp_ / ("err" + std::to_string(i))); }
  // Mounts `dev` at `mnt`, with a new ext4 first when `mkfs`.
  void MountExt4(const std::string& dev, const std::string& mnt, bool mkfs) {
    std::filesystem::create_directories(mnt);
    std::string out;
    if (mkfs) ASSERT_EQ(Shell("mkfs.ext4 -F -q " + dev, &out), 0) << out;
    ASSERT_EQ(Shell("mount " + dev + " " + mnt, &out), 0) << out;
    mounts_.push_back(mnt);
  }
  TempDir tmp_;
  std::vector<std::string> dirs_, mounts_;
  std::vector<std::unique_ptr<Server>> servers_;
};

// fio's JSON (--output-format=json): the I/Os of job 0 in `dir` ("read"/"write"), its error.
std::pair<uint64_t, int> FioIos(const std::string& json_path, const std::string& dir) {
  nlohmann::json doc = ReadJson(json_path);
  if (!doc.contains("jobs") || doc["jobs"].empty()) return {0, -1};
  const auto& job = doc["jobs"][0];
  return {job[dir]["total_ios"].get<uint64_t>(), job["error"].get<int>()};
}

TEST_F(ServeE2E, FioMkfsFilesAndARestartWithTheSameState) {
  const std::string dir = ServeDir("fuse");
  const std::string state = tmp_ / "drive.st";
  const std::string target = "sim:tiny?capacity=256MiB&state=" + state;
  const std::string json = tmp_ / "serve.json";
  Server& s = Start({"sim", "serve", target, "--fuse", dir, "--loop", "--json", json});
  ASSERT_TRUE(s.WaitReady()) << s.Output() << Err(0);
  const std::string dev = s.loop();
  ASSERT_EQ(dev.rfind("/dev/loop", 0), 0u) << s.Output();
  EXPECT_TRUE(IsMounted(dir));

  // fio on the raw loop device: 4 KiB random writes, then reads, for 2 s each.
  for (const std::string rw : {"randwrite", "randread"}) {
    const std::string out = tmp_ / ("fio-" + rw + ".json");
    std::string log;
    ASSERT_EQ(Shell("fio --name=t --filename=" + dev + " --rw=" + rw +
                        " --bs=4k --size=64M --runtime=2 --time_based --direct=1 "
                        "--ioengine=libaio --iodepth=4 --output-format=json --output=" +
                        out,
                    &log),
              0)
        << log;
    const auto [ios, error] = FioIos(out, rw == "randwrite" ? "write" : "read");
    EXPECT_GT(ios, 100u) << rw;
    EXPECT_EQ(error, 0) << rw;
  }

  // A filesystem on it (mkfs discards the device first: trims), files written and read back.
  const std::string mnt = tmp_ / "mnt";
  MountExt4(dev, mnt, true);
  std::string out;
  ASSERT_EQ(Shell("head -c 3000000 /dev/urandom > " + mnt + "/a && mkdir " + mnt +
                      "/d && head -c 70000 /dev/urandom > " + mnt + "/d/b && sync",
                  &out),
            0)
      << out;
  const std::string sum_a = FileSha256(mnt + "/a"), sum_b = FileSha256(mnt + "/d/b");
  ASSERT_FALSE(sum_a.empty());
  ASSERT_TRUE(Unmount(mnt));
  ASSERT_EQ(s.Stop(SIGTERM), 0) << s.Output() << Err(0);
  EXPECT_TRUE(Has(s.Output(), "served sim:tiny")) << s.Output();
  EXPECT_TRUE(Has(s.Output(), "state saved to")) << s.Output();
  EXPECT_FALSE(IsMounted(dir));
  nlohmann::json doc = ReadJson(json);
  EXPECT_GT(doc["host_pages_written"].get<uint64_t>(), 0u) << doc.dump();
  EXPECT_GT(doc["nand_pages_written"].get<uint64_t>(), 0u);
  EXPECT_GT(doc["trims"].get<uint64_t>(), 0u);
  EXPECT_GT(doc["reads"].get<uint64_t>(), 0u);
  EXPECT_GT(doc["transport_round_trip_ns"].get<uint64_t>(), 0u);
  EXPECT_TRUE(doc["lag_ns"].contains("p99"));
  // The round trip measured while serving (at QD 1, where there was a stretch of it): at most
  // one gap per request, never above the limit, credited to no more requests than served.
  const nlohmann::json& gap = doc["transport_gap_ns"];
  const uint64_t requests = doc["requests"].get<uint64_t>();
  EXPECT_LE(gap["count"].get<uint64_t>() + gap["pauses"].get<uint64_t>(), requests) << gap;
  EXPECT_LE(gap["estimate"].get<uint64_t>(), gap["limit"].get<uint64_t>()) << gap;
  EXPECT_LE(gap["credited"].get<uint64_t>(), requests) << gap;
  EXPECT_TRUE(Has(s.Output(), "transport at QD 1: ")) << s.Output();
  // The server's own time: the model's answer after each request's arrival, the turnaround of
  // the requests already due by then (at most one per request), and the replies sent from the
  // session thread (at most one per request).
  const nlohmann::json& turnaround = doc["turnaround_ns"];
  EXPECT_LE(turnaround["count"].get<uint64_t>(), requests) << turnaround;
  EXPECT_GT(doc["admission_ns"]["p50"].get<double>(), 0.0) << doc["admission_ns"];
  EXPECT_LE(doc["direct_replies"].get<uint64_t>(), requests);
  EXPECT_TRUE(Has(s.Output(), "the server's own turnaround")) << s.Output();
  EXPECT_TRUE(std::filesystem::exists(state));
  EXPECT_TRUE(std::filesystem::exists(state + ".data"));

  // Served again from the saved state: the filesystem and its files are there.
  Server& again = Start({"sim", "serve", target, "--fuse", dir, "--loop"});
  ASSERT_TRUE(again.WaitReady()) << again.Output() << Err(1);
  MountExt4(again.loop(), mnt, false);
  EXPECT_EQ(FileSha256(mnt + "/a"), sum_a);
  EXPECT_EQ(FileSha256(mnt + "/d/b"), sum_b);
  ASSERT_TRUE(Unmount(mnt));
  EXPECT_EQ(again.Stop(SIGINT), 0) << again.Output() << Err(1);
  EXPECT_FALSE(IsMounted(dir));
}

// While one server runs: a second serve of its state is refused by the state's lock, and a
// serve onto its mount point is refused; both exit 2 with one line, leaving the first serving.
TEST_F(ServeE2E, RefusesAStateInUseAndAMountPointInUse) {
  const std::string dir = ServeDir("fuse"), other = ServeDir("other");
  const std::string state = tmp_ / "drive.st";
  Server& first = Start({"sim", "serve", "sim:tiny?state=" + state, "--fuse", dir});
  ASSERT_TRUE(first.WaitReady()) << first.Output() << Err(0);

  Server& second = Start({"sim", "serve", "sim:tiny?state=" + state, "--fuse", other});
  EXPECT_EQ(second.Finish(), 2);
  EXPECT_TRUE(Has(Err(1), "is in use by another ssdlab process")) << Err(1);
  EXPECT_EQ(CountLines(Err(1)), 1) << Err(1);
  EXPECT_FALSE(IsMounted(other));

  Server& onto = Start({"sim", "serve", "sim:tiny", "--fuse", dir});
  EXPECT_EQ(onto.Finish(), 2);
  EXPECT_TRUE(Has(Err(2), "is already a mount point")) << Err(2);
  EXPECT_EQ(CountLines(Err(2)), 1) << Err(2);

  EXPECT_TRUE(IsMounted(dir));
  EXPECT_EQ(first.Stop(SIGTERM), 0) << first.Output() << Err(0);
}

// A SIGKILLed server leaves its mount and loop device behind; `sim serve --cleanup DIR` is the
// one command that removes both.
TEST_F(ServeE2E, CleanupAfterSigkillLeavesNothingMounted) {
  const std::string dir = ServeDir("fuse");
  Server& s = Start({"sim", "serve", "sim:tiny", "--fuse", dir, "--loop"});
  ASSERT_TRUE(s.WaitReady()) << s.Output() << Err(0);
  const std::string dev = s.loop();
  ASSERT_FALSE(dev.empty());
  EXPECT_EQ(s.Stop(SIGKILL), 128 + SIGKILL);
  EXPECT_TRUE(IsMounted(dir));  // what a kill leaves
  Proc c = RunSsdlab({"sim", "serve", "--cleanup", dir});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(Has(c.out, "detached " + dev)) << c.out;
  EXPECT_TRUE(Has(c.out, "unmounted")) << c.out;
  EXPECT_FALSE(IsMounted(dir));
  std::string back;
  Shell("losetup -n -O BACK-FILE " + dev + " 2>/dev/null", &back);
  EXPECT_FALSE(Has(back, "drive.img")) << back;
  // Nothing left: a second cleanup has nothing to do.
  Proc again = RunSsdlab({"sim", "serve", "--cleanup", dir});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_TRUE(Has(again.out, "nothing to clean up")) << again.out;
}

// Refusals that need no FUSE: --ublk (this kernel's answer, one line), a directory that is not
// empty, no --fuse, a target that is not a simulated drive.
TEST(ServeRefusals, UblkNotEmptyNoFuseAndNotASimTarget) {
  TempDir t;
  Proc u = RunSsdlab({"sim", "serve", "sim:tiny", "--ublk"});
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_EQ(CountLines(u.err), 1) << u.err;
  if (access("/dev/ublk-control", F_OK) != 0) {
    EXPECT_TRUE(Has(u.err,
                    "ublk: this kernel has no ublk driver (/dev/ublk-control is missing); "
                    "use --fuse DIR"))
        << u.err;
  } else {
    EXPECT_TRUE(Has(u.err, "serves over FUSE only")) << u.err;
  }
  std::filesystem::create_directories(t / "full");
  std::ofstream(t / "full/x") << "x";
  Proc full = RunSsdlab({"sim", "serve", "sim:tiny", "--fuse", t / "full"});
  EXPECT_EQ(full.exit_code, 2);
  EXPECT_TRUE(Has(full.err, "is not an empty directory")) << full.err;
  Proc none = RunSsdlab({"sim", "serve", "sim:tiny"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Has(none.err, "give --fuse DIR")) << none.err;
  Proc real = RunSsdlab({"sim", "serve", "/dev/sda", "--fuse", t / "full"});
  EXPECT_EQ(real.exit_code, 2);
  EXPECT_TRUE(Has(real.err, "serves one simulated drive")) << real.err;
}

// No permission for /dev/fuse: in a private mount namespace a file of mode 000 is bound over
// /dev/fuse (the machine's device is untouched) and ssdlab runs as nobody, which may not open it.
// One line naming the device and the errno, exit 2. Skipped where unshare or setpriv is missing
// or a mount namespace cannot be made (not root).
TEST(ServeRefusals, NoPermissionForDevFuse) {
  if (Shell("unshare --mount --propagation private true && command -v setpriv") != 0)
    GTEST_SKIP() << "no unshare --mount or setpriv here";
  TempDir t;
  std::filesystem::permissions(
      t.path(), std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                    std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                    std::filesystem::perms::others_exec);
  std::filesystem::create_directories(t / "d");
  std::filesystem::permissions(t / "d", std::filesystem::perms::all);
  std::ofstream(t / "nofuse").close();
  std::filesystem::permissions(t / "nofuse", std::filesystem::perms::none);
  std::string out;
  const int rc =
      Shell("unshare --mount --propagation private sh -c 'mount --bind " + (t / "nofuse") +
                " /dev/fuse && exec setpriv --reuid=65534 --regid=65534 "
                "--clear-groups " SSDLAB_BINARY " sim serve sim:tiny --fuse " +
                (t / "d") + "'",
            &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_EQ(CountLines(out), 1) << out;
  EXPECT_TRUE(Has(out, "/dev/fuse may not be opened: Permission denied")) << out;
}

}  // namespace
}  // namespace ssdlab::test
