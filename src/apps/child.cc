#include "apps/child.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>

#include "base/clock.h"
#include "base/process.h"

namespace ssdlab {
namespace {

constexpr uint64_t kPollNs = 20'000'000;

int DecodeStatus(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

void SleepNs(uint64_t ns) {
  struct timespec ts = {static_cast<time_t>(ns / 1'000'000'000),
                        static_cast<long>(ns % 1'000'000'000)};
  nanosleep(&ts, nullptr);
}

}  // namespace

Result<RunAs> ServerUser(const std::string& name) {
  RunAs r;
  if (geteuid() != 0) return r;
  struct passwd* pw = getpwnam(name.c_str());
  if (pw == nullptr) {
    return Status::NotFound(
        "ssdlab runs as root and the server must run as the unprivileged user '" + name +
        "', which does not exist (it comes with the server's package)");
  }
  r.name = name;
  r.uid = pw->pw_uid;
  r.gid = pw->pw_gid;
  return r;
}

Result<Child> Child::Spawn(const std::vector<std::string>& argv, const SpawnOptions& options,
                           const std::string& package) {
  std::string exe = FindTool(argv.at(0));
  if (exe.empty()) {
    return Status::Error(Code::kUnsupported, argv[0] + " not found; install " + package +
                                                 " (apt-get install " + package + ")");
  }
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args[0] = const_cast<char*>(exe.c_str());
  args.push_back(nullptr);
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
  for (const std::string& e : options.env) env_store.push_back(e);
  std::vector<char*> envp;
  envp.reserve(env_store.size() + 1);
  for (const std::string& e : env_store) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int log_fd = open(options.log_path.empty() ? "/dev/null" : options.log_path.c_str(),
                    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return Status::Io("cannot open log " + options.log_path + ": " + strerror(errno));
  if (!options.user.name.empty() && fchown(log_fd, options.user.uid, options.user.gid) != 0) {
    // A log the server cannot reopen is harmless: it writes through the inherited descriptor.
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(log_fd);
    return Status::Io(std::string("fork: ") + strerror(e));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    if (!options.user.name.empty()) {
      if (setgroups(0, nullptr) != 0 || setgid(options.user.gid) != 0 ||
          setuid(options.user.uid) != 0)
        _exit(126);
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // cleared by the change of credentials
    }
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(log_fd);
  setpgid(pid, pid);  // also here, so a signal sent right away reaches the group
  Child c;
  c.pid_ = pid;
  c.name_ = argv[0];
  return c;
}

Child& Child::operator=(Child&& o) noexcept {
  if (this != &o) {
    if (pid_ > 0) Terminate(SIGKILL, 0);
    pid_ = o.pid_;
    status_ = o.status_;
    name_ = std::move(o.name_);
    o.pid_ = -1;
  }
  return *this;
}

Child::~Child() {
  if (pid_ > 0) Terminate(SIGKILL, 0);
}

bool Child::running() {
  if (pid_ <= 0 || status_) return false;
  int st = 0;
  pid_t r = waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    status_ = DecodeStatus(st);
    // The leader is gone; what it forked (a server's helpers) goes with the group.
    kill(-pid_, SIGKILL);
    return false;
  }
  return r == 0;
}

Status Child::Wait(uint64_t timeout_ns, const std::atomic<bool>* stop) {
  const uint64_t start = MonotonicNs();
  while (running()) {
    if (stop && stop->load()) return Status::Error(Code::kInterrupted, "interrupted");
    if (timeout_ns && MonotonicNs() - start > timeout_ns)
      return Status::Io(name_ + " did not finish within " +
                        std::to_string(timeout_ns / 1'000'000'000) + " s");
    SleepNs(kPollNs);
  }
  return Status::Ok();
}

int Child::Terminate(int sig, uint64_t grace_ns) {
  if (pid_ <= 0) return status_.value_or(-1);
  if (running()) {
    kill(-pid_, sig);
    const uint64_t start = MonotonicNs();
    while (running() && MonotonicNs() - start < grace_ns) SleepNs(kPollNs);
    if (running()) {
      kill(-pid_, SIGKILL);
      int st = 0;
      if (waitpid(pid_, &st, 0) == pid_) status_ = DecodeStatus(st);
    }
  }
  kill(-pid_, SIGKILL);  // stragglers of the group
  pid_ = -1;
  return status_.value_or(-1);
}

Status RunToCompletion(const std::vector<std::string>& argv, const SpawnOptions& options,
                       const std::string& package, uint64_t timeout_ns,
                       const std::atomic<bool>* stop) {
  SSDLAB_ASSIGN_OR_RETURN(Child c, Child::Spawn(argv, options, package));
  Status s = c.Wait(timeout_ns, stop);
  if (!s.ok()) {
    c.Terminate(SIGTERM, 5'000'000'000);
    return s.code() == Code::kInterrupted ? s : s.WithContext(JoinArgv(argv));
  }
  if (*c.exit_code() != 0) {
    return Status::Io(argv[0] + " failed (exit " + std::to_string(*c.exit_code()) +
                      "): " + LogTail(options.log_path, 3));
  }
  return Status::Ok();
}

std::string LogTail(const std::string& path, int max_lines) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    lines.push_back(line);
    if (static_cast<int>(lines.size()) > max_lines) lines.pop_front();
  }
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : " | ") + l;
  return out;
}

namespace {

Result<int> BindLoopback(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Io(std::string("socket: ") + strerror(errno));
  struct sockaddr_in a {};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    int e = errno;
    close(fd);
    if (e == EADDRINUSE)
      return Status::Invalid("port " + std::to_string(port) + " on 127.0.0.1 is already in use");
    return Status::Io("bind 127.0.0.1:" + std::to_string(port) + ": " + strerror(e));
  }
  return fd;
}

}  // namespace

Result<uint16_t> FreeLoopbackPort() {
  SSDLAB_ASSIGN_OR_RETURN(int fd, BindLoopback(0));
  struct sockaddr_in a {};
  socklen_t len = sizeof a;
  int r = getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  if (r != 0) return Status::Io(std::string("getsockname: ") + strerror(errno));
  return ntohs(a.sin_port);
}

Status CheckLoopbackPortFree(uint16_t port) {
  SSDLAB_ASSIGN_OR_RETURN(int fd, BindLoopback(port));
  close(fd);
  return Status::Ok();
}

}  // namespace ssdlab
