// End-to-end tests of `ssdlab app`: each app starts its private server on a directory of a
// temporary area, runs a few seconds, stores TPS and latency percentiles, and leaves no process,
// port or data directory behind, also when interrupted or when its server is killed part-way.
// Nothing here depends on timing: waits are for conditions (a progress line, an exit).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A directory the servers' unprivileged users can enter.
struct AppDir {
  TempDir t;
  AppDir() { chmod(t.path().c_str(), 0755); }
  std::string operator/(const std::string& n) const { return t / n; }
  std::string dir() const { return t.path().string(); }
};

std::vector<std::string> Small(const std::string& app) {
  if (app == "pgbench") return {"--threads", "2", "--scale", "1", "--buffer", "16MiB"};
  return {"--threads", "2", "--tables", "1", "--rows", "2000", "--buffer", "16MiB"};
}

std::vector<std::string> Cmd(const AppDir& d, const std::string& app, const std::string& run,
                             const std::string& time, std::vector<std::string> more = {}) {
  std::vector<std::string> a = {"app",      app,     "--dir",    d.dir(),  "--db",
                                d / "r.db", "--run", run,        "--json", d / (run + ".json"),
                                "--time",   time,    "--warmup", "0"};
  for (const std::string& s : Small(app)) a.push_back(s);
  for (const std::string& s : more) a.push_back(s);
  return a;
}

std::string RunStatus(const std::string& db_path, const std::string& run) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    std::string sql = "SELECT kind || ':' || status FROM runs WHERE name='" + run + "'";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

// Processes whose working directory or command line lies in one of `paths`.
std::vector<int> ProcessesIn(const std::vector<std::string>& paths) {
  std::vector<int> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    int pid = std::atoi(e.path().filename().c_str());
    if (pid <= 0) continue;
    std::string cwd = fs::read_symlink(e.path() / "cwd", ec).string();
    std::string cmd = ReadFile(e.path() / "cmdline");
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    for (const std::string& p : paths) {
      if (p.empty()) continue;
      if (cwd.rfind(p, 0) == 0 || cmd.find(p) != std::string::npos) found.push_back(pid);
    }
  }
  return found;
}

bool PortFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a {};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// PostgreSQL's dynamic shared memory segments in /dev/shm (none of ours may appear there).
std::set<std::string> ShmSegments() {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev/shm", ec))
    if (e.path().filename().string().rfind("PostgreSQL.", 0) == 0) out.insert(e.path());
  return out;
}

// Nothing of the run is left: no process in its directories, its port free, its directories
// gone, no shared memory segment in /dev/shm.
void ExpectNothingLeft(const json& settings, const std::set<std::string>& shm_before) {
  for (const std::string& s : ShmSegments()) EXPECT_TRUE(shm_before.count(s)) << s;
  const std::string data = settings["data_dir"].get<std::string>();
  const std::string run = settings["run_dir"].get<std::string>();
  EXPECT_TRUE(ProcessesIn({data, run}).empty()) << data;
  EXPECT_TRUE(PortFree(settings["port"].get<int>()));
  EXPECT_FALSE(fs::exists(data));
  EXPECT_FALSE(fs::exists(run));
}

const json& Results(const json& doc) { return doc["tests"][0]["results"]; }

class AppTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AppTest, RunsStoresAndCleansUp) {
  AppDir d;
  const auto shm = ShmSegments();
  Proc p = RunSsdlab(Cmd(d, GetParam(), "r1", "2s"));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(RunStatus(d / "r.db", "r1"), "app:done");
  json doc = ReadJson(d / "r1.json");
  // The document as docs/schema/results.schema.json defines an app run.
  std::string schema_out;
  EXPECT_EQ(Shell(std::string(SSDLAB_PYTHON) + " " + SSDLAB_SOURCE_DIR +
                      "/scripts/check_schema.py --doc app " + d / "r1.json" + " " +
                      SSDLAB_SOURCE_DIR + "/docs/schema/results.schema.json",
                  &schema_out),
            0)
      << schema_out;
  EXPECT_EQ(doc["tests"][0]["name"], GetParam());
  EXPECT_EQ(doc["tests"][0]["status"], "done");
  const json& r = Results(doc);
  EXPECT_TRUE(r["complete"].get<bool>());
  EXPECT_GT(r["tps"].get<double>(), 0);
  EXPECT_GT(r["transactions"].get<uint64_t>(), 0u);
  const json& l = r["latency_ms"];
  ASSERT_TRUE(l["p95"].is_number() && l["p99"].is_number()) << l.dump();
  EXPECT_GT(l["p95"].get<double>(), 0);
  EXPECT_GE(l["p99"].get<double>(), l["p95"].get<double>());
  EXPECT_GE(l["max"].get<double>() * 1.01, l["p99"].get<double>());
  EXPECT_GT(l["samples"].get<uint64_t>(), 0u);
  EXPECT_FALSE(r["per_second"].empty());
  // The settings: versions, the configuration passed, and the scale.
  const json& s = r["settings"];
  EXPECT_FALSE(s["server"].get<std::string>().empty());
  EXPECT_FALSE(s["client"].get<std::string>().empty());
  EXPECT_FALSE(s["server_config"].empty());
  EXPECT_FALSE(s["client_command"].get<std::string>().empty());
  // The directory is on the build's disk: the device side was sampled.
  if (doc["context"]["device"]["disk"].is_object()) {
    ASSERT_TRUE(r["device"].is_object());
    EXPECT_FALSE(r["device"]["per_second"].empty());
  }
  ExpectNothingLeft(s, shm);
}

