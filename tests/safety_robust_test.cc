// Robustness of ssdlab under signals, limits and odd inputs (issue 43, round two): Ctrl-C stops
// a profile of many short phases at the next phase and keeps what was measured; the counts that
// multiply a profile's work and memory are bounded; a thread that cannot start is an error, not
// an abort; a phase that completed no I/O is a failed phase, never a stored figure of 0; a
// profile that measured nothing is not 'done'; preset files that are not small regular files
// and huge numbers are refused by name. Everything runs on the simulator or on files under the
// build's temporary area.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;

// One line, "ssdlab: error: ...", naming `part`.
void ExpectOneLineError(const Proc& p, const std::string& part) {
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_TRUE(Has(p.err, "ssdlab: error: ")) << p.err;
  EXPECT_TRUE(Has(p.err, part)) << "expected '" << part << "' in: " << p.err;
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// True once the process `pid` is blocked in write(2) on its stderr (/proc/PID/syscall: the
// number of the system call it sleeps in, then its arguments).
bool BlockedWritingStderr(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/syscall");
  std::string nr, fd;
  return in >> nr >> fd && nr == std::to_string(SYS_write) && fd == "0x2";
}

// ---- 1. Ctrl-C stops a profile of many short phases; memory is bounded ----

// A cdm run with 100 passes of 20 ms writes one progress line per phase to a FIFO the test does
// not read until ssdlab blocks on it, in the middle of the passes (the FIFO holds 4 KiB). The
// SIGINT then arrives between two phases of a step, deterministically. Before the fix the stop
// was seen only inside a phase (every 4096 simulator events, which a 20 ms phase never reaches)
// or before the next step, so the remaining passes of the step ran after Ctrl-C.
TEST(RobustSignals, CtrlCStopsAProfileAtTheNextShortPhaseAndKeepsWhatWasMeasured) {
  TempDir t;
  const std::string fifo = t / "err.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int rd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  ASSERT_GE(fcntl(rd, F_SETPIPE_SZ, 4096), 4096);
  pid_t pid = StartSsdlab(
      {"profile", "cdm", "--target", "sim:tiny", "--db", t / "r.db", "--run", "c", "--size",
       "16MiB", "--passes", "100", "--time", "20ms", "--pause", "0", "--progress", "json"},
      t / "out", fifo);
  bool blocked = false;
  for (int i = 0; i < 6000 && !blocked; ++i) {
    blocked = BlockedWritingStderr(pid);
    if (!blocked) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!blocked) {
    kill(pid, SIGKILL);
    Wait(pid);
    close(rd);
    if (access(("/proc/" + std::to_string(getpid()) + "/syscall").c_str(), R_OK) != 0)
      GTEST_SKIP() << "/proc/PID/syscall is not readable here";
    FAIL() << "ssdlab never blocked on its progress output";
  }
  kill(pid, SIGINT);
  // What ssdlab wrote before it blocked: the FIFO's content now (the line it is writing is not
  // in it: a write of under PIPE_BUF bytes goes in whole or not at all).
  int queued = 0;
  ASSERT_EQ(ioctl(rd, FIONREAD, &queued), 0);
  std::string before(static_cast<size_t>(queued), '\0');
  ASSERT_EQ(read(rd, before.data(), before.size()), queued);
  fcntl(rd, F_SETFL, 0);  // blocking: read the rest to the end
  std::string after;
  char buf[4096];
  for (ssize_t n; (n = read(rd, buf, sizeof buf)) > 0;) after.append(buf, static_cast<size_t>(n));
  close(rd);
  ASSERT_EQ(Wait(pid), 130) << before << after;
  const std::string phase = "\"stage\":\"phase\"";
  const size_t ran_before = Count(before, phase);
  ASSERT_GT(ran_before, 1u) << before;
  // At most the phase whose line was being written ends after the signal; nothing starts.
  EXPECT_LE(Count(before + after, phase), ran_before + 1) << after;
  EXPECT_TRUE(Has(after, "interrupted")) << after;
  EXPECT_EQ(SqlRows(t / "r.db", "SELECT status FROM runs"),
            std::vector<std::string>{"interrupted"});
  // Every pass measured is stored (one step each), none more.
  const auto passes = SqlRows(t / "r.db", "SELECT cell FROM phases WHERE cell LIKE '% pass %'");
  EXPECT_EQ(passes.size() + 1, Count(before + after, phase));  // + the test file's preparation
  EXPECT_FALSE(passes.empty());
}

TEST(RobustLimits, CountsThatMultiplyAProfilesMemoryAreBounded) {
  TempDir t;
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"cdm", "--passes", "101", "--time", "20ms", "--pause", "0", "--size", "16MiB"},
       "--passes 101 is above the most, 100"},
      {{"surface", "--segments", "1001", "--bs", "4KiB"},
       "--segments 1001 is above the most, 1000"},
      {{"op-advisor", "--op", "0:90:0.001", "--time", "10ms"},
       "--op '0:90:0.001' gives more than 100 OP points"},
      {{"op-advisor", "--op", "0", "--time", "2000s", "--interval", "10ms"},
       "intervals of a 2000 s phase, above the most, 100000"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"profile"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--target", "sim:tiny", "--db", t / "r.db", "--progress", "none"});
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 2) << c.args[0] << ": " << p.err;
    ExpectOneLineError(p, c.error);
  }
  EXPECT_FALSE(fs::exists(t / "r.db")) << "a refused profile created the database";
}

