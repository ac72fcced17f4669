// End-to-end tests of the lifecycle of simulated drives' state files (`sim:PRESET?state=PATH`,
// README "What ssdlab guarantees", the bullet on state files): one user at a time however the
// path is spelled, no state saved by a command that fails, resume checks the drive's parameters,
// saves through symlinks, and purge agrees with the damaged-state message.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void ExpectOneLineError(const Proc& p, const std::string& part) {
  EXPECT_TRUE(Has(p.err, part)) << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << "one-line error: " << p.err;
}

// The lock protocol of README "State files" (sim/state_lock.h), held by this test process: an
// open-file-description write lock on byte 0 of ".NAME.ssdlab-lock" beside the resolved state.
class HeldLock {
 public:
  explicit HeldLock(const fs::path& resolved_state) {
    const fs::path lock =
        resolved_state.parent_path() / ("." + resolved_state.filename().string() + ".ssdlab-lock");
    fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 1;
    locked_ = fd_ >= 0 && fcntl(fd_, F_OFD_SETLK, &fl) == 0;
  }
  ~HeldLock() { Release(); }
  bool locked() const { return locked_; }
  void Release() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

// Runs ssdlab with `dir` as its working directory (relative state= paths).
Proc RunSsdlabIn(const fs::path& dir, const std::vector<std::string>& args) {
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  Proc p = RunSsdlab(args);
  fs::current_path(before);
  return p;
}

void Exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

// A. A state file is locked for the command's life, as runs are: a second user is refused at
// once (run, purge), whatever the spelling of the path (absolute, relative, through a symlink).
TEST(SafetyState, AStateInUseIsRefusedAtOnceHoweverSpelled) {
  TempDir t;
  const std::string state = t / "drive.st";
  ASSERT_EQ(RunSsdlab({"run", "--target", "sim:tiny?state=" + state, "--rw", "write", "--range",
                       "0%-10%", "--bs", "128KiB"})
                .exit_code,
            0);
  const std::string before = ReadFile(state);
  ASSERT_FALSE(before.empty());
  fs::create_symlink(state, t / "link.st");

  HeldLock held(state);  // another ssdlab process using the drive
  ASSERT_TRUE(held.locked());
  for (const std::string& spelling : {state, t / "link.st", t / "." + std::string("/drive.st")}) {
    Proc run = RunSsdlab({"run", "--target", "sim:tiny?state=" + spelling, "--rw", "randwrite",
                          "--runtime", "50ms"});
    EXPECT_EQ(run.exit_code, 2) << spelling << ": " << run.err;
    ExpectOneLineError(run,
                       "is in use by another ssdlab process or by another member of this "
                       "command");
    EXPECT_TRUE(Has(run.err, spelling)) << run.err;
  }
  Proc relative = RunSsdlabIn(t.path(), {"run", "--target", "sim:tiny?state=drive.st", "--rw",
                                         "randwrite", "--runtime", "50ms"});
  EXPECT_EQ(relative.exit_code, 2) << relative.err;
  ExpectOneLineError(relative, "is in use by another ssdlab process");
  Proc purge = RunSsdlab({"purge", "--target", "sim:tiny?state=" + state, "--destructive"});
  EXPECT_EQ(purge.exit_code, 2) << purge.err;
  ExpectOneLineError(purge, "is in use by another ssdlab process");
  // `info` only reads the header, which a save replaces whole: it does not wait for the lock.
  Proc info = RunSsdlab({"info", "--target", "sim:tiny?state=" + state, "--json"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(ReadFile(state), before) << "a refused command changed the state";
  EXPECT_TRUE(fs::is_symlink(t / "link.st"));

  held.Release();  // the other process ended: the drive is free again
  Proc run = RunSsdlab({"run", "--target", "sim:tiny?state=" + (t / "link.st"), "--rw", "randwrite",
                        "--runtime", "50ms"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(ReadFile(state), before);
}

// A, array members: one file spelled two ways (relative and absolute, or through a symlink),
// not yet created, is refused before anything runs; nothing is created.
TEST(SafetyState, ArrayMembersOnOneFileSpelledTwoWaysAreRefused) {
  TempDir t;
  fs::create_symlink(t / "b2.st", t / "to-b2.st");  // dangling: b2.st does not exist yet
  struct Case {
    std::string a, b;
  };
  for (const Case& c : {Case{"a2.st", t / "a2.st"}, Case{t / "to-b2.st", t / "b2.st"}}) {
    Proc p = RunSsdlabIn(
        t.path(), {"run", "--target", "sim:tiny?state=" + c.a, "--target", "sim:tiny?state=" + c.b,
                   "--layout", "raid1", "--rw", "write", "--runtime", "50ms"});
    EXPECT_EQ(p.exit_code, 2) << c.a << " " << c.b << ": " << p.err;
    // The command's path registry names the two members first (the array's own check and the
    // state lock stand behind it).
    ExpectOneLineError(p, "is the same file as state= of --target");
  }
  EXPECT_FALSE(fs::exists(t / "a2.st"));
  EXPECT_FALSE(fs::exists(t / "b2.st"));
  EXPECT_TRUE(fs::is_symlink(t / "to-b2.st"));
}

// B. A command that fails saves no state: a replay that stops at a malformed trace line halfway
// exits 2 and leaves the state file as it was (and creates none).
TEST(SafetyState, AFailedReplaySavesNoState) {
  TempDir t;
  std::string csv;
  for (int i = 0; i < 200; ++i) csv += "0,W," + std::to_string(i * 65536) + ",65536,10\n";
  csv += "0,X,0,4096,30\n";  // malformed
  for (int i = 0; i < 10; ++i) csv += "0,W," + std::to_string(i * 4096) + ",4096,10\n";
  WriteText(t / "bad.csv", csv);

  const std::string state = t / "drive.st";
  ASSERT_EQ(RunSsdlab({"run", "--target", "sim:tiny?state=" + state, "--rw", "randwrite",
                       "--runtime", "50ms"})
                .exit_code,
            0);
  const std::string before = ReadFile(state);
  Proc p = RunSsdlab({"replay", t / "bad.csv", "--target", "sim:tiny?state=" + state});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_TRUE(Has(p.err, t / "bad.csv:201")) << p.err;
  EXPECT_EQ(ReadFile(state), before) << "a failed replay saved its partial drive";

  Proc fresh = RunSsdlab({"replay", t / "bad.csv", "--target", "sim:tiny?state=" + (t / "new.st"),
                          "--db", t / "r.db", "--run", "rep"});
  EXPECT_EQ(fresh.exit_code, 2) << fresh.err;
  EXPECT_FALSE(fs::exists(t / "new.st")) << "a failed replay created a state";
  // The same replay with the bad line skipped ends well and saves.
  Proc good = RunSsdlab(
      {"replay", t / "bad.csv", "--target", "sim:tiny?state=" + state, "--skip-bad", "1"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(ReadFile(state), before);
}

// C. Resume compares the simulated drive's parameters: an edited preset file is another drive,
// even at the same size; the unedited one resumes, also with a state (whose origin, "new" then
// "loaded", is not the drive's identity).
TEST(SafetyState, ResumeRefusesAnEditedPresetFile) {
  TempDir t;
  const std::string preset = t / "drive.toml";
  WriteText(preset, "base = \"tiny\"\ncmd_us = 33\n");
  const std::vector<std::string> targets = {"sim:" + preset,
                                            "sim:" + preset + "?state=" + (t / "d.st")};
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string run = "r" + std::to_string(i);
    Proc pts = RunSsdlab(
        {"pts",     "--target",     targets[i],  "--db",   t / "r.db",     "--run",      run,
         "--tests", "iops",         "--iops-bs", "4KiB",   "--iops-mixes", "0/100",      "--round",
         "50ms",    "--max-rounds", "5",         "--wipc", "0.1x",         "--progress", "none"});
    ASSERT_EQ(pts.exit_code, 0) << pts.err;
    Exec(t / "r.db", "UPDATE runs SET status='interrupted' WHERE name='" + run + "'");
    if (i == 0) {
      WriteText(preset, "base = \"tiny\"\ncmd_us = 40\n");
      Proc edited = RunSsdlab({"pts", "--db", t / "r.db", "--resume", run, "--progress", "none"});
      EXPECT_EQ(edited.exit_code, 2) << edited.err;
      ExpectOneLineError(edited, "--resume r0: the target's parameter cmd_us was 33 and is now 40");
      WriteText(preset, "base = \"tiny\"\ncmd_us = 33\n");
    }
    Proc same = RunSsdlab({"pts", "--db", t / "r.db", "--resume", run, "--progress", "none"});
    EXPECT_EQ(same.exit_code, 0) << targets[i] << ": " << same.err;
  }
}

// D. A state behind a symlink is saved through it: the link stays a link, its target is updated;
// also a link made before its target exists.
TEST(SafetyState, SavingThroughASymlinkKeepsTheLink) {
  TempDir t;
  fs::create_directory(t / "real");
  auto write = [&](const std::string& state, const std::string& range) {
    Proc p = RunSsdlab({"run", "--target", "sim:tiny?state=" + state, "--rw", "write", "--range",
                        range, "--bs", "128KiB"});
    EXPECT_EQ(p.exit_code, 0) << p.err;
  };
  auto fill_pct = [&](const std::string& state) {
    Proc p = RunSsdlab({"info", "--target", "sim:tiny?state=" + state, "--json"});
    return json::parse(p.out)["state"]["fill_pct"].get<double>();
  };
  write(t / "real/a.st", "0%-20%");  // an existing state, then linked to
  fs::create_symlink("real/a.st", t / "a-link.st");
  write(t / "a-link.st", "20%-40%");
  EXPECT_TRUE(fs::is_symlink(t / "a-link.st")) << "the symlink was replaced by a file";
  EXPECT_NEAR(fill_pct(t / "real/a.st"), 40.0, 0.5) << "the symlink's target went stale";

  fs::create_symlink("real/b.st", t / "b-link.st");  // dangling until the first save
  write(t / "b-link.st", "0%-20%");
  EXPECT_TRUE(fs::is_symlink(t / "b-link.st"));
  ASSERT_TRUE(fs::is_regular_file(t / "real/b.st"));
  EXPECT_NEAR(fill_pct(t / "real/b.st"), 20.0, 0.5);
}

// E. The damaged-state message names what works, and it works: purge --destructive replaces a
// damaged state of ssdlab's; a foreign file, or a state of other parameters, is never replaced.
TEST(SafetyState, PurgeResetsTheDamagedStateItsMessageSuggests) {
  TempDir t;
  const std::string state = t / "drive.st";
  const std::string target = "sim:tiny?state=" + state;
  ASSERT_EQ(RunSsdlab({"run", "--target", target, "--rw", "write", "--bs", "1MiB"}).exit_code, 0);
  const std::string whole = ReadFile(state);
  WriteText(state, whole.substr(0, whole.size() / 2));

  Proc run = RunSsdlab({"run", "--target", target, "--runtime", "10ms"});
  EXPECT_EQ(run.exit_code, 2);
  ExpectOneLineError(run, "is damaged or truncated");
  EXPECT_TRUE(Has(run.err, "`ssdlab purge --destructive` on this target resets it")) << run.err;
  Proc dry = RunSsdlab({"purge", "--target", target, "--dry-run", "--json"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_TRUE(json::parse(dry.out)["allowed"].get<bool>()) << dry.out;
  Proc purge = RunSsdlab({"purge", "--target", target, "--destructive"});
  EXPECT_EQ(purge.exit_code, 0) << purge.err;
  EXPECT_TRUE(Has(purge.out, "it was damaged: its wear is lost")) << purge.out;
  Proc again = RunSsdlab({"run", "--target", target, "--rw", "randread", "--runtime", "10ms"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Has(again.out, "loaded")) << again.out;

  // Not ssdlab's to replace: a foreign file, a whole state made for other parameters.
  WriteText(t / "foreign.st", "my notes\n");
  Proc foreign =
      RunSsdlab({"purge", "--target", "sim:tiny?state=" + (t / "foreign.st"), "--destructive"});
  EXPECT_EQ(foreign.exit_code, 2);
  ExpectOneLineError(foreign, "is not an ssdlab simulator state");
  EXPECT_EQ(ReadFile(t / "foreign.st"), "my notes\n");
  const std::string good = ReadFile(state);
  Proc other = RunSsdlab({"purge", "--target", "sim:tiny?op=20&state=" + state, "--destructive"});
  EXPECT_EQ(other.exit_code, 2);
  ExpectOneLineError(other, "was made for op=12.5, this target has op=20");
  EXPECT_EQ(ReadFile(state), good);
}

}  // namespace
}  // namespace ssdlab::test
