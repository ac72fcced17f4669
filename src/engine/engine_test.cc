// The real-time backend on a file it creates in a temporary directory: counts, ramp and
// window by bytes, verification of what was written, the time series and the I/O log add up.
// Nothing here depends on how fast the machine is: every phase is bounded by bytes.
#include "engine/engine.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>

#include "engine/queues.h"

namespace ssdlab {
namespace {

constexpr uint64_t kFileBytes = 8 << 20;

// An engine the kernel or the sandbox does not offer (io_uring is often disabled) is skipped.
#define SKIP_IF_UNSUPPORTED(r) \
  if (!(r).ok() && (r).status().code() == Code::kUnsupported) GTEST_SKIP() << (r).status().message()

class CountingSink : public IoLogSink {
 public:
  void Write(const IoRecord* records, size_t count) override {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < count; ++i) bytes += records[i].bytes;
    n += count;
  }
  std::mutex mu;
  uint64_t n = 0, bytes = 0;
};

class EngineOnFile : public ::testing::TestWithParam<EngineKind> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ssdlab_engine_test_" + std::to_string(getpid()) + "_" + EngineKindName(GetParam()));
    std::filesystem::create_directories(dir_);
    RealTargetOptions o;
    o.path = (dir_ / "target").string();
    o.size_bytes = kFileBytes;
    o.writable = true;
    o.direct = false;  // tmpfs has no O_DIRECT
    o.engine = GetParam();
    auto b = OpenRealBackend(o);
    if (!b.ok() && b.status().code() == Code::kUnsupported) GTEST_SKIP() << b.status().message();
    ASSERT_TRUE(b.ok()) << b.status().message();
    backend_ = std::move(b.value());
  }
  void TearDown() override {
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }
  WorkloadSpec Spec(double read_pct) const {
    WorkloadSpec s;
    s.read_pct = read_pct;
    s.block_sizes = {BlockShare{4096, 100}};
    s.jobs = 2;
    s.queue_depth = 4;
    s.range_end_bytes = kFileBytes;
    s.interval_ns = 1'000'000;  // 1 ms: several intervals on any machine
    return s;
  }
  std::filesystem::path dir_;
  std::unique_ptr<Backend> backend_;
};

// One io_uring depth limit: the kernel's IORING_MAX_ENTRIES, refused above by the commands
// (kMaxUringDepth) and the queue's own clamp alike.
TEST(UringDepth, TheQueueAndTheCommandsShareTheKernelsLimit) {
  EXPECT_EQ(kMaxUringDepth, 32768u);
  EXPECT_EQ(UringQueue::kMaxDepth, kMaxUringDepth);
}

TEST_P(EngineOnFile, MeasuresExactlyTheBytesAfterTheRamp) {
  WorkloadSpec s = Spec(0);
  s.ramp_bytes = 1 << 20;
  s.io_bytes = 2 << 20;
  CountingSink sink;
  RunControl c;
  c.io_log = &sink;
  auto r = backend_->RunPhase(s, c);
  SKIP_IF_UNSUPPORTED(r);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->io_errors, 0u);
  EXPECT_FALSE(r->interrupted);
  // Ramp I/Os are not counted, but for those that complete after the window opened (the
  // start edge of backend/phase_recorder.h): at most one per slot.
  const uint64_t from_ramp = r->edge.from_ramp;
  EXPECT_LE(from_ramp, uint64_t{s.jobs} * s.queue_depth);
  EXPECT_EQ(r->dirs[1].ios, s.io_bytes / 4096 + from_ramp);
  EXPECT_EQ(r->dirs[1].bytes, s.io_bytes + from_ramp * 4096);
  EXPECT_EQ(r->dirs[1].latency.count(), r->dirs[1].ios);
  EXPECT_EQ(r->dirs[0].ios, 0u);
  EXPECT_GT(r->measured_ns, 0u);
  EXPECT_EQ(sink.n, r->dirs[1].ios);
  EXPECT_EQ(sink.bytes, r->dirs[1].bytes);
  // The series adds up to the totals and its spans follow each other.
  uint64_t ios = 0, bytes = 0, begin = 0;
  ASSERT_FALSE(r->intervals.empty());
  for (const IntervalSample& iv : r->intervals) {
    ios += iv.dirs[1].ios;
    bytes += iv.dirs[1].bytes;
    EXPECT_EQ(iv.t_begin_ns, begin);
    EXPECT_GT(iv.t_end_ns, iv.t_begin_ns);
    begin = iv.t_end_ns;
  }
  EXPECT_EQ(ios, r->dirs[1].ios);
  EXPECT_EQ(bytes, r->dirs[1].bytes);
}

