// Unit tests of the engine options' parsers and sysfs look-ups (on fake sysfs trees).
#include "engine/options.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ssdlab {
namespace {

TEST(EngineOptions, CpuListParsesRangesAndRefusesNonsense) {
  auto a = ParseCpuList("0,2-3,8");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a.value(), (std::vector<uint32_t>{0, 2, 3, 8}));
  auto dup = ParseCpuList("3,1-3,1");
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(dup.value(), (std::vector<uint32_t>{1, 2, 3}));
  for (const char* bad : {"", ",", "a", "1-", "-1", "3-1", "1,,2", "0-99999", "1.5", " 1"}) {
    auto r = ParseCpuList(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("--cpus-allowed"), std::string::npos);
    }
  }
  EXPECT_EQ(FormatCpuList({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(FormatCpuList({}), "");
}

TEST(EngineOptions, BatchCompleteMinMax) {
  uint32_t lo = 0, hi = 0;
  ASSERT_TRUE(ParseBatchComplete("4", lo, hi).ok());
  EXPECT_EQ(lo, 4u);
  EXPECT_EQ(hi, 0u);
  ASSERT_TRUE(ParseBatchComplete("2:16", lo, hi).ok());
  EXPECT_EQ(lo, 2u);
  EXPECT_EQ(hi, 16u);
  for (const char* bad : {"", "0", "4:2", "1:", ":3", "x", "1:0", "-1"}) {
    EXPECT_FALSE(ParseBatchComplete(bad, lo, hi).ok()) << bad;
  }
}

TEST(EngineOptions, AdaptiveWaitIsAQuarterOfTheDepthWithinBounds) {
  EXPECT_EQ(AdaptiveWaitMin(1, 0), 0u);
  EXPECT_EQ(AdaptiveWaitMin(1, 1), 1u);  // QD1: one completion per wait, as always
  EXPECT_EQ(AdaptiveWaitMin(4, 4), 1u);
  EXPECT_EQ(AdaptiveWaitMin(7, 7), 1u);
  EXPECT_EQ(AdaptiveWaitMin(8, 8), 2u);
  EXPECT_EQ(AdaptiveWaitMin(32, 32), 8u);
  EXPECT_EQ(AdaptiveWaitMin(32, 3), 3u);  // never more than in flight (the end of a run)
  EXPECT_EQ(AdaptiveWaitMin(128, 128), 32u);
  EXPECT_EQ(AdaptiveWaitMin(4096, 4096), kAdaptiveWaitMax);
  // What a wait asks for: the adaptive quarter, an explicit number within the depth, one when
  // rated; never more than in flight.
  EXPECT_EQ(CompletionWait(0, 128, 128, false), 32u);
  EXPECT_EQ(CompletionWait(kBatchCompleteAuto, 128, 5, false), 5u);
  EXPECT_EQ(CompletionWait(16, 8, 8, false), 8u);
  EXPECT_EQ(CompletionWait(16, 64, 10, false), 10u);
  EXPECT_EQ(CompletionWait(16, 64, 64, true), 1u);
  EXPECT_EQ(CompletionWait(16, 64, 0, true), 0u);
  // Waits that reap batches (where requests that run in io-wq are forced async by default).
  EXPECT_FALSE(WaitsForBatches(0, 7, false));  // adaptive below QD 8: one completion a wait
  EXPECT_TRUE(WaitsForBatches(0, 8, false));
  EXPECT_TRUE(WaitsForBatches(kBatchCompleteAuto, 128, false));
  EXPECT_FALSE(WaitsForBatches(0, 128, true));   // a rate-limited job waits for one
  EXPECT_FALSE(WaitsForBatches(1, 128, false));  // exact
  EXPECT_TRUE(WaitsForBatches(2, 4, false));
  EXPECT_FALSE(WaitsForBatches(2, 4, true));    // whatever the user asked
  EXPECT_FALSE(WaitsForBatches(16, 1, false));  // capped by the depth
}

TEST(EngineOptions, ForceAsyncValuesAndWorkersPerJob) {
  EXPECT_EQ(ParseAutoOnOff("--force-async", "auto").value(), ForceAsync::kAuto);
  EXPECT_EQ(ParseAutoOnOff("--force-async", "on").value(), ForceAsync::kOn);
  EXPECT_EQ(ParseAutoOnOff("--force-async", "off").value(), ForceAsync::kOff);
  for (const char* bad : {"", "yes", "ON", "1"}) {
    auto r = ParseAutoOnOff("--force-async", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--force-async"), std::string::npos);
  }
  for (ForceAsync f : {ForceAsync::kAuto, ForceAsync::kOn, ForceAsync::kOff})
    EXPECT_EQ(ParseAutoOnOff("--force-async", AutoOnOffName(f)).value(), f);
  EXPECT_EQ(AsyncWorkers(2, 1), 2u);  // one job on two CPUs: two workers
  EXPECT_EQ(AsyncWorkers(2, 2), 1u);
  EXPECT_EQ(AsyncWorkers(2, 8), 1u);  // never none
  EXPECT_EQ(AsyncWorkers(64, 4), 16u);
  EXPECT_EQ(AsyncWorkers(0, 1), 1u);
}

TEST(EngineOptions, PinWorkersValues) {
  EXPECT_EQ(EngineOptions{}.pin_workers, PinWorkers::kAuto);
  for (PinWorkers p : {PinWorkers::kAuto, PinWorkers::kOn, PinWorkers::kOff})
    EXPECT_EQ(ParseAutoOnOff("--pin-workers", AutoOnOffName(p)).value(), p);
  for (const char* bad : {"", "same", "Off", "0"}) {
    auto r = ParseAutoOnOff("--pin-workers", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--pin-workers"), std::string::npos);
  }
}

// The probe asks the kernel itself: a regular file takes non-blocking reads; a procfs file
// has no FMODE_NOWAIT, and the kernel refuses RWF_NOWAIT on it with EOPNOTSUPP, as it does for
// a device that cannot take a request without blocking.
TEST(EngineOptions, NonBlockingProbeAsksTheKernel) {
  char path[] = "/tmp/ssdlab-nowait-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 8192), 0);
  EXPECT_TRUE(IssuesWithoutBlocking(fd));
  close(fd);
  unlink(path);
  int proc = open("/proc/self/status", O_RDONLY);
  ASSERT_GE(proc, 0);
  EXPECT_FALSE(IssuesWithoutBlocking(proc));
  close(proc);
}

TEST(EngineOptions, CpusCheckedAgainstTheAffinityMask) {
  std::vector<uint32_t> mine = AllowedCpus();
  ASSERT_FALSE(mine.empty());
  EXPECT_TRUE(CheckCpus("--cpus-allowed", mine).ok());
  Status s = CheckCpus("--cpus-allowed", {4095});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("CPU 4095 is not available"), std::string::npos) << s.message();
}

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("ssdlab-sysfs-" + std::to_string(getpid()));
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Put(const std::string& rel, const std::string& text) {
    std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
  }
  std::filesystem::path root_;
};

TEST_F(FakeSysfs, NumaNodeAndPollQueues) {
  Put("nvme0n1/device/numa_node", "1");
  Put("nvme0n1/queue/io_poll", "1");
  Put("vda/device/numa_node", "-1");
  Put("vda/queue/io_poll", "0");
  Put("vda/vda1/partition", "1");
  Put("zram0/queue/io_poll", "0");
  EXPECT_EQ(DeviceNumaNode((root_ / "nvme0n1").string()), 1);
  EXPECT_EQ(DevicePollQueues((root_ / "nvme0n1").string()), 1);
  EXPECT_EQ(DeviceNumaNode((root_ / "vda").string()), -1);
  EXPECT_EQ(DevicePollQueues((root_ / "vda").string()), 0);
  // A partition reads its disk's queue.
  EXPECT_EQ(DevicePollQueues((root_ / "vda/vda1").string()), 0);
  EXPECT_EQ(DeviceNumaNode((root_ / "zram0").string()), -1);  // no device/numa_node at all
  EXPECT_EQ(DeviceNumaNode(""), -1);
  EXPECT_EQ(DevicePollQueues(""), -1);
  EXPECT_EQ(DevicePollQueues((root_ / "missing").string()), -1);
}

TEST(EngineOptions, BlockSysDirOfFilesAndNonBlockPaths) {
  EXPECT_EQ(BlockSysDir("/nonexistent/ssdlab"), "");
  EXPECT_EQ(BlockSysDir("/proc/self/status"), "");  // procfs: no block device
  std::string here = BlockSysDir(".");
  if (!here.empty()) {
    EXPECT_EQ(here.rfind("/sys/dev/block/", 0), 0u) << here;
  }
  EXPECT_TRUE(NodeCpus(-1).empty());
}

}  // namespace
}  // namespace ssdlab
