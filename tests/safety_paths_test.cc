// One registry of a command's paths (base/path_registry.h, usecase/paths.h): every file a command
// reads or writes is checked together before anything runs, and two roles that meet in one file
// (the database and a simulator state, an output and a trace's per-CPU file, a preset and -o,
// two fleet ranks' drives) are refused with nothing created or changed. Outputs, databases and
// state files that back a loop device are refused too. Everything runs on files under the
// build's temporary area, the simulator, mpirun on this machine and loop devices set up here.
#include <gtest/gtest.h>
#include <linux/blktrace_api.h>
#include <unistd.h>

#include <fstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;

// Exit status 2 and one line, "ssdlab: error: ...", naming `part`.
void ExpectRefused(const Proc& p, const std::string& part) {
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_TRUE(Has(p.err, "ssdlab: error: ")) << p.err;
  EXPECT_TRUE(Has(p.err, part)) << "expected '" << part << "' in: " << p.err;
}

// `ssdlab args...` run in directory `dir` (relative paths are relative to it); stderr in err.
Proc RunIn(const std::string& dir, const std::vector<std::string>& args) {
  std::string cmd = "cd '" + dir + "' && " + SSDLAB_BINARY;
  for (const std::string& a : args) cmd += " '" + a + "'";
  Proc p;
  p.exit_code = Shell(cmd + " 2>&1 >/dev/null", &p.err);
  return p;
}

// A PTS battery of a few cells on a simulated drive (well under a second).
const std::vector<std::string> kQuickPts = {"--tests",      "iops",        "--iops-bs",  "4KiB",
                                            "--iops-mixes", "100/0,0/100", "--round",    "20ms",
                                            "--max-rounds", "5",           "--progress", "none"};
const std::vector<std::string> kQuickCdm = {"--size", "32MiB",   "--passes", "1",          "--time",
                                            "100ms",  "--pause", "0s",       "--progress", "none"};

// A fio v3 iolog that writes and reads the first 64 KiB of `file`.
std::string WritingTrace(const std::string& file) {
  std::string t = "fio version 3 iolog\n0 " + file + " add\n0 " + file + " open\n";
  for (int i = 0; i < 16; ++i)
    t += std::to_string(10 * i) + " " + file + (i % 2 ? " read " : " write ") +
         std::to_string(4096 * i) + " 4096\n";
  return t;
}

// A blk_io_trace queue event (host byte order) of a 4 KiB read.
std::string BlkQueueRead(uint64_t t_ns, uint64_t sector, uint32_t cpu) {
  blk_io_trace e{};
  e.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION;
  e.time = t_ns;
  e.sector = sector;
  e.bytes = 4096;
  e.action = __BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_READ);
  e.device = 8u << 20;
  e.cpu = cpu;
  return std::string(reinterpret_cast<const char*>(&e), sizeof e);
}

// s.blktrace.0 and s.blktrace.1 in `dir`, a valid two-CPU blktrace set.
void WriteBlktraceSet(const TempDir& dir) {
  for (uint32_t cpu = 0; cpu < 2; ++cpu) {
    std::string events;
    for (int i = 0; i < 50; ++i) events += BlkQueueRead(1000 * (2 * i + cpu), 8 * i, cpu);
    std::ofstream(dir / ("s.blktrace." + std::to_string(cpu)), std::ios::binary) << events;
  }
}

// ---- 1 and 2. A simulator state file that is the database or an output ----

TEST(PathRegistry, AStateFileThatIsTheDatabaseIsRefusedBeforeAnythingIsCreated) {
  TempDir t;
  std::ofstream(t / "trace.log") << WritingTrace("f");
  const std::string db = t / "p.db", target = "sim:tiny?state=" + db;
  for (const std::vector<std::string>& args :
       {Args({"profile", "cdm", "--target", target, "--db", db, "--run", "a"}, kQuickCdm),
        Args({"pts", "--target", target, "--db", db, "--run", "a"}, kQuickPts),
        std::vector<std::string>{"replay", t / "trace.log", "--target", target, "--db", db}}) {
    Proc p = RunSsdlab(args);
    ExpectRefused(p, "--db " + db + " is the same file as state= of --target " + target);
    EXPECT_FALSE(fs::exists(db)) << args[0] << " created the database";
  }
}

TEST(PathRegistry, AStateFileThatIsAnOutputIsRefused) {
  TempDir t;
  const std::string st = t / "st.json", target = "sim:tiny?state=" + st;
  for (const char* flag : {"--json", "--lat-log"}) {
    Proc p =
        RunSsdlab({"run", "--target", target, "--rw", "randwrite", "--io-size", "1MiB", flag, st});
    ExpectRefused(p, std::string(flag) + " " + st + " is the same file as state= of --target " +
                         target + "; refusing to overwrite it");
    EXPECT_FALSE(fs::exists(st)) << flag;
  }
}

