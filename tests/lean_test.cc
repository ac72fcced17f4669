// Issue 48, the lean binary: libmpi and libpq (with Kerberos, LDAP, TLS behind them) are loaded
// only by the commands that need them, from plugins beside the binary (base/plugin.h); a
// command that needs a missing plugin says so in one line. The libraries a process loaded are
// read from the dynamic loader's own log (LD_DEBUG=libs), dlopen'ed ones included.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;

// The libraries of the heavy dependencies: Open MPI's and libpq's own, and what libpq brings.
const char* const kHeavy[] = {"libmpi.so", "libopen-pal.so", "libopen-rte.so",
                              "libpq.so",  "libssl.so",      "libgssapi_krb5.so",
                              "libldap",   "ssdlab-pg.so",   "ssdlab-mpi.so"};

// Runs `command` (a shell command line whose ssdlab processes inherit LD_DEBUG) and returns the
// file names of the shared libraries every process of it initialised.
std::set<std::string> LoadedLibraries(const TempDir& t, const std::string& command,
                                      Proc* p = nullptr) {
  const std::string log = t / "ld";
  fs::create_directories(log);
  Proc local;
  Proc& run = p ? *p : local;
  run.exit_code = Shell(command, &run.out);
  std::set<std::string> libs;
  for (const auto& f : fs::directory_iterator(log)) {
    std::istringstream in(ReadFile(f.path()));
    for (std::string line; std::getline(in, line);)
      if (size_t at = line.find("calling init: "); at != std::string::npos)
        libs.insert(fs::path(line.substr(at + 14)).filename().string());
  }
  fs::remove_all(log);
  return libs;
}

std::string Env(const TempDir& t) {
  return "env -u SSDLAB_PLUGIN_DIR LD_DEBUG=libs LD_DEBUG_OUTPUT='" + t / "ld/ld" + "' ";
}

std::string Heavy(const std::set<std::string>& libs) {
  std::string found;
  for (const std::string& lib : libs)
    for (const char* heavy : kHeavy)
      if (Has(lib, heavy)) found += lib + " ";
  return found;
}

std::string List(const std::set<std::string>& libs) {
  std::string s;
  for (const std::string& lib : libs) s += lib + " ";
  return s;
}

const std::string kPts =
    " pts --target sim:tiny --run r --tests iops --iops-bs 4KiB --iops-mixes 100/0,0/100 "
    "--round 20ms --progress none";

TEST(Lean, RunAndPtsOnTheSimulatorLoadNeitherMpiNorPostgres) {
  TempDir t;
  Proc p;
  auto run = LoadedLibraries(
      t, Env(t) + SSDLAB_BINARY + " run --target sim:tiny --rw randread --runtime 200ms 2>&1", &p);
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_GE(run.size(), 5u) << "the loader's log was not read: " << List(run);
  EXPECT_EQ(Heavy(run), "") << "run loaded: " << List(run);
  std::cout << "run --target sim:tiny: " << run.size() << " libraries: " << List(run) << "\n";
  auto pts =
      LoadedLibraries(t, Env(t) + SSDLAB_BINARY + kPts + " --db '" + t / "r.db" + "' 2>&1", &p);
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_EQ(Heavy(pts), "") << "pts loaded: " << List(pts);
  std::cout << "pts --target sim:tiny: " << pts.size() << " libraries\n";
}

// A postgresql:// URL opens the PostgreSQL plugin, hence libpq (here refused by a server that
// is not there: the library is loaded before the connection is tried).
TEST(Lean, APostgresUrlLoadsThePostgresPluginOnly) {
  TempDir t;
  Proc p;
  auto ls = LoadedLibraries(t,
                            Env(t) + SSDLAB_BINARY + " ls --db 'postgresql://nobody@/none?host=" +
                                t / "nosocket" + "' 2>&1",
                            &p);
  EXPECT_EQ(p.exit_code, 3) << p.out;
  EXPECT_TRUE(ls.count("ssdlab-pg.so")) << List(ls);
  EXPECT_TRUE(ls.count("libpq.so.5")) << List(ls);
  EXPECT_FALSE(ls.count("libmpi.so.40")) << List(ls);
}

// Under mpirun the MPI plugin is opened, and the run completes through it.
TEST(Lean, AnMpiRunLoadsTheMpiPlugin) {
  if (Shell("command -v mpirun >/dev/null") != 0) GTEST_SKIP() << "no mpirun";
  TempDir t;
  Proc p;
  auto mpi =
      LoadedLibraries(t,
                      "mpirun --allow-run-as-root --oversubscribe -n 2 " + Env(t) + SSDLAB_BINARY +
                          " run --mpi --target 'sim:tiny?seed=%r' --rw randread "
                          "--runtime 200ms 2>&1",
                      &p);
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_TRUE(mpi.count("ssdlab-mpi.so")) << List(mpi);
  EXPECT_TRUE(mpi.count("libmpi.so.40")) << List(mpi);
  EXPECT_FALSE(mpi.count("libpq.so.5")) << List(mpi);
}

