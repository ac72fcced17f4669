// End-to-end tests of the engine flags of `ssdlab run`: the submission/completion policy
// (--batch-submit, --batch-complete), io_uring features (--sqpoll, --sqpoll-cpu, --hipri,
// registered ring fd), thread placement (--cpus-allowed, NUMA) and their JSON reporting and
// refusals. Nothing here depends on timing: only counts, contents and what is reported.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

std::string SysfsLine(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// The sysfs directory of the disk holding `dir` ("" if none).
std::string DiskSysDir(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || major(st.st_dev) == 0) return "";
  return "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
         std::to_string(minor(st.st_dev));
}

std::vector<std::string> Base(const TempDir& t, std::vector<std::string> extra) {
  std::vector<std::string> args = {"run",        "--target", t / "f",  "--size",    "8MiB",
                                   "--interval", "0",        "--json", t / "r.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(EngineE2E, DefaultsAreAdaptiveAndReported) {
  TempDir t;
  Proc p = RunSsdlab(Base(t, {"--rw", "randread", "--qd", "32", "--io-size", "4MiB"}));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json e = ReadJson(t / "r.json")["context"]["engine"];
  EXPECT_EQ(e["name"], "io_uring");
  EXPECT_EQ(e["requested"]["batch_submit"], "adaptive");
  EXPECT_EQ(e["requested"]["batch_complete_min"], "default");
  EXPECT_EQ(e["requested"]["batch_complete_max"], "all");
  EXPECT_EQ(e["requested"]["sqpoll"], false);
  EXPECT_EQ(e["requested"]["hipri"], false);
  EXPECT_EQ(e["requested"]["register_ring_fd"], true);
  EXPECT_TRUE(e["requested"]["cpus_allowed"].is_null());
  const json& g = e["granted"];
  EXPECT_EQ(g["batch_submit"], 1);
  EXPECT_EQ(g["batch_complete_min"], "auto (a quarter of the depth, 1..32)");
  EXPECT_EQ(e["requested"]["force_async"], "auto");
  EXPECT_EQ(g["nowait_target"], true) << "a file takes requests without blocking";
  EXPECT_EQ(g["force_async"], false) << "so nothing is forced async";
  EXPECT_TRUE(g["async_workers"].is_null());
  EXPECT_EQ(g["sqpoll"], false);
  EXPECT_EQ(g["hipri"], false);
  for (const char* k :
       {"single_issuer", "defer_taskrun", "registered_ring_fd", "fixed_buffers", "fixed_files"}) {
    EXPECT_TRUE(g[k].is_boolean()) << k;
  }
  // The features string says the same as the booleans.
  std::string features = g["features"];
  EXPECT_EQ(features.find("+ring_fd") != std::string::npos, g["registered_ring_fd"].get<bool>())
      << features;
  EXPECT_EQ(features.find("+fixed_buffers") != std::string::npos, g["fixed_buffers"].get<bool>())
      << features;
  EXPECT_GE(ReadJson(t / "r.json")["results"]["read"]["bytes"].get<uint64_t>(), 4u << 20);
}

// Batched refill and completion change when I/Os are issued and reaped, never which or how
// many: an amount-limited run moves exactly its amount, and verified data reads back intact.
TEST(EngineE2E, BatchFlagsKeepCountsAndDataExact) {
  TempDir t;
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{"--batch-submit", "4"},
                                             {"--batch-complete", "3"},
                                             {"--batch-complete", "auto"},
                                             {"--batch-complete", "1"},
                                             {"--force-async", "on"},
                                             {"--batch-complete", "2:5", "--batch-submit", "8"},
                                             {"--batch-submit", "64", "--batch-complete", "64"}}) {
    std::string what = flags[0] + " " + flags[1];
    std::vector<std::string> w = {"--rw", "write", "--bs", "4KiB", "--qd", "16", "--verify"};
    w.insert(w.end(), flags.begin(), flags.end());
    Proc wr = RunSsdlab(Base(t, w));
    ASSERT_EQ(wr.exit_code, 0) << what << ": " << wr.err;
    json r = ReadJson(t / "r.json");
    EXPECT_EQ(r["results"]["write"]["bytes"], 8u << 20) << what;
    std::vector<std::string> rd = {"--rw",      "randread", "--qd",    "16",
                                   "--io-size", "2MiB",     "--verify"};
    rd.insert(rd.end(), flags.begin(), flags.end());
    Proc rr = RunSsdlab(Base(t, rd));
    ASSERT_EQ(rr.exit_code, 0) << what << ": " << rr.err;
    r = ReadJson(t / "r.json");
    EXPECT_EQ(r["verify"]["failures"], 0) << what;
    uint64_t bytes = r["results"]["read"]["bytes"];
    EXPECT_GE(bytes, 2u << 20) << what;
    EXPECT_LE(bytes, (2u << 20) + 4096) << what;
  }
  // What was asked for and what was in effect: sizes beyond the depth are capped by it.
  Proc p = RunSsdlab(Base(t, {"--rw", "randread", "--qd", "8", "--io-size", "1MiB",
                              "--batch-submit", "64", "--batch-complete", "2:5"}));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json e = ReadJson(t / "r.json")["context"]["engine"];
  EXPECT_EQ(e["requested"]["batch_submit"], 64);
  EXPECT_EQ(e["granted"]["batch_submit"], 8);
  EXPECT_EQ(e["requested"]["batch_complete_min"], 2);
  EXPECT_EQ(e["requested"]["batch_complete_max"], 5);
  EXPECT_EQ(e["granted"]["batch_complete_min"], 2);
  EXPECT_EQ(e["granted"]["batch_complete_max"], 5);
}