// ---- 3. Array members whose state paths are spelled differently ----

TEST(PathRegistry, ArrayMembersOnOneNewStateFileSpelledTwoWaysAreRefused) {
  TempDir t;
  const std::string rel = "sim:tiny?state=a2.st", abs = "sim:tiny?state=" + (t / "a2.st");
  Proc p = RunIn(t.path(), {"run", "--target", rel, "--target", abs, "--layout", "raid1", "--rw",
                            "randwrite", "--io-size", "1MiB"});
  ExpectRefused(p, "state= of --target " + abs + " is the same file as state= of --target " + rel);
  EXPECT_FALSE(fs::exists(t / "a2.st"));
}

// ---- 4. Fleet ranks on one file ----

std::string HostName() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

TEST(PathRegistry, FleetRanksWhosePatternsNameOneFileAreRefused) {
  TempDir t;
  const std::string img = t / ("f" + HostName() + ".img");
  std::ofstream(img).close();
  ASSERT_EQ(truncate(img.c_str(), 64 << 20), 0);
  const std::string sha = FileSha256(img);
  // A file target by %h (one host: both ranks on it), a state file by %h, and a map naming one
  // file twice (spelled two ways).
  std::ofstream(t / "map") << "0 " << img << "\n1 " << t.path().string() << "/./"
                           << fs::path(img).filename().string() << "\n";
  const std::vector<std::vector<std::string>> fleets = {
      {"--target", t / "f%h.img"},
      {"--target", "sim:tiny?state=" + (t / "s%h.st")},
      {"--target-map", t / "map"}};
  for (const std::vector<std::string>& fleet : fleets) {
    Proc p = RunMpi(2, Args(Args({"pts", "--db", t / "r.db", "--run", "rack"}, fleet), kQuickPts));
    EXPECT_EQ(p.exit_code, 2) << p.out;
    EXPECT_TRUE(Has(p.out, "rank 1's ")) << p.out;
    EXPECT_TRUE(Has(p.out, " is the same file as rank 0's ")) << p.out;
    EXPECT_TRUE(Has(p.out, "2 of 2 ranks failed")) << p.out;
    EXPECT_FALSE(fs::exists(t / "r.db")) << fleet[1];
  }
  EXPECT_EQ(FileSha256(img), sha);
  EXPECT_FALSE(fs::exists(t / ("s" + HostName() + ".st")));
  // Many clients on one target (--mpi) share it on purpose: still allowed.
  Proc shared =
      RunMpi(2, {"run", "--mpi", "--target", img, "--rw", "randwrite", "--io-size", "1MiB"});
  EXPECT_EQ(shared.exit_code, 0) << shared.out;
  // A simulated drive is not shared that way: each rank simulates its own copy, so one state
  // file for all would keep only the last rank's writes; its lock refuses the second rank.
  Proc one_state = RunMpi(2, {"run", "--mpi", "--target", "sim:tiny?state=" + (t / "one.st"),
                              "--rw", "randwrite", "--io-size", "1MiB"});
  EXPECT_NE(one_state.exit_code, 0) << one_state.out;
  EXPECT_TRUE(Has(one_state.out, "is in use by another ssdlab process")) << one_state.out;
}

// ---- 5, 8 and 9 on a stored run ----

class StoredRunPaths : public ::testing::Test {
 protected:
  // A stored run "r" in `db`.
  void Store(const std::string& db) {
    Proc p = RunSsdlab(Args({"pts", "--target", "sim:tiny", "--db", db, "--run", "r"}, kQuickPts));
    ASSERT_EQ(p.exit_code, 0) << p.err;
  }
  TempDir t_;
};

