// Fault injection and data-safety tests: ssdlab must never destroy what it does not own, and
// must never lose what it recorded before a fault. Each test reproduces one way of breaking it
// (kills at many points, full filesystems, damaged databases, wrong disks, outputs aimed at
// inputs) and checks the user's data and the stored results afterwards. Everything runs on
// files under the build's temporary area, tmpfs mounts and loop devices the tests set up.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// One line, "ssdlab: error: ...", naming `part`.
void ExpectOneLineError(const Proc& p, const std::string& part) {
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_TRUE(Has(p.err, "ssdlab: error: ")) << p.err;
  EXPECT_TRUE(Has(p.err, part)) << "expected '" << part << "' in: " << p.err;
}

// Rows of an SQL query as text, for comparing what the database holds before and after.
std::vector<std::string> Rows(const std::string& db_path, const std::string& sql) {
  return SqlRows(db_path, sql);
}

void Exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_close(db);
}

// What a run's stored rounds are: one row per measured phase (test, round, cell, counts).
const char* kStoredPhases =
    "SELECT t.name, p.round, p.cell, p.measured_ns, h.ios, h.bytes, h.max_ns FROM phases p "
    "JOIN tests t ON t.id = p.test_id LEFT JOIN histograms h ON h.phase_id = p.id "
    "ORDER BY t.name, p.round, p.cell, h.direction";

// A regular file of `bytes` filled with data written through the page cache and synced.
void WriteData(const std::string& path, uint64_t bytes, char c = 'D') {
  std::ofstream out(path, std::ios::binary);
  std::string block(1 << 20, c);
  for (uint64_t done = 0; done < bytes; done += block.size())
    out.write(block.data(),
              static_cast<std::streamsize>(std::min<uint64_t>(block.size(), bytes - done)));
}