// A binary without its plugins (here a link to it in a directory of its own) runs everything
// but PostgreSQL stores and MPI; those fail in one line naming the plugin's path (exit 3).
TEST(Lean, AMissingPluginIsOneLineNamingItsPathAndWhatToInstall) {
  TempDir t;
  fs::create_directories(t / "bin");
  const std::string bin = t / "bin/ssdlab";
  std::error_code ec;
  fs::create_hard_link(SSDLAB_BINARY, bin, ec);
  if (ec) fs::copy_file(SSDLAB_BINARY, bin);
  const std::string env = "env -u SSDLAB_PLUGIN_DIR ";
  std::string out;
  ASSERT_EQ(Shell(env + bin + " run --target sim:tiny --rw randread --runtime 200ms 2>&1", &out), 0)
      << out;

  Proc pg;
  pg.exit_code = Shell(env + bin + " ls --db postgresql://nobody@/none 2>&1", &pg.out);
  EXPECT_EQ(pg.exit_code, 3) << pg.out;
  EXPECT_EQ(CountLines(pg.out), 1) << pg.out;
  EXPECT_TRUE(
      Has(pg.out, "need the plugin " + t / "lib/ssdlab/ssdlab-pg.so" + ", which is missing"))
      << pg.out;
  EXPECT_TRUE(Has(pg.out, "libpq5")) << pg.out;

  if (Shell("command -v mpirun >/dev/null") != 0) GTEST_SKIP() << "no mpirun";
  Proc mpi;
  mpi.exit_code = Shell("mpirun --allow-run-as-root -n 1 " + env + bin +
                            " run --mpi --target sim:tiny --rw randread --runtime 200ms 2>&1",
                        &mpi.out);
  EXPECT_EQ(mpi.exit_code, 3) << mpi.out;
  EXPECT_TRUE(
      Has(mpi.out, "need the plugin " + t / "lib/ssdlab/ssdlab-mpi.so" + ", which is missing"))
      << mpi.out;
}

// Completion, generated from the command-line definitions (`ssdlab completion bash|zsh`): the
// bash script completes commands, subcommands and options as bash calls it; every command and
// subcommand of the manual pages (written by the same binary) is in both scripts.
// Runs in the script's directory, so that file names offered where nothing else fits are the
// test's own (the script and what the test writes), not those of the caller's directory.
std::string BashComplete(const std::string& script, const std::string& words, int cword) {
  std::string out;
  EXPECT_EQ(Shell("cd \"" + fs::path(script).parent_path().string() + "\" && bash -c 'source \"" +
                      script + "\"; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                      std::to_string(cword) + "; _ssdlab; echo \"${COMPREPLY[*]}\"' 2>&1",
                  &out),
            0)
      << out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(Completion, BashCompletesCommandsSubcommandsAndOptions) {
  TempDir t;
  Proc p = RunSsdlab({"completion", "bash", "-o", t / "ssdlab"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const std::string script = t / "ssdlab";
  EXPECT_EQ(BashComplete(script, "ssdlab pt", 1), "pts");
  EXPECT_EQ(BashComplete(script, "ssdlab run --q", 2), "--qd");
  EXPECT_EQ(BashComplete(script, "ssdlab sim pre", 2), "presets");
  EXPECT_EQ(BashComplete(script, "ssdlab sim presets --lo", 3), "--long");
  EXPECT_EQ(BashComplete(script, "ssdlab db copy --fr", 3), "--from");
  // After an option taking a value: files, not subcommands.
  std::ofstream(t / "trace.blk") << "x";
  EXPECT_EQ(BashComplete(script, "ssdlab pts --db " + t / "trace.b", 3), t / "trace.blk");
  // Hidden commands are not offered.
  EXPECT_EQ(BashComplete(script, "ssdlab ma", 1), "");
}

TEST(Completion, EveryCommandOfTheManualPagesIsInBothScripts) {
  TempDir t;
  ASSERT_EQ(RunSsdlab({"man", "--dir", t / "man"}).exit_code, 0);
  Proc bash = RunSsdlab({"completion", "bash"});
  Proc zsh = RunSsdlab({"completion", "zsh"});
  ASSERT_EQ(bash.exit_code, 0) << bash.err;
  ASSERT_EQ(zsh.exit_code, 0) << zsh.err;
  EXPECT_TRUE(Has(zsh.out, "#compdef ssdlab\n"));
  int commands = 0, subcommands = 0;
  for (const auto& f : fs::directory_iterator(t / "man")) {
    const std::string page = f.path().stem().string();  // ssdlab-pts
    if (page == "ssdlab") continue;
    const std::string command = "ssdlab " + page.substr(7);
    ++commands;
    EXPECT_TRUE(Has(bash.out, "\"" + command + "\") ")) << command;
    EXPECT_TRUE(Has(zsh.out, "(\"" + command + "\")")) << command;
    // Its subcommands: the page's sections, ".SS "ssdlab sim presets"".
    std::istringstream in(ReadFile(f.path()));
    for (std::string line; std::getline(in, line);)
      if (line.rfind(".SS \"", 0) == 0) {
        const std::string sub = line.substr(5, line.size() - 6);
        ++subcommands;
        EXPECT_TRUE(Has(bash.out, "\"" + sub + "\") ")) << sub;
        EXPECT_TRUE(Has(zsh.out, "(\"" + sub + "\")")) << sub;
      }
  }
  EXPECT_GE(commands, 15);
  EXPECT_GE(subcommands, 8);  // sim's five, trace's two, db's one
}

}  // namespace
}  // namespace ssdlab::test