TEST_F(StoredRunPaths, AnExportCsvNamedLikeTheDatabaseIsRefused) {
  fs::create_directory(t_ / "ex");
  const std::string db = t_ / "ex/summary.csv";
  Store(db);
  const std::string sha = FileSha256(db);
  Proc p = RunSsdlab({"export", "r", "--db", db, "--csv", t_ / "ex"});
  ExpectRefused(p, "--csv " + db + " is the same file as --db " + db);
  EXPECT_EQ(FileSha256(db), sha);
  // Another directory is fine.
  Proc ok = RunSsdlab({"export", "r", "--db", db, "--csv", t_ / "out"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(t_ / "out/summary.csv"));
}

TEST_F(StoredRunPaths, APresetFileReadIsNeverOverwritten) {
  Store(t_ / "r.db");
  Proc d = RunSsdlab({"sim", "describe", "sim:tiny"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  std::ofstream(t_ / "t.toml") << d.out;
  const std::string sha = FileSha256(t_ / "t.toml");
  Proc fit = RunSsdlab({"sim", "fit", "r", "--db", t_ / "r.db", "--base", t_ / "t.toml", "-o",
                        t_ / "t.toml", "--max-evals", "2"});
  ExpectRefused(fit, "-o " + (t_ / "t.toml") + " is the same file as --base " + (t_ / "t.toml"));
  Proc rep = RunSsdlab({"report", "r", "--db", t_ / "r.db", "--twin", "sim:" + (t_ / "t.toml"),
                        "--twin-method", "cheap", "-o", t_ / "t.toml"});
  ExpectRefused(rep, "-o " + (t_ / "t.toml") + " is the same file as --twin sim:");
  EXPECT_EQ(FileSha256(t_ / "t.toml"), sha);
}

// ---- 6 and 7. Traces: per-CPU files and the target ----

TEST(PathRegistry, AnOutputOnAnotherPerCpuFileOfTheTraceIsRefused) {
  TempDir t;
  WriteBlktraceSet(t);
  const std::string sha = FileSha256(t / "s.blktrace.1");
  Proc stats = RunSsdlab({"trace", "stats", t / "s.blktrace.0", "--json", t / "s.blktrace.1"});
  ExpectRefused(stats, "--json " + (t / "s.blktrace.1") + " is the same file as TRACE " +
                           (t / "s.blktrace.0") + " (its per-CPU file");
  Proc replay = RunSsdlab({"replay", t / "s.blktrace.0", "--target", "sim:tiny", "--timing", "afap",
                           "--json", t / "s.blktrace.1"});
  ExpectRefused(replay, "--json " + (t / "s.blktrace.1") + " is the same file as TRACE");
  EXPECT_EQ(FileSha256(t / "s.blktrace.1"), sha);
  // The set read whole, into another file.
  Proc ok = RunSsdlab({"trace", "stats", t / "s.blktrace.0", "--json", t / "stats.json"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(PathRegistry, ReplayOfATraceOntoItselfIsRefused) {
  TempDir t;
  std::ofstream(t / "trace.log") << WritingTrace("f");
  const std::string sha = FileSha256(t / "trace.log");
  fs::create_symlink(t / "trace.log", t / "link");
  fs::create_hard_link(t / "trace.log", t / "hard");
  for (const char* target : {"trace.log", "link", "hard"}) {
    Proc p = RunSsdlab({"replay", t / "trace.log", "--target", t / target, "--timing", "afap",
                        "--remap", "modulo", "--size", "1MiB"});
    ExpectRefused(p,
                  "--target " + (t / target) + " is the same file as TRACE " + (t / "trace.log"));
  }
  EXPECT_EQ(FileSha256(t / "trace.log"), sha);
}

// ---- 9. Outputs aimed at the backing file of a loop device ----

class LoopBackedPaths : public StoredRunPaths {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "loop devices need root";
    std::ofstream(t_ / "lo1.img").close();
    ASSERT_EQ(truncate((t_ / "lo1.img").c_str(), 64 << 20), 0);
    if (!loops_.Attach(t_ / "lo1.img", 64 << 20, &dev_)) GTEST_SKIP() << loops_.error();
  }
  LoopDevices loops_;
  std::string dev_;
};

TEST_F(LoopBackedPaths, NoResultDatabaseOrStateIsWrittenOverABackingFile) {
  const std::string img = t_ / "lo1.img";
  // Idle: still refused, with no flag to allow it.
  Proc idle = RunSsdlab(
      {"run", "--target", "sim:tiny", "--io-size", "1MiB", "--json", img, "--destructive"});
  ExpectRefused(idle, "--json " + img + ": " + img + " is the backing file of loop device " + dev_);
  if (!loops_.Mount(dev_, t_ / "mnt", true)) GTEST_SKIP() << loops_.error();
  Shell("sync");
  const std::string sha = FileSha256(img);
  Store(t_ / "r.db");
  std::ofstream(t_ / "trace.log") << WritingTrace("f");
  const std::vector<std::vector<std::string>> commands = {
      {"run", "--target", "sim:tiny", "--io-size", "1MiB", "--json", img},
      {"run", "--target", "sim:tiny", "--io-size", "1MiB", "--lat-log", img},
      {"run", "--target", "sim:tiny?state=" + img, "--io-size", "1MiB"},
      {"trace", "stats", t_ / "trace.log", "--json", img},
      {"report", "r", "--db", t_ / "r.db", "-o", img},
      {"export", "r", "--db", t_ / "r.db", "--json", img},
      Args({"pts", "--target", "sim:tiny", "--db", img}, kQuickPts)};
  for (const std::vector<std::string>& args : commands) {
    Proc p = RunSsdlab(args);
    ExpectRefused(p, img + " is the backing file of " + dev_ + ", and " + dev_ + " is mounted on");
  }
  EXPECT_EQ(FileSha256(img), sha);
}

}  // namespace
}  // namespace ssdlab::test