// ---- 2. A thread that cannot start is an error naming the limit ----

// Each thread reserves its stack (ulimit -s, here 1 GiB) out of the address space (ulimit -v,
// here 4 GiB): 64 jobs cannot all start. Before the fix the first failure threw out of
// RealBackend::Run with the started threads joinable: "terminate called without an active
// exception", SIGABRT.
TEST(RobustLimits, AThreadThatCannotStartIsAnErrorNotAnAbort) {
  TempDir t;
  {
    std::ofstream f(t / "f.img", std::ios::binary);
    f.seekp((64 << 20) - 1);
    f.put('\0');
  }
  std::string out;
  const int rc = Shell(std::string("prlimit --stack=1073741824 --as=4294967296 ") + SSDLAB_BINARY +
                           " run --target " + (t / "f.img") +
                           " --rw randread --jobs 64 --runtime 100ms --interval 0",
                       &out);
  EXPECT_EQ(rc, 3) << out;
  EXPECT_EQ(CountLines(out), 1) << out;
  EXPECT_TRUE(Has(out, "ssdlab: error: cannot start job thread ")) << out;
  EXPECT_TRUE(Has(out, "of --jobs 64")) << out;
  EXPECT_TRUE(Has(out, "ulimit -v 4 GiB")) << out;
  EXPECT_FALSE(Has(out, "terminate called")) << out;
}

// ---- 3. A phase of 0 I/O is a failed phase, never a stored figure ----

