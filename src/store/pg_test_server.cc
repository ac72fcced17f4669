#include "store/pg_test_server.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

// The newest packaged PostgreSQL's bin directory, "" when none.
std::string FindBin() {
  std::string best;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(e.path() / "bin/postgres") && fs::exists(e.path() / "bin/initdb") &&
        e.path().string() > best)
      best = e.path().string();
  }
  return best.empty() ? "" : best + "/bin";
}

// Forks argv as `uid` (when root) with output appended to `log`; returns its pid.
pid_t Spawn(const std::vector<std::string>& argv, const passwd* as, const std::string& log) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
  }
  if (as && (setgid(as->pw_gid) != 0 || setuid(as->pw_uid) != 0)) _exit(126);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 600 ? s.substr(s.size() - 600) : s;
}

}  // namespace

Result<std::unique_ptr<PgTestServer>> PgTestServer::Start() {
  // The test process opens the server's databases through the build's plugin (Store::Open);
  // its ssdlab children inherit the same directory, the one the build's binary looks in.
  setenv("SSDLAB_PLUGIN_DIR", SSDLAB_BUILD_PLUGIN_DIR, 0);
  const std::string bin = FindBin();
  if (bin.empty())
    return Status::Error(
        Code::kUnsupported,
        "no PostgreSQL server binaries in /usr/lib/postgresql (install the postgresql package)");
  const passwd* as = nullptr;
  if (geteuid() == 0) {
    as = getpwnam("postgres");
    if (!as)
      return Status::Error(Code::kUnsupported, "running as root and there is no postgres account");
  }
  static int counter = 0;
  fs::path dir = fs::temp_directory_path() /
                 ("ssdlab_pg_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (as && chown(dir.c_str(), as->pw_uid, as->pw_gid) != 0)
    return Status::Io("cannot give " + dir.string() + " to the postgres account");
  std::unique_ptr<PgTestServer> s(new PgTestServer(dir.string(), bin));
  const std::string log = s->dir_ + "/server.log";
  pid_t init = Spawn({bin + "/initdb", "-D", s->dir_ + "/data", "-A", "trust", "-U", "ssdlab", "-E",
                      "UTF8", "--no-locale", "--no-sync"},
                     as, log);
  int status = 0;
  waitpid(init, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::Io("initdb failed: " + Tail(log));
  s->pid_ = Spawn(
      {bin + "/postgres", "-D", s->dir_ + "/data", "-k", s->dir_, "-c", "listen_addresses=", "-c",
       "fsync=off", "-c", "max_connections=40", "-c", "dynamic_shared_memory_type=mmap"},
      as, log);
  const std::string url = s->Url("postgres");
  for (int i = 0; i < 600; ++i) {
    if (PQping(url.c_str()) == PQPING_OK) return s;
    if (waitpid(s->pid_, &status, WNOHANG) == s->pid_) {
      s->pid_ = -1;
      return Status::Io("the PostgreSQL server exited: " + Tail(log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::Io("the PostgreSQL server did not come up in 30 s: " + Tail(log));
}

PgTestServer::~PgTestServer() {
  if (pid_ > 0) {
    kill(pid_, SIGINT);  // fast shutdown: disconnects clients
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string PgTestServer::Url(const std::string& db) const {
  return "postgresql://ssdlab@/" + db + "?host=" + dir_;
}

Result<std::string> PgTestServer::NewDatabase(const std::string& name) {
  PGconn* c = PQconnectdb(Url("postgres").c_str());
  PGresult* r = PQexec(c, ("CREATE DATABASE \"" + name + "\"").c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  std::string msg = PQerrorMessage(c);
  PQclear(r);
  PQfinish(c);
  if (!ok) return Status::Io("CREATE DATABASE " + name + ": " + msg);
  return Url(name);
}

}  // namespace ssdlab