bool KernelAtLeast(int major, int minor) {
  utsname u{};
  int ma = 0, mi = 0;
  return uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &ma, &mi) == 2 &&
         (ma > major || (ma == major && mi >= minor));
}

TEST(EngineE2E, ForceAsyncOnIsGrantedAndReported) {
  TempDir t;
  Proc p = RunSsdlab(
      Base(t, {"--rw", "randread", "--qd", "8", "--io-size", "1MiB", "--force-async", "on"}));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json e = ReadJson(t / "r.json")["context"]["engine"];
  EXPECT_EQ(e["requested"]["force_async"], "on");
  EXPECT_EQ(e["granted"]["force_async"], true);
  std::string features = e["granted"]["features"];
  EXPECT_NE(features.find("+async"), std::string::npos) << features;
  // Beside its workers the job asks for a short slice (read back from Linux 6.12 on).
  EXPECT_EQ(features.find("+slice_300us") != std::string::npos, KernelAtLeast(6, 12)) << features;
  // The io-wq limit is the job's share of the CPUs it may use (here: every CPU, one job).
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(e["granted"]["async_workers"], CPU_COUNT(&set));
}

bool HasSchedBatch(const json& doc) {
  return doc["context"]["engine"]["granted"]["features"].get<std::string>().find("+sched_batch") !=
         std::string::npos;
}