// Interrupted (SIGINT) once the measured run reports: exit 130, the seconds so far are stored.
TEST_P(AppTest, InterruptKeepsWhatWasMeasured) {
  AppDir d;
  const auto shm = ShmSegments();
  pid_t pid = StartSsdlab(Cmd(d, GetParam(), "r2", "600s"), d / "out", d / "err");
  const std::string mark = GetParam() == "pgbench" ? "progress: 2" : "[ 2s ]";
  while (ReadFile(d / "err").find(mark) == std::string::npos) {
    ASSERT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << ReadFile(d / "err");
    usleep(20000);
  }
  kill(pid, SIGINT);
  EXPECT_EQ(Wait(pid), 130) << ReadFile(d / "err");
  EXPECT_EQ(RunStatus(d / "r.db", "r2"), "app:interrupted");
  json doc = ReadJson(d / "r2.json");
  const json& r = Results(doc);
  EXPECT_FALSE(r["complete"].get<bool>());
  EXPECT_GE(r["per_second"].size(), 2u);
  EXPECT_GT(r["tps"].get<double>(), 0);
  ExpectNothingLeft(r["settings"], shm);
}

// A forced failure: the server is killed part-way. Exit 3 naming the server; nothing left.
TEST_P(AppTest, ServerKilledPartWay) {
  AppDir d;
  const auto shm = ShmSegments();
  pid_t pid = StartSsdlab(Cmd(d, GetParam(), "r3", "600s"), d / "out", d / "err");
  const std::string mark = GetParam() == "pgbench" ? "progress: 1" : "[ 1s ]";
  while (ReadFile(d / "err").find(mark) == std::string::npos) {
    ASSERT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << ReadFile(d / "err");
    usleep(20000);
  }
  // The server is the process whose command line names the data directory.
  std::vector<int> server;
  for (const auto& e : fs::directory_iterator(d.dir())) {
    if (e.path().filename().string().rfind("ssdlab-" + GetParam(), 0) == 0) {
      for (int p : ProcessesIn({(e.path() / "data").string()})) {
        std::string cmd = ReadFile("/proc/" + std::to_string(p) + "/cmdline");
        if (cmd.find("defaults-file") != std::string::npos || cmd.find("-D") != std::string::npos)
          server.push_back(p);
      }
    }
  }
  ASSERT_FALSE(server.empty());
  for (int p : server) kill(p, SIGKILL);
  EXPECT_EQ(Wait(pid), 3);
  std::string err = ReadFile(d / "err");
  EXPECT_NE(err.find("server exited"), std::string::npos) << err;
  EXPECT_EQ(RunStatus(d / "r.db", "r3"), "app:failed");
  json doc = ReadJson(d / "r3.json");
  EXPECT_FALSE(Results(doc)["per_second"].empty());
  EXPECT_FALSE(Results(doc)["error"].get<std::string>().empty());
  ExpectNothingLeft(Results(doc)["settings"], shm);
}

INSTANTIATE_TEST_SUITE_P(Apps, AppTest, ::testing::Values("sysbench-oltp", "pgbench"),
                         [](const auto& info) {
                           return info.param == "pgbench" ? std::string("pgbench")
                                                          : std::string("sysbench");
                         });

// Bad input: one line, exit 2, no run stored, nothing started.
TEST(AppBadInput, OneLineErrorsExit2) {
  AppDir d;
  auto expect = [&](std::vector<std::string> args, const std::string& what) {
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 2) << what << ": " << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
    EXPECT_NE(p.err.find(what), std::string::npos) << p.err;
  };
  const std::string db = d / "bad.db";
  expect({"app", "nosuch", "--dir", d.dir(), "--db", db}, "unknown app 'nosuch'");
  expect({"app", "pgbench", "--dir", d / "missing", "--db", db}, "does not exist");
  expect({"app", "pgbench", "--dir", d.dir(), "--db", db, "--scale", "10000000"}, "free");
  expect({"app", "sysbench-oltp", "--dir", d.dir(), "--db", db, "--server-bin",
          "/nonexistent/mariadbd"},
         "/nonexistent/mariadbd");
  expect({"app", "pgbench", "--dir", d.dir(), "--db", db, "--threads", "zero"}, "--threads");
  expect({"app", "pgbench", "--dir", d.dir(), "--db", db, "--time", "5 parsecs"}, "--time");
  // A port already taken.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  expect(
      {"app", "pgbench", "--dir", d.dir(), "--db", db, "--port", std::to_string(ntohs(a.sin_port))},
      "already in use");
  close(fd);
  // A directory no drive can be named for (tmpfs), without --any-dir.
  struct stat st;
  if (stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0)
    expect({"app", "pgbench", "--dir", "/dev/shm", "--db", db}, "--any-dir");
  // Nothing was stored and nothing of ours was created.
  EXPECT_EQ(RunStatus(db, "x"), "");
  for (const auto& e : fs::directory_iterator(d.dir()))
    EXPECT_EQ(e.path().filename().string().rfind("ssdlab-", 0), std::string::npos) << e.path();
}

}  // namespace
}  // namespace ssdlab::test