// A tmpfs mounted on a directory of the test's own, unmounted at destruction.
class Tmpfs {
 public:
  Tmpfs(const TempDir& t, const std::string& size) : dir_(t / "tmpfs") {
    fs::create_directories(dir_);
    std::string out;
    ok_ = geteuid() == 0 &&
          Shell("mount -t tmpfs -o size=" + size + " ssdlab-test " + dir_, &out) == 0;
    reason_ = geteuid() != 0 ? "mounting needs root" : out;
  }
  ~Tmpfs() {
    if (ok_) Unmount(dir_);
  }
  bool ok() const { return ok_; }
  const std::string& reason() const { return reason_; }
  std::string operator/(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_, reason_;
  bool ok_ = false;
};

// ---- 1. A read workload never writes the user's file ----

TEST(Faults, ReadOfAFileWithAHoleNeverOverwritesItsData) {
  TempDir t;
  // The reproduction: 2 MiB of data, then a 2 MiB hole.
  WriteData(t / "x.img", 2 << 20);
  ASSERT_EQ(truncate((t / "x.img").c_str(), 4 << 20), 0);
  const std::string before = FileSha256(t / "x.img");
  Proc p = RunSsdlab({"run", "--target", t / "x.img", "--rw", "randread", "--runtime", "200ms",
                      "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(FileSha256(t / "x.img"), before) << "the read workload changed the file";
  json r = ReadJson(t / "r.json");
  ASSERT_EQ(r["notes"].size(), 1u) << r["notes"];
  EXPECT_TRUE(Has(r["notes"][0], "50.0% of the range (2 MiB) is unwritten")) << r["notes"];
  EXPECT_TRUE(Has(r["notes"][0], "--prefill")) << r["notes"];
  // Delayed allocation (written, not yet flushed) is data too: still untouched.
  WriteData(t / "y.img", 4 << 20, 'Y');
  const std::string y = FileSha256(t / "y.img");
  p = RunSsdlab({"run", "--target", t / "y.img", "--rw", "read", "--json", t / "y.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(FileSha256(t / "y.img"), y);
  EXPECT_TRUE(ReadJson(t / "y.json")["notes"].empty()) << ReadJson(t / "y.json")["notes"];
  // --prefill is the explicit way to write it first.
  p = RunSsdlab({"run", "--target", t / "x.img", "--rw", "randread", "--runtime", "100ms",
                 "--prefill", "--json", t / "p.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(FileSha256(t / "x.img"), before);
  json pj = ReadJson(t / "p.json");
  ASSERT_EQ(pj["notes"].size(), 1u) << pj["notes"];
  EXPECT_TRUE(Has(pj["notes"][0], "--prefill wrote the range")) << pj["notes"];
}

TEST(Faults, ReadOfAFileWithoutFiemapIsLeftAsItIs) {
  TempDir t;
  Tmpfs m(t, "16m");
  if (!m.ok()) GTEST_SKIP() << m.reason();
  WriteData(m / "x.img", 1 << 20);
  ASSERT_EQ(truncate((m / "x.img").c_str(), 4 << 20), 0);
  const std::string before = FileSha256(m / "x.img");
  Proc p = RunSsdlab({"run", "--target", m / "x.img", "--rw", "randread", "--buffered", "--runtime",
                      "100ms", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(FileSha256(m / "x.img"), before);
  json notes = ReadJson(t / "r.json")["notes"];
  ASSERT_EQ(notes.size(), 1u) << notes;
  EXPECT_TRUE(Has(notes[0], "cannot tell whether the range holds data")) << notes;
}

TEST(Faults, ReadsOfAnExtendedFileFillOnlyTheNewPart) {
  TempDir t;
  WriteData(t / "f", 1 << 20, 'U');
  Proc p = RunSsdlab(
      {"run", "--target", t / "f", "--size", "4MiB", "--rw", "read", "--json", t / "r.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::string head = ReadFile(t / "f").substr(0, 1 << 20);
  EXPECT_EQ(head, std::string(1 << 20, 'U')) << "the user's first MiB was rewritten";
  json notes = ReadJson(t / "r.json")["notes"];
  ASSERT_FALSE(notes.empty());
  EXPECT_TRUE(Has(notes[0], "filled 3 MiB of the new file")) << notes;
}

// ---- 2. Outputs that resolve to inputs are refused ----

class StoredRun : public ::testing::Test {
 protected:
  void SetUp() override {
    Proc p = RunSsdlab({"pts", "--target", "sim:tiny", "--db", db(), "--run", "r", "--tests",
                        "iops", "--iops-bs", "4KiB", "--iops-mixes", "100/0,0/100", "--round",
                        "20ms", "--max-rounds", "5", "--progress", "none"});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    sha_ = FileSha256(db());
  }
  std::string db() const { return t_ / "r.db"; }
  // The database is as it was, and still reads.
  void ExpectDbIntact() {
    EXPECT_EQ(FileSha256(db()), sha_) << "the results database changed";
    Proc ls = RunSsdlab({"ls", "--db", db()});
    EXPECT_EQ(ls.exit_code, 0) << ls.err;
    EXPECT_TRUE(Has(ls.out, "done")) << ls.out;
  }
  TempDir t_;
  std::string sha_;
};

TEST_F(StoredRun, OutputsAimedAtTheDatabaseAreRefused) {
  fs::create_symlink(db(), t_ / "link.html");
  ASSERT_EQ(link(db().c_str(), (t_ / "hard.json").c_str()), 0);
  const std::vector<std::vector<std::string>> cases = {
      {"report", "r", "--db", db(), "-o", db()},
      {"report", "r", "--db", db(), "-o", t_ / "link.html"},
      {"export", "r", "--db", db(), "--json", db()},
      {"export", "r", "--db", db(), "--json", t_ / "hard.json"},
      {"pts", "--target", "sim:tiny", "--db", db(), "--tests", "iops", "--iops-bs", "4KiB",
       "--json", db()},
      {"pts", "--target", "sim:tiny", "--db", db(), "--tests", "iops", "--iops-bs", "4KiB",
       "--json", db() + "-wal"},
      {"profile", "cdm", "--target", "sim:tiny", "--db", db(), "--json", db()},
  };
  for (const auto& args : cases) {
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 2) << args[0] << " " << args.back() << ": " << p.err;
    ExpectOneLineError(p, "is the same file as --db");
  }
  ExpectDbIntact();
  EXPECT_EQ(Rows(db(), "SELECT name FROM runs").size(), 1u) << "a refused command stored a run";
}

TEST(Faults, OutputsAimedAtTheTargetOrEachOtherAreRefused) {
  TempDir t;
  WriteData(t / "f.img", 4 << 20);
  const std::string sha = FileSha256(t / "f.img");
  Proc p = RunSsdlab({"run", "--target", t / "f.img", "--rw", "read", "--json", t / "f.img"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "is the same file as --target");
  p = RunSsdlab({"run", "--target", t / "f.img", "--rw", "read", "--lat-log", t / "f.img"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "is the same file as --target");
  EXPECT_EQ(FileSha256(t / "f.img"), sha);
  p = RunSsdlab({"run", "--target", "sim:tiny", "--runtime", "10ms", "--json", t / "o", "--lat-log",
                 t / "o"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "--lat-log " + (t / "o") + " is the same file as --json");
  EXPECT_FALSE(fs::exists(t / "o"));
  p = RunSsdlab(
      {"run", "--target", "sim:tiny", "--runtime", "10ms", "--json", "-", "--lat-log", "-"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "would both write to stdout");
  // --lat-log - is stdout, not a file named "-"; the summary then goes to stderr.
  p = RunSsdlab(
      {"run", "--target", "sim:tiny", "--runtime", "10ms", "--lat-log", "-", "--interval", "0"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out.rfind("start_ns,direction,offset,bytes,latency_ns\n", 0), 0u)
      << p.out.substr(0, 200);
  EXPECT_TRUE(Has(p.err, "IOPS")) << p.err;
  EXPECT_FALSE(fs::exists("-"));
  // A directory as --json fails before the run, not after it.
  p = RunSsdlab({"run", "--target", "sim:tiny", "--runtime", "10ms", "--json", t.path().string()});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "is a directory");
  EXPECT_FALSE(Has(p.out, "IOPS")) << "the run went ahead";
}

// ---- 3. Outputs replace the old file only when complete ----

TEST(Faults, AFullDiskNeverReplacesAGoodReportWithATruncatedOne) {
  TempDir t;
  Tmpfs m(t, "2m");
  if (!m.ok()) GTEST_SKIP() << m.reason();
  Proc p = RunSsdlab({"pts", "--target", "sim:tiny", "--db", t / "r.db", "--run", "r", "--tests",
                      "iops", "--iops-bs", "4KiB", "--iops-mixes", "100/0", "--round", "20ms",
                      "--max-rounds", "5", "--progress", "none"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::ofstream(m / "report.html") << "the good old report\n";
  WriteData(m / "filler", (2 << 20) - (128 << 10));  // 128 KiB left; a report is ~1 MB
  p = RunSsdlab({"report", "r", "--db", t / "r.db", "-o", m / "report.html"});
  EXPECT_NE(p.exit_code, 0);
  ExpectOneLineError(p, "-o " + (m / "report.html"));
  EXPECT_TRUE(ReadFile(m / "report.html") == "the good old report\n")
      << "the old report was replaced";
  for (const auto& e : fs::directory_iterator(fs::path(m / "")))
    EXPECT_TRUE(e.path().filename() == "report.html" || e.path().filename() == "filler")
        << "left behind: " << e.path();
  // The same for JSON exports and run results.
  p = RunSsdlab({"run", "--target", "sim:tiny", "--runtime", "1s", "--interval", "10ms",
                 "--lat-log", m / "report.html"});
  EXPECT_NE(p.exit_code, 0);
  EXPECT_TRUE(Has(p.err, "--lat-log")) << p.err;
  EXPECT_TRUE(ReadFile(m / "report.html") == "the good old report\n")
      << "the old file was replaced";
}

TEST(Faults, SigkillDuringARunLeavesTheOldOutputsInPlace) {
  TempDir t;
  WriteData(t / "f.img", 16 << 20);
  std::ofstream(t / "lat.csv") << "old log\n";
  std::ofstream(t / "r.json") << "{\"old\": true}\n";
  pid_t pid = StartSsdlab({"run", "--target", t / "f.img", "--rw", "randread", "--runtime", "60s",
                           "--lat-log", t / "lat.csv", "--json", t / "r.json"},
                          t / "out", t / "err");
  // Wait until the log is being written (its temporary file grows), then kill.
  bool growing = false;
  for (int i = 0; i < 400 && !growing; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& e : fs::directory_iterator(t.path()))
      growing |=
          Has(e.path().filename().string(), ".lat.csv.ssdlab-") && fs::file_size(e.path()) > 4096;
  }
  kill(pid, SIGKILL);
  EXPECT_EQ(Wait(pid), 128 + SIGKILL);
  EXPECT_TRUE(growing) << "the latency log was never written beside its path";
  EXPECT_EQ(ReadFile(t / "lat.csv"), "old log\n");
  EXPECT_EQ(ReadFile(t / "r.json"), "{\"old\": true}\n");
}

// ---- 4 and 5. Loop devices: backing files, shared backing files, the wrong disk on resume ----

class LoopFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "loop devices need root";
    for (const char* name : {"a.img", "b.img"}) {
      std::ofstream(dir_ / name).close();
      ASSERT_EQ(truncate((dir_ / name).c_str(), 64 << 20), 0);
    }
  }
  // Attaches `img` (at `dev` if given); "" when loop devices cannot be set up here.
  std::string Attach(const std::string& img, const std::string& dev = "") {
    std::string d;
    return loops_.Attach(img, 64 << 20, &d, false, dev) ? d : "";
  }
  void Detach(const std::string& dev) { loops_.Detach(dev); }
  bool MountExt4(const std::string& dev) {
    return loops_.Mount(dev, dir_ / ("mnt" + std::to_string(mounts_++)), true);
  }
  TempDir dir_;
  LoopDevices loops_;
  int mounts_ = 0;
};

TEST_F(LoopFaults, TheBackingFileOfAMountedLoopDeviceIsNeverWritten) {
  std::string dev = Attach(dir_ / "a.img");
  if (dev.empty()) GTEST_SKIP() << "cannot set up a loop device here";
  if (!MountExt4(dev)) GTEST_SKIP() << "cannot mount ext4 here";
  Shell("sync");
  const std::string sha = FileSha256(dir_ / "a.img");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"pts", "--target", dir_ / "a.img", "--db", dir_ / "r.db",
                                 "--tests", "iops"},
        std::vector<std::string>{"run", "--target", dir_ / "a.img", "--rw", "write",
                                 "--destructive"},
        std::vector<std::string>{"run", "--target", dir_ / "a.img", "--rw", "randread",
                                 "--prefill"},
        std::vector<std::string>{"purge", "--target", dir_ / "a.img", "--destructive"}}) {
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 2) << args[0] << ": " << p.err;
    ExpectOneLineError(p, "is the backing file of " + dev);
    EXPECT_TRUE(Has(p.err, "mounted on")) << p.err;
  }
  EXPECT_EQ(FileSha256(dir_ / "a.img"), sha);
  // Reading it needs no flag and changes nothing.
  Proc r = RunSsdlab({"run", "--target", dir_ / "a.img", "--rw", "read", "--bs", "1MiB"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(FileSha256(dir_ / "a.img"), sha);
}

TEST_F(LoopFaults, AnIdleLoopDevicesBackingFileNeedsDestructive) {
  std::string dev = Attach(dir_ / "a.img");
  if (dev.empty()) GTEST_SKIP() << "cannot set up a loop device here";
  Proc p = RunSsdlab({"run", "--target", dir_ / "a.img", "--rw", "write", "--io-size", "1MiB"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "pass --destructive");
  p = RunSsdlab(
      {"run", "--target", dir_ / "a.img", "--rw", "write", "--io-size", "1MiB", "--destructive"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
}

TEST_F(LoopFaults, ASecondLoopDeviceOnAMountedFileIsRefused) {
  std::string a = Attach(dir_ / "a.img");
  if (a.empty()) GTEST_SKIP() << "cannot set up a loop device here";
  if (!MountExt4(a)) GTEST_SKIP() << "cannot mount ext4 here";
  std::string b = Attach(dir_ / "a.img");
  if (b.empty()) GTEST_SKIP() << "cannot attach a second loop device";
  Proc p = RunSsdlab({"run", "--target", b, "--rw", "write", "--destructive", "--io-size", "1MiB"});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  ExpectOneLineError(p, "shares its backing file");
  EXPECT_TRUE(Has(p.err, a)) << p.err;
}

TEST_F(LoopFaults, ResumeRefusesAnotherDiskBehindTheSameNode) {
  std::string dev = Attach(dir_ / "a.img");
  if (dev.empty()) GTEST_SKIP() << "cannot set up a loop device here";
  const std::string confirm_a = fs::canonical(dir_ / "a.img").string();
  pid_t pid = StartSsdlab(
      {"pts",        "--target", dev,     "--db",          dir_ / "r.db", "--run",
       "r",          "--tests",  "iops",  "--iops-bs",     "4KiB",        "--iops-mixes",
       "100/0",      "--round",  "300ms", "--max-rounds",  "25",          "--window",
       "25",         "--wipc",   "0x",    "--destructive", "--confirm",   confirm_a,
       "--progress", "none"},
      dir_ / "out", dir_ / "err");
  for (int i = 0; i < 300 && Rows(dir_ / "r.db", "SELECT round FROM rounds").size() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(pid, SIGINT);
  ASSERT_EQ(Wait(pid), 130) << ReadFile(dir_ / "err");
  const auto stored = Rows(dir_ / "r.db", kStoredPhases);
  ASSERT_FALSE(stored.empty());
  // The node now points at another disk.
  Detach(dev);
  if (Attach(dir_ / "b.img", dev).empty()) GTEST_SKIP() << "cannot re-attach " << dev;
  const std::string confirm_b = fs::canonical(dir_ / "b.img").string();
  Proc p = RunSsdlab(
      {"pts", "--resume", "r", "--db", dir_ / "r.db", "--destructive", "--confirm", confirm_b});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  ExpectOneLineError(p, "not the drive the run started on");
  EXPECT_TRUE(Has(p.err, "loop backing file")) << p.err;
  EXPECT_EQ(Rows(dir_ / "r.db", kStoredPhases), stored) << "rounds of another disk were added";
  EXPECT_EQ(Rows(dir_ / "r.db", "SELECT status FROM runs"),
            std::vector<std::string>{"interrupted"});
}

// ---- 6 and 12. Resume: one writer at a time, the stored options ----

TEST(Faults, ResumeIsLockedAndKeepsItsOptions) {
  TempDir t;
  WriteData(t / "f.img", 32 << 20);
  const std::vector<std::string> start = {
      "pts",   "--target", t / "f.img", "--db",         t / "r.db", "--run",
      "r",     "--tests",  "iops",      "--iops-bs",    "4KiB",     "--iops-mixes",
      "100/0", "--round",  "200ms",     "--max-rounds", "25",       "--window",
      "25",    "--wipc",   "0x",        "--progress",   "none"};
  pid_t pid = StartSsdlab(start, t / "out", t / "err");
  for (int i = 0; i < 300 && Rows(t / "r.db", "SELECT round FROM rounds").size() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // A second writer of the same run is refused while the first runs.
  Proc second = RunSsdlab({"pts", "--resume", "r", "--db", t / "r.db", "--progress", "none"});
  EXPECT_EQ(second.exit_code, 2) << second.err;
  ExpectOneLineError(second, "run 'r' is being written by another ssdlab process");
  kill(pid, SIGKILL);
  Wait(pid);
  // `show` counts the measured rounds only: the purge and preconditioning step is stored as a
  // round too, and counting it said "1201 rounds stored" of a test of 1200.
  const size_t measured =
      Rows(t / "r.db", "SELECT round FROM rounds WHERE tracking NOT LIKE '%purge_method%'").size();
  ASSERT_EQ(Rows(t / "r.db", "SELECT round FROM rounds").size(), measured + 1);
  Proc show = RunSsdlab({"show", "r", "--db", t / "r.db"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(Has(show.out, "unfinished: " + std::to_string(measured) + " rounds stored"))
      << show.out;
  // The kill released the lock; options that differ from the stored ones are refused, by name.
  Proc p = RunSsdlab({"pts", "--resume", "r", "--db", t / "r.db", "--round", "1s"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "--round 1s conflicts with the stored run's --round 200ms");
  p = RunSsdlab({"pts", "--resume", "r", "--db", t / "r.db", "--target", "sim:tiny"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "--target sim:tiny conflicts");
  p = RunSsdlab({"pts", "--resume", "r", "--db", t / "r.db", "--seed", "7"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "--seed 7 conflicts with the stored run's default");
  // The same values spelled otherwise are the same; the run continues to the end.
  p = RunSsdlab({"pts", "--resume", "r", "--db", t / "r.db", "--round", "0.2s", "--tests", "iops",
                 "--progress", "none"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(Rows(t / "r.db", "SELECT status FROM runs"), std::vector<std::string>{"done"});
  // A done run, a missing database, a run of another kind.
  p = RunSsdlab({"pts", "--resume", "r", "--db", t / "r.db"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "already done");
  p = RunSsdlab({"pts", "--resume", "r", "--db", t / "missing.db"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "does not exist");
  EXPECT_FALSE(fs::exists(t / "missing.db")) << "--resume created a database";
  p = RunSsdlab({"profile", "cdm", "--target", "sim:tiny", "--db", t / "r.db", "--run", "prof",
                 "--size", "64MiB", "--passes", "1", "--time", "50ms", "--pause", "0s",
                 "--progress", "none"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  Exec(t / "r.db", "UPDATE runs SET status='interrupted' WHERE name='prof'");
  p = RunSsdlab({"pts", "--resume", "prof", "--db", t / "r.db"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "it is a profile run, not a PTS run");
}

// ---- Kills at many points: nothing recorded before a kill is lost ----

TEST(Faults, KillsAtManyPointsLoseNothingRecorded) {
  TempDir t;
  WriteData(t / "f.img", 32 << 20);
  const std::vector<std::string> start = {
      "pts",         "--target",     t / "f.img", "--db",        t / "r.db",   "--run",
      "r",           "--tests",      "iops,lat",  "--iops-bs",   "4KiB,64KiB", "--iops-mixes",
      "100/0,0/100", "--lat-bs",     "4KiB",      "--lat-mixes", "100/0",      "--round",
      "50ms",        "--max-rounds", "20",        "--window",    "20",         "--wipc",
      "0.5x",        "--progress",   "none"};
  std::vector<std::string> before;
  std::mt19937 rng(7);
  int kills = 0;
  for (int attempt = 0; attempt < 12; ++attempt) {
    std::vector<std::string> args =
        attempt == 0 ? start : std::vector<std::string>{"pts",      "--resume",   "r",   "--db",
                                                        t / "r.db", "--progress", "none"};
    pid_t pid = StartSsdlab(args, t / "out", t / "err");
    // Kill at a point that moves around: after 50 to 800 ms, or a few stored rows later.
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 750));
    kill(pid, attempt % 3 == 2 ? SIGTERM : SIGKILL);
    int code = Wait(pid);
    const auto now = Rows(t / "r.db", kStoredPhases);
    // Every phase stored before is still stored, unchanged.
    for (const std::string& row : before)
      EXPECT_NE(std::find(now.begin(), now.end(), row), now.end())
          << "lost after kill " << attempt << ": " << row;
    EXPECT_GE(now.size(), before.size());
    before = now;
    if (code == 0) break;  // the run finished before this kill
    ++kills;
    // 128 + SIGTERM: the signal came before the program set its handlers (a loaded machine
    // can take longer than the shortest wait to start it), so it died as from a SIGKILL.
    EXPECT_TRUE(code == 128 + SIGKILL || code == 130 || code == 128 + SIGTERM)
        << code << ReadFile(t / "err");
    if (code == 130) {  // SIGTERM: stopped cleanly, marked interrupted
      EXPECT_EQ(Rows(t / "r.db", "SELECT status FROM runs"),
                std::vector<std::string>{"interrupted"});
    }
  }
  EXPECT_GE(kills, 3);
  Proc done = RunSsdlab({"pts", "--resume", "r", "--db", t / "r.db", "--progress", "none"});
  const auto status = Rows(t / "r.db", "SELECT status FROM runs");
  if (status != std::vector<std::string>{"done"}) {
    ASSERT_EQ(done.exit_code, 0) << done.err;
  }
  const auto final_rows = Rows(t / "r.db", kStoredPhases);
  for (const std::string& row : before)
    EXPECT_NE(std::find(final_rows.begin(), final_rows.end(), row), final_rows.end());
  Proc show = RunSsdlab({"show", "r", "--db", t / "r.db"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(Has(show.out, "iops")) << show.out;
}

// ---- 8. Signals after the first still end the run cleanly ----

TEST(Faults, ASecondSigtermStillEndsTheRunCleanly) {
  TempDir t;
  WriteData(t / "f.img", 32 << 20);
  pid_t pid =
      StartSsdlab({"pts",   "--target",   t / "f.img", "--db",         t / "r.db",  "--run",
                   "r",     "--tests",    "iops",      "--iops-bs",    "4KiB",      "--iops-mixes",
                   "100/0", "--round",    "2s",        "--max-rounds", "25",        "--wipc",
                   "0x",    "--progress", "none",      "--json",       t / "r.json"},
                  t / "out", t / "err");
  for (int i = 0; i < 300 && Rows(t / "r.db", "SELECT name FROM runs").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGTERM);
  kill(pid, SIGTERM);
  EXPECT_EQ(Wait(pid), 130) << ReadFile(t / "err");
  EXPECT_EQ(Rows(t / "r.db", "SELECT status FROM runs"), std::vector<std::string>{"interrupted"});
  ASSERT_TRUE(fs::exists(t / "r.json")) << "the JSON of the interrupted run was lost";
  EXPECT_EQ(ReadJson(t / "r.json")["context"]["status"], "interrupted");
}

// ---- 7 and 13. Damaged databases: one line naming what, never a crash ----

TEST_F(StoredRun, DamagedStoredResultsAreOneLineErrorsNamingTheRun) {
  Exec(db(), "UPDATE tests SET results='{\"x\": ' WHERE name='iops'");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", "r", "--db", db()},
        std::vector<std::string>{"show", "r", "--db", db(), "--json"},
        std::vector<std::string>{"report", "r", "--db", db(), "-o", t_ / "r.html"},
        std::vector<std::string>{"export", "r", "--db", db(), "--json", t_ / "r.json"},
        std::vector<std::string>{"export", "r", "--db", db(), "--csv", t_ / "csv"}}) {
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 3) << args[0] << ": " << p.err;
    ExpectOneLineError(p, "run 'r'");
    EXPECT_TRUE(Has(p.err, "results of test iops")) << p.err;
  }
  EXPECT_FALSE(fs::exists(t_ / "r.html"));
  EXPECT_FALSE(fs::exists(t_ / "r.json"));
  // A config of the wrong shape: resume says so instead of aborting.
  Exec(db(), "UPDATE runs SET status='interrupted', config='[1,2]'");
  Proc p = RunSsdlab({"pts", "--resume", "r", "--db", db()});
  EXPECT_EQ(p.exit_code, 3) << p.err;
  ExpectOneLineError(p, "run 'r'");
  Proc ls = RunSsdlab({"ls", "--db", db()});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_TRUE(Has(ls.out, "DAMAGED")) << ls.out;
}

TEST_F(StoredRun, AWronglyTypedVerdictIsAOneLineErrorNamingTheKey) {
  // Valid JSON of the wrong shape: `show` names the test and the key instead of an exception.
  Exec(db(),
       "UPDATE tests SET steady_state=json_set(steady_state, '$.reached', 'yes') "
       "WHERE name='iops'");
  Proc p = RunSsdlab({"show", "r", "--db", db()});
  EXPECT_NE(p.exit_code, 0) << p.out;
  ExpectOneLineError(p, "run 'r': test 'iops': steady_state.reached is not true or false");
  EXPECT_FALSE(Has(p.err, "unexpected")) << p.err;
}

TEST_F(StoredRun, AWronglyTypedContextIsNamedByShowAndLs) {
  // The run's context names its target by an object; a string there is damage, not a crash.
  Exec(db(), "UPDATE runs SET context=json_set(context, '$.target', '/dev/sda') WHERE name='r'");
  Proc show = RunSsdlab({"show", "r", "--db", db()});
  EXPECT_NE(show.exit_code, 0) << show.out;
  ExpectOneLineError(show, "run 'r': context.target is not an object");
  EXPECT_FALSE(Has(show.err, "unexpected")) << show.err;
  Proc ls = RunSsdlab({"ls", "--db", db()});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_TRUE(Has(ls.out, "DAMAGED")) << ls.out;
  EXPECT_TRUE(Has(ls.out, "context.target is not an object")) << ls.out;
}

TEST_F(StoredRun, AWronglyTypedStoredArgumentIsNamedByResume) {
  // A resumed run reads its stored arguments as texts; a number there is damage, not a crash.
  Exec(db(),
       "UPDATE runs SET status='interrupted', config=json_set(config, '$.args.target', 3) "
       "WHERE name='r'");
  Proc p = RunSsdlab({"pts", "--resume", "r", "--db", db(), "--progress", "none"});
  EXPECT_NE(p.exit_code, 0) << p.out;
  ExpectOneLineError(p, "run 'r': config.args.target is not a text");
  EXPECT_FALSE(Has(p.err, "unexpected")) << p.err;
}

TEST_F(StoredRun, ADamagedPageIsCalledDamaged) {
  // Overwrite the root page of the tests table (after checkpointing the WAL into the file).
  Exec(db(), "PRAGMA wal_checkpoint(TRUNCATE)");
  const auto root = Rows(db(), "SELECT rootpage FROM sqlite_master WHERE name='tests'");
  const auto page = Rows(db(), "PRAGMA page_size");
  ASSERT_EQ(root.size(), 1u);
  ASSERT_EQ(page.size(), 1u);
  const uint64_t page_bytes = std::stoull(page[0]);
  {
    std::fstream f(db(), std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>((std::stoull(root[0]) - 1) * page_bytes));
    std::string junk(page_bytes, '\xa5');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", "r", "--db", db(), "--json"},
        std::vector<std::string>{"report", "r", "--db", db(), "-o", t_ / "r.html"}}) {
    Proc p = RunSsdlab(args);
    EXPECT_TRUE(p.exit_code == 2 || p.exit_code == 3) << p.exit_code << " " << p.err;
    ExpectOneLineError(p, "damaged");
    EXPECT_FALSE(Has(p.err, "another program")) << p.err;
  }
  // The first page gone: not an SQLite database any more.
  {
    std::fstream f(db(), std::ios::binary | std::ios::in | std::ios::out);
    std::string junk(512, 'x');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  Proc p = RunSsdlab({"ls", "--db", db()});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "");
  EXPECT_FALSE(Has(p.err, "another program")) << p.err;
}

TEST(Faults, ReadOnlyPlacesAreCalledReadOnly) {
  TempDir t;
  if (geteuid() != 0) GTEST_SKIP() << "a read-only bind mount needs root";
  fs::create_directories(t / "rw");
  fs::create_directories(t / "ro");
  Proc p = RunSsdlab({"pts", "--target", "sim:tiny", "--db", t / "rw/r.db", "--run", "r", "--tests",
                      "iops", "--iops-bs", "4KiB", "--iops-mixes", "100/0", "--round", "20ms",
                      "--max-rounds", "5", "--progress", "none"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  WriteData(t / "rw/f.img", 4 << 20);
  if (Shell("mount --bind " + (t / "rw") + " " + (t / "ro") + " && mount -o remount,ro,bind " +
            (t / "ro")) != 0)
    GTEST_SKIP() << "cannot make a read-only bind mount here";
  struct UnmountAtEnd {
    std::string dir;
    ~UnmountAtEnd() { Unmount(dir); }
  } unmount{t / "ro"};
  p = RunSsdlab({"pts", "--target", "sim:tiny", "--db", t / "ro/r.db", "--tests", "iops",
                 "--iops-bs", "4KiB"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "read-only");
  EXPECT_FALSE(Has(p.err, "not an SQLite database")) << p.err;
  // Reading works, and a read of the read-only file needs no write access.
  p = RunSsdlab({"show", "r", "--db", t / "ro/r.db"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  p = RunSsdlab({"run", "--target", t / "ro/f.img", "--rw", "randread", "--runtime", "50ms"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  // A purge is refused before it starts, not "partly erased" afterwards.
  p = RunSsdlab({"purge", "--target", t / "ro/f.img", "--destructive"});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  ExpectOneLineError(p, "read-only");
  EXPECT_FALSE(Has(p.err, "partly")) << p.err;
}

// ---- 9, 10, 11, 14. Limits checked before the first write ----

TEST(Faults, LimitsAreCheckedBeforeAnythingIsWritten) {
  TempDir t;
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db"},
       "iops: block size 512 B is not a multiple of sim:tiny's 4096-byte logical block"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--tests", "ecw"},
       "leave ecw out of --tests"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--tests", "iops,iops"},
       "--tests names 'iops' twice"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--range", "150"}, "outside 0..100"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--progress", "foo"}, "--progress"},
      {{"pts", "--target", "sim:tiny", "--db", t / "r.db", "--json", t / "missing/r.json"},
       "does not exist"},
      {{"run", "--target", "sim:tiny", "--rate-iops", "1e18", "--runtime", "1s"},
       "--rate-iops '1e18' is above"},
      {{"run", "--target", "sim:tiny", "--runtime", "0.5ns"},
       "--runtime '0.5ns' is shorter than 1ms"},
      {{"run", "--target", "sim:tiny?op=10&op=20"}, "sim parameter 'op' is given twice"},
      {{"run", "--target", "sim:tiny?mem_limit=1PiB"}, "more than the"},
      {{"run", "--target", t / "f.img", "--size", "4MiB", "--qd", "40000"},
       "--qd 40000 is above io_uring's limit"},
  };
  for (const Case& c : cases) {
    Proc p = RunSsdlab(c.args);
    EXPECT_EQ(p.exit_code, 2) << c.args.back() << ": " << p.err;
    ExpectOneLineError(p, c.message);
  }
  EXPECT_TRUE(Rows(t / "r.db", "SELECT name FROM runs").empty())
      << "a refused battery stored a run";
  EXPECT_FALSE(fs::exists(t / "f.img")) << "a refused run created its target";
  // Percentage ranges are rounded to the logical block.
  WriteData(t / "g.img", 4 << 20);
  Proc p = RunSsdlab({"run", "--target", t / "g.img", "--range", "0%-33.3%", "--runtime", "50ms",
                      "--json", t / "g.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json g = ReadJson(t / "g.json");
  uint64_t end = g["context"]["workload"]["range_end_bytes"];
  uint64_t lbs = g["context"]["target"]["logical_block_bytes"];
  EXPECT_EQ(end % lbs, 0u) << end;
  EXPECT_LT(end, static_cast<uint64_t>(0.333 * (4 << 20)));
  // ls of an empty file writes nothing into it.
  std::ofstream(t / "empty.db").close();
  p = RunSsdlab({"ls", "--db", t / "empty.db"});
  EXPECT_EQ(p.exit_code, 2);
  ExpectOneLineError(p, "empty");
  EXPECT_EQ(fs::file_size(t / "empty.db"), 0u);
}

TEST(Faults, AnAddressSpaceLimitIsAnErrorNotAnAbort) {
  std::string out;
  if (Shell("command -v prlimit", &out) != 0) GTEST_SKIP() << "no prlimit";
  TempDir t;
  int rc = Shell(std::string("prlimit --as=1073741824 ") + SSDLAB_BINARY +
                     " run --target 'sim:dc-sata-read-intensive?scale=1' --runtime 10ms 2>" +
                     (t / "err"),
                 &out);
  EXPECT_EQ(rc, 2) << ReadFile(t / "err");
  EXPECT_TRUE(Has(ReadFile(t / "err"), "memory")) << ReadFile(t / "err");
  EXPECT_EQ(CountLines(ReadFile(t / "err")), 1) << ReadFile(t / "err");
}

// ---- Fills: a full disk under the database keeps every round committed before ----

TEST(Faults, AFullDiskUnderTheDatabaseKeepsTheCommittedRounds) {
  TempDir t;
  Tmpfs m(t, "600k");
  if (!m.ok()) GTEST_SKIP() << m.reason();
  Proc p = RunSsdlab({"pts", "--target", "sim:tiny", "--db", m / "r.db", "--run", "r", "--tests",
                      "iops", "--iops-bs", "4KiB,8KiB,16KiB,32KiB,64KiB", "--round", "200ms",
                      "--max-rounds", "25", "--window", "25", "--progress", "none"});
  ASSERT_NE(p.exit_code, 0) << "the database fit in 600 KiB; make the run bigger";
  EXPECT_TRUE(Has(p.err, "full")) << p.err;
  // What was committed is readable (after moving the database off the full filesystem).
  for (const char* suffix : {"", "-wal", "-shm"})
    if (fs::exists(m / (std::string("r.db") + suffix)))
      fs::copy_file(m / (std::string("r.db") + suffix), t / (std::string("r.db") + suffix));
  const auto rows = Rows(t / "r.db", kStoredPhases);
  EXPECT_FALSE(rows.empty());
  Proc show = RunSsdlab({"show", "r", "--db", t / "r.db"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(Has(show.out, "rounds stored")) << show.out;
}

}  // namespace
}  // namespace ssdlab::test