// A zram device the test adds itself (and removes): the kernel takes no request to it
// without blocking, so io_uring would run every one in a single io-wq worker per ring. The
// adaptive default forces them async (over one worker per CPU where a job has several, and at
// QD 16 anyway: its waits reap batches); `off` leaves them as they are.
TEST(EngineE2E, ForceAsyncFollowsTheTargetByDefault) {
  if (geteuid() != 0) GTEST_SKIP() << "zram devices need root";
  std::string id = SysfsLine("/sys/class/zram-control/hot_add");
  if (id.empty()) GTEST_SKIP() << "the kernel has no zram (/sys/class/zram-control)";
  struct Remove {
    std::string id;
    ~Remove() { std::ofstream("/sys/class/zram-control/hot_remove") << id; }
  } remove{id};
  const std::string dev = "/dev/zram" + id;
  std::ofstream("/sys/block/zram" + id + "/disksize") << (16u << 20);
  for (int i = 0; i < 100 && access(dev.c_str(), F_OK) != 0; ++i) usleep(20000);
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const bool spread = CPU_COUNT(&set) > 1;
  TempDir t;
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--target",   dev, "--bs",   "4KiB",      "--qd",
                                     "16",  "--interval", "0", "--json", t / "r.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunSsdlab(args);
  };
  Proc w = run({"--rw", "write", "--verify", "--destructive"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  json e = ReadJson(t / "r.json")["context"]["engine"]["granted"];
  EXPECT_EQ(e["nowait_target"], false);
  EXPECT_EQ(e["force_async"], true);
  EXPECT_EQ(e["async_workers"], spread ? CPU_COUNT(&set) : 1);
  // Beside its forced-async workers the job asks for a short slice, which the kernel reads
  // back from 6.12 on (EEVDF's custom slices).
  EXPECT_EQ(e["features"].get<std::string>().find("+slice_300us") != std::string::npos,
            spread && KernelAtLeast(6, 12))
      << e["features"];
  EXPECT_EQ(ReadJson(t / "r.json")["results"]["write"]["bytes"], 16u << 20);
  // Forced async changes where requests run, never what they read.
  Proc r = run({"--rw", "randread", "--io-size", "4MiB", "--verify"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadJson(t / "r.json")["verify"]["failures"], 0);
  EXPECT_EQ(ReadJson(t / "r.json")["context"]["engine"]["granted"]["force_async"], true);
  Proc off = run({"--rw", "randread", "--io-size", "1MiB", "--force-async", "off"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(ReadJson(t / "r.json")["context"]["engine"]["granted"]["force_async"], false);

  // As many jobs as CPUs: each job thread shares one CPU with the io-wq worker of its ring
  // (--pin-workers auto), which changes where the threads run, never what they read. At QD 16
  // the adaptive wait reaps batches of 4, so the requests are forced async over that single
  // worker; a wait for each completion leaves them as they are.
  const std::string jobs = std::to_string(CPU_COUNT(&set));
  Proc paired = run({"--rw", "randread", "--io-size", "4MiB", "--verify", "--jobs", jobs});
  ASSERT_EQ(paired.exit_code, 0) << paired.err;
  json p = ReadJson(t / "r.json");
  EXPECT_EQ(p["verify"]["failures"], 0);
  EXPECT_EQ(p["context"]["engine"]["requested"]["pin_workers"], "auto");
  EXPECT_EQ(p["context"]["engine"]["granted"]["force_async"], true);
  EXPECT_EQ(p["context"]["engine"]["granted"]["async_workers"], 1);
  EXPECT_TRUE(p["context"]["engine"]["granted"]["pin_workers"].is_string());
  EXPECT_EQ(p["context"]["engine"]["granted"]["iowq_affinity"], true);
  EXPECT_TRUE(HasSchedBatch(p)) << p["context"]["engine"]["granted"]["features"];
  Proc exact =
      run({"--rw", "randread", "--io-size", "1MiB", "--jobs", jobs, "--batch-complete", "1"});
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_EQ(ReadJson(t / "r.json")["context"]["engine"]["granted"]["force_async"], false);
  // The pair runs SCHED_BATCH, the io-wq workers by inheritance: seen in /proc while it runs.
  const pid_t pid = StartSsdlab({"run", "--target", dev, "--bs", "4KiB", "--qd", "16", "--rw",
                                 "randread", "--runtime", "2s", "--jobs", jobs, "--interval", "0"},
                                t / "out", t / "err");
  std::set<std::string> batch_threads;
  auto running = [pid] {
    siginfo_t info{};
    return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
  };
  while (batch_threads.size() < 2 && running()) {
    std::error_code gone;  // the run may end between the check and the listing
    for (const auto& task :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", gone)) {
      std::string comm = SysfsLine(task.path() / "comm"), stat = SysfsLine(task.path() / "stat");
      if (stat.rfind(')') == std::string::npos) continue;  // the thread has ended
      std::istringstream after_comm(stat.substr(stat.rfind(')') + 2));
      const std::vector<std::string> f{std::istream_iterator<std::string>(after_comm), {}};
      // f[0] is field 3 of proc(5)'s stat; field 41 is the scheduling policy.
      if (f.size() > 38 && f[38] == std::to_string(SCHED_BATCH)) {
        batch_threads.insert(comm.substr(0, 7));
      }
    }
    usleep(10000);
  }
  EXPECT_EQ(Wait(pid), 0) << ReadFile(t / "err");
  EXPECT_EQ(batch_threads, (std::set<std::string>{"iou-wrk", "ssdlab"}));
  Proc unpinned =
      run({"--rw", "randread", "--io-size", "1MiB", "--jobs", jobs, "--pin-workers", "off"});
  ASSERT_EQ(unpinned.exit_code, 0) << unpinned.err;
  EXPECT_EQ(ReadJson(t / "r.json")["context"]["engine"]["granted"]["pin_workers"], nullptr);
  EXPECT_FALSE(HasSchedBatch(ReadJson(t / "r.json")));
  // A job thread the user put under another policy keeps it.
  std::string idle_out;
  ASSERT_EQ(Shell("chrt -i 0 " SSDLAB_BINARY " run --target " + dev +
                      " --rw randread --bs 4KiB --qd 16 --io-size 1MiB --interval 0 --json " +
                      (t / "r.json") + " --jobs " + jobs,
                  &idle_out),
            0)
      << idle_out;
  EXPECT_TRUE(ReadJson(t / "r.json")["context"]["engine"]["granted"]["pin_workers"].is_string());
  EXPECT_FALSE(HasSchedBatch(ReadJson(t / "r.json")));
  // A file takes requests without blocking: nothing runs in io-wq, nothing is pinned.
  Proc file =
      RunSsdlab({"run", "--target", t / "f.dat", "--size", "4MiB", "--rw", "randread", "--io-size",
                 "1MiB", "--jobs", jobs, "--interval", "0", "--json", t / "r.json"});
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(ReadJson(t / "r.json")["context"]["engine"]["granted"]["pin_workers"], nullptr);
  // Pinned there on request, a job thread has no worker to take turns with: no SCHED_BATCH.
  Proc file_on =
      RunSsdlab({"run", "--target", t / "f.dat", "--rw", "randread", "--io-size", "1MiB", "--jobs",
                 jobs, "--pin-workers", "on", "--interval", "0", "--json", t / "r.json"});
  ASSERT_EQ(file_on.exit_code, 0) << file_on.err;
  EXPECT_TRUE(ReadJson(t / "r.json")["context"]["engine"]["granted"]["pin_workers"].is_string());
  EXPECT_FALSE(HasSchedBatch(ReadJson(t / "r.json")));
}

TEST(EngineE2E, BatchFlagsWorkWithEveryEngine) {
  TempDir t;
  for (const char* engine : {"libaio", "psync"}) {
    Proc p = RunSsdlab(Base(t, {"--rw", "randrw", "--qd", "8", "--io-size", "2MiB", "--engine",
                                engine, "--batch-submit", "2", "--batch-complete", "2:4"}));
    ASSERT_EQ(p.exit_code, 0) << engine << ": " << p.err;
    json r = ReadJson(t / "r.json");
    EXPECT_GE(r["results"]["total"]["bytes"].get<uint64_t>(), 2u << 20) << engine;
    EXPECT_EQ(r["context"]["engine"]["name"], engine);
    EXPECT_FALSE(r["context"]["engine"]["granted"].contains("sqpoll"))
        << engine << ": io_uring only";
  }
}

TEST(EngineE2E, RingFdCanBeTurnedOff) {
  TempDir t;
  Proc p = RunSsdlab(Base(t, {"--rw", "randread", "--io-size", "1MiB", "--no-ring-fd"}));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json e = ReadJson(t / "r.json")["context"]["engine"];
  EXPECT_EQ(e["requested"]["register_ring_fd"], false);
  EXPECT_EQ(e["granted"]["registered_ring_fd"], false);
}

// SQPOLL needs privileges on some kernels: either it is granted and reported, or refused in
// one line naming the flag (exit 2), never a hang or a silent fallback.
TEST(EngineE2E, SqpollGrantedOrRefusedClearly) {
  TempDir t;
  Proc p = RunSsdlab(Base(
      t, {"--rw", "randrw", "--qd", "8", "--io-size", "2MiB", "--sqpoll", "--sqpoll-cpu", "0"}));
  if (p.exit_code == 0) {
    json r = ReadJson(t / "r.json");
    json e = r["context"]["engine"];
    EXPECT_EQ(e["requested"]["sqpoll"], true);
    EXPECT_EQ(e["requested"]["sqpoll_cpu"], 0);
    EXPECT_EQ(e["granted"]["sqpoll"], true);
    EXPECT_EQ(e["granted"]["sqpoll_cpu"], 0);
    EXPECT_EQ(e["granted"]["defer_taskrun"], false)
        << "the kernel refuses DEFER_TASKRUN with SQPOLL";
    EXPECT_NE(e["granted"]["features"].get<std::string>().find("+sqpoll"), std::string::npos);
    EXPECT_GE(r["results"]["total"]["bytes"].get<uint64_t>(), 2u << 20);
  } else {
    EXPECT_EQ(p.exit_code, 2) << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_NE(p.err.find("--sqpoll"), std::string::npos) << p.err;
  }
}

// Polled completions need poll queues. Where the file's disk has none (queue/io_poll 0, as
// virtio disks and zram), --hipri is refused before the target is created.
TEST(EngineE2E, HipriRefusedWithoutPollQueues) {
  TempDir t;
  std::string dir = DiskSysDir(t.path().string());
  std::string poll = SysfsLine(dir + "/queue/io_poll");
  if (poll.empty()) poll = SysfsLine(dir + "/../queue/io_poll");
  Proc p = RunSsdlab(Base(t, {"--rw", "randread", "--io-size", "1MiB", "--hipri"}));
  if (dir.empty() || poll == "0") {
    EXPECT_EQ(p.exit_code, 2) << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_NE(p.err.find("--hipri"), std::string::npos) << p.err;
    EXPECT_TRUE(p.err.find("no poll queues") != std::string::npos ||
                p.err.find("not on a block device") != std::string::npos)
        << p.err;
    EXPECT_FALSE(std::filesystem::exists(t / "f")) << "target created despite the refusal";
  } else {
    // A device with poll queues: polled I/O runs, or the kernel's EOPNOTSUPP is reported.
    if (p.exit_code == 0) {
      EXPECT_EQ(ReadJson(t / "r.json")["context"]["engine"]["granted"]["hipri"], true);
    } else {
      EXPECT_EQ(p.exit_code, 2) << p.err;
      EXPECT_NE(p.err.find("--hipri"), std::string::npos) << p.err;
    }
  }
}

TEST(EngineE2E, CpusAllowedPinsJobThreads) {
  TempDir t;
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &set)) ++cpu;
  Proc p = RunSsdlab(Base(t, {"--rw", "randread", "--jobs", "2", "--io-size", "1MiB",
                              "--cpus-allowed", std::to_string(cpu)}));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json e = ReadJson(t / "r.json")["context"]["engine"];
  EXPECT_EQ(e["requested"]["cpus_allowed"], std::to_string(cpu));
  EXPECT_EQ(e["granted"]["cpus"], std::to_string(cpu));
  EXPECT_EQ(e["granted"]["cpus_source"], "cpus_allowed");
}

// Without --cpus-allowed the threads go to the device's NUMA node where sysfs names one, and
// the report says which, or why not.
TEST(EngineE2E, NumaPlacementFollowsSysfs) {
  TempDir t;
  Proc p = RunSsdlab(Base(t, {"--rw", "randread", "--io-size", "1MiB"}));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json g = ReadJson(t / "r.json")["context"]["engine"]["granted"];
  std::string dir = DiskSysDir(t.path().string());
  std::string node = SysfsLine(dir + "/device/numa_node");
  if (node.empty()) node = SysfsLine(dir + "/../device/numa_node");
  if (node.empty()) node = SysfsLine(dir + "/device/device/numa_node");
  std::string source = g["cpus_source"];
  if (node.empty() || node[0] == '-') {
    EXPECT_TRUE(g["numa_node"].is_null());
    EXPECT_TRUE(g["cpus"].is_null());
    EXPECT_EQ(source.rfind("none (", 0), 0u) << source;
  } else {
    EXPECT_EQ(g["numa_node"], std::stoi(node));
    EXPECT_TRUE(source == "numa_node " + node || source.rfind("none (", 0) == 0) << source;
  }
}

// Each malformed or impossible value: exit 2, one line naming the flag, nothing created.
TEST(EngineE2E, BadEngineFlagsFailCleanly) {
  TempDir t;
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"--batch-submit", "0"}, "--batch-submit"},
      {{"--batch-submit", "lots"}, "--batch-submit"},
      {{"--batch-complete", "0"}, "--batch-complete"},
      {{"--batch-complete", "8:2"}, "--batch-complete"},
      {{"--batch-complete", "2:x"}, "--batch-complete"},
      {{"--cpus-allowed", "3-1"}, "--cpus-allowed"},
      {{"--cpus-allowed", "zero"}, "--cpus-allowed"},
      {{"--cpus-allowed", "4000"}, "not available"},
      {{"--sqpoll-cpu", "0"}, "needs --sqpoll"},
      {{"--sqpoll", "--sqpoll-cpu", "x"}, "--sqpoll-cpu"},
      {{"--sqpoll", "--sqpoll-cpu", "4000"}, "not available"},
      {{"--sqpoll", "--engine", "libaio"}, "--sqpoll needs --engine io_uring"},
      {{"--hipri", "--engine", "psync"}, "--hipri needs --engine io_uring"},
      {{"--hipri", "--buffered"}, "--hipri needs O_DIRECT"},
      {{"--force-async", "yes"}, "--force-async 'yes'"},
      {{"--force-async", "on", "--engine", "libaio"}, "--force-async on needs --engine io_uring"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run",  "--target",  t / "f",     "--size", "8MiB",
                                     "--rw", "randwrite", "--runtime", "1s"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 2) << c.expect << ": " << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_EQ(p.err.rfind("ssdlab: error: ", 0), 0u) << p.err;
    EXPECT_NE(p.err.find(c.expect), std::string::npos) << p.err;
    EXPECT_FALSE(std::filesystem::exists(t / "f")) << "target created despite " << c.expect;
  }
  Proc sim =
      RunSsdlab({"run", "--target", "sim:tiny", "--rw", "randread", "--runtime", "1s", "--sqpoll"});
  EXPECT_EQ(sim.exit_code, 2) << sim.err;
  EXPECT_NE(sim.err.find("simulated drive"), std::string::npos) << sim.err;
}

}  // namespace
}  // namespace ssdlab::test