// The I/Os in flight at a window's end are waited for, up to 10 s (backend/phase_recorder.h):
// with 1 s page reads (the simulator's slowest), a 1 MiB read takes longer than that, and a 1 ms
// phase completes none.
TEST(RobustResults, APhaseThatCompletedNoIoFailsAndKeepsWhatWasMeasuredBefore) {
  TempDir t;
  const std::string slow = "sim:tiny?t_read_us=1000000";
  Proc p = RunSsdlab({"profile", "cdm", "--target", slow, "--db", t / "r.db", "--run", "c",
                      "--size", "16MiB", "--passes", "1", "--time", "1ms", "--progress", "none"});
  EXPECT_EQ(p.exit_code, 3) << p.err;
  EXPECT_TRUE(Has(p.err,
                  "ssdlab: error: cdm SEQ1M Q8T1 read pass 1: no I/O completed in its "
                  "measured 1 ms"))
      << p.err;
  EXPECT_TRUE(Has(p.err, "in flight at the end were still not done")) << p.err;
  EXPECT_FALSE(Has(p.out, "MB/s")) << p.out;
  EXPECT_EQ(SqlRows(t / "r.db", "SELECT status FROM runs"), std::vector<std::string>{"failed"});
  // The test file's preparation, measured before, is kept; no figure of the failed phase.
  EXPECT_EQ(SqlRows(t / "r.db", "SELECT cell FROM phases"), std::vector<std::string>{"prepare"});
  EXPECT_EQ(SqlRows(t / "r.db", "SELECT results FROM tests"), std::vector<std::string>{""});

  Proc run = RunSsdlab({"run", "--target", slow, "--rw", "read", "--bs", "1MiB", "--qd", "8",
                        "--prefill", "--runtime", "1ms", "--json", t / "r.json"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  ExpectOneLineError(run,
                     "run: no I/O completed in its measured 1 ms: its 8 I/O(s) in flight at "
                     "the end were still not done");
  EXPECT_FALSE(fs::exists(t / "r.json")) << "a result of 0 I/O was written";
}

// ---- 4. ATTO's block sizes are checked up front; a profile with no results is not done ----

TEST(RobustResults, AttoBlockSizesAreCheckedAndAProfileWithoutResultsIsNotDone) {
  TempDir t;
  auto atto = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"profile", "atto",     "--target",   "sim:tiny",
                                     "--db",    t / "r.db", "--progress", "none"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunSsdlab(args);
  };
  Proc one = atto({"--min-bs", "1", "--max-bs", "1"});
  EXPECT_EQ(one.exit_code, 2) << one.err;
  ExpectOneLineError(one, "--min-bs 1 B: a block size must be a multiple of 512 B");
  Proc order = atto({"--min-bs", "128MiB"});
  EXPECT_EQ(order.exit_code, 2) << order.err;
  ExpectOneLineError(order, "--min-bs 128 MiB is larger than --max-bs 64 MiB");
  // sim:tiny has 4 KiB logical blocks: 512 B .. 2 KiB has no size it can run.
  Proc lbs = atto({"--min-bs", "512", "--max-bs", "2KiB"});
  EXPECT_EQ(lbs.exit_code, 2) << lbs.err;
  ExpectOneLineError(lbs, "is a multiple of sim:tiny's 4096-byte logical block");
  EXPECT_FALSE(fs::exists(t / "r.db")) << "a refused profile created the database";
  // Every block size larger than the span: found while running, so the run is kept, as failed.
  Proc span = atto({"--min-bs", "2MiB", "--max-bs", "4MiB", "--size", "1MiB", "--run", "a"});
  EXPECT_EQ(span.exit_code, 2) << span.err;
  EXPECT_TRUE(Has(span.err,
                  "atto: no block size from 2 MiB to 4 MiB can be measured (2 MiB: "
                  "larger than the span"))
      << span.err;
  EXPECT_EQ(SqlRows(t / "r.db", "SELECT status FROM runs WHERE name = 'a'"),
            std::vector<std::string>{"failed"});
}

// ---- 5. Preset files and numbers ----

TEST(RobustInputs, PresetFilesMustBeSmallRegularFiles) {
  TempDir t;
  fs::create_directory(t / "dir.toml");
  fs::create_symlink("/dev/zero", t / "zero.toml");
  {
    std::ofstream big(t / "big.toml");
    const std::string comment = "# " + std::string(1000, 'x') + "\n";
    for (int i = 0; i < 1100; ++i) big << comment;
  }
  auto run = [&](const std::string& preset) {
    return RunSsdlab({"run", "--target", "sim:" + preset, "--runtime", "10ms"});
  };
  Proc dir = run(t / "dir.toml");
  EXPECT_EQ(dir.exit_code, 2);
  ExpectOneLineError(dir, "sim preset file " + (t / "dir.toml") +
                              " is not a regular file (a "
                              "directory)");
  // Bounded whatever happens: before the fix this read /dev/zero until memory ran out.
  std::string out;
  const int rc = Shell("prlimit --as=4294967296 " + std::string(SSDLAB_BINARY) +
                           " run --target sim:" + (t / "zero.toml") + " --runtime 10ms",
                       &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_TRUE(Has(out, "is not a regular file (a device, FIFO or socket)")) << out;
  Proc big = run(t / "big.toml");
  EXPECT_EQ(big.exit_code, 2);
  ExpectOneLineError(big, "above the most a preset file may be, 1 MiB");
}

TEST(RobustInputs, HugeNumbersAreOutOfRange) {
  struct Case {
    std::string target, error;
  };
  for (const Case& c : std::vector<Case>{
           {"sim:tiny?scale=1e300", "sim parameter scale=1e300 is out of range (1..1048576)"},
           {"sim:tiny?op=1e400", "sim parameter op=1e400 is out of range (0..1000)"},
           {"sim:tiny?capacity=1e300GiB", "sim parameter capacity=1e300GiB is out of range"},
       }) {
    Proc p = RunSsdlab({"run", "--target", c.target, "--runtime", "10ms"});
    EXPECT_EQ(p.exit_code, 2) << p.err;
    ExpectOneLineError(p, c.error);
  }
  TempDir t;
  {
    std::ofstream trace(t / "t.csv");
    trace << "0,0,R,0,4096\n";
  }
  Proc p = RunSsdlab({"replay", t / "t.csv", "--target", "sim:tiny", "--timing", "scale:1e300"});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  ExpectOneLineError(p, "--timing scale:1e300: the factor is out of range (above 0, at most 1e9)");
}

}  // namespace
}  // namespace ssdlab::test