TEST_P(EngineOnFile, ReadsVerifyWhatWasWritten) {
  WorkloadSpec w = Spec(0);
  w.pattern = Pattern::kSequential;
  w.jobs = 1;
  w.io_bytes = kFileBytes;
  w.verify = true;
  auto written = backend_->RunPhase(w, RunControl{});
  SKIP_IF_UNSUPPORTED(written);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ASSERT_EQ(written->dirs[1].bytes, kFileBytes);

  WorkloadSpec rd = Spec(100);
  rd.io_bytes = 4 << 20;
  rd.verify = true;
  auto r = backend_->RunPhase(rd, RunControl{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->dirs[0].ios, rd.io_bytes / 4096);
  EXPECT_EQ(r->verify_failures, 0u);
  EXPECT_TRUE(r->verify_records.empty());
}

TEST_P(EngineOnFile, ReportsStopAsInterrupted) {
  std::atomic<bool> stop{true};
  RunControl c;
  c.stop = &stop;
  WorkloadSpec s = Spec(0);
  s.io_bytes = kFileBytes;
  auto r = backend_->RunPhase(s, c);
  SKIP_IF_UNSUPPORTED(r);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->interrupted);
  EXPECT_LT(r->dirs[1].bytes, s.io_bytes);
}

// The target is opened O_NOATIME, as fio opens its files: reads do not touch the inode's access
// time (a check per request, and a write under strictatime). The times are set three days back,
// so that relatime would update the access time on the next read; a plain read afterwards shows
// that this filesystem does (the test cannot pass on a mount that never updates it).
TEST_P(EngineOnFile, ReadsLeaveTheAccessTimeAlone) {
  WorkloadSpec w = Spec(0);
  w.pattern = Pattern::kSequential;
  w.io_bytes = kFileBytes;
  auto written = backend_->RunPhase(w, RunControl{});
  SKIP_IF_UNSUPPORTED(written);
  ASSERT_TRUE(written.ok()) << written.status().message();
  const std::string path = (dir_ / "target").string();
  const timespec old_ts{time(nullptr) - 3 * 86400, 0};
  const timespec times[2] = {old_ts, old_ts};  // atime, mtime
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  auto atime_s = [&path] {
    struct stat st {};
    EXPECT_EQ(stat(path.c_str(), &st), 0);
    return st.st_atim.tv_sec;
  };

  WorkloadSpec rd = Spec(100);
  rd.io_bytes = 1 << 20;
  auto r = backend_->RunPhase(rd, RunControl{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->dirs[0].bytes, rd.io_bytes);
  EXPECT_EQ(atime_s(), old_ts.tv_sec);

  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  char byte = 0;
  EXPECT_EQ(pread(fd, &byte, 1, 0), 1);
  close(fd);
  if (atime_s() == old_ts.tv_sec) GTEST_SKIP() << "this filesystem updates no access times";
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineOnFile,
                         ::testing::Values(EngineKind::kIoUring, EngineKind::kLibaio,
                                           EngineKind::kPsync),
                         [](const auto& info) { return std::string(EngineKindName(info.param)); });

}  // namespace
}  // namespace ssdlab
