#include "base/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "base/strings.h"

namespace ssdlab {

std::string FindTool(const std::string& tool) {
  if (tool.find('/') != std::string::npos) return access(tool.c_str(), X_OK) == 0 ? tool : "";
  std::string dirs;
  if (const char* p = std::getenv("PATH")) dirs = p;
  dirs += ":/usr/sbin:/sbin:/usr/bin:/bin";
  for (const std::string& dir : SplitNonEmpty(dirs, ':')) {
    std::string cand = dir + "/" + tool;
    if (access(cand.c_str(), X_OK) == 0) return cand;
  }
  return "";
}

std::string JoinArgv(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv, uint64_t timeout_s,
                                 const std::string& package) {
  if (argv.empty()) return Status::Error(Code::kInternal, "RunProcess: empty argv");
  std::string exe = FindTool(argv[0]);
  if (exe.empty()) {
    return Status::Error(Code::kUnsupported, argv[0] + " not found; install " + package +
                                                 " (apt-get install " + package + ")");
  }
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return Status::Io(std::string("pipe: ") + strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return Status::Io(std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Status::Io(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    // C locale: the parsers read English output with '.' decimals.
    setenv("LC_ALL", "C", 1);
    execv(exe.c_str(), args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProcessResult r;
  auto start = std::chrono::steady_clock::now();
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool timed_out = false;
  char buf[65536];
  while (open_fds > 0) {
    int wait_ms = -1;
    if (timeout_s) {
      auto elapsed = std::chrono::steady_clock::now() - start;
      auto left = std::chrono::seconds(timeout_s) - elapsed;
      if (left <= std::chrono::seconds(0)) {
        timed_out = true;
        break;
      }
      wait_ms =
          static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(left).count()) + 1;
    }
    int n = poll(fds, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (timed_out) kill(pid, SIGKILL);
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return Status::Io(argv[0] + " did not finish within " + std::to_string(timeout_s) +
                      " s and was stopped");
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (r.exit_code == 127 && r.out.empty()) {
    return Status::Error(Code::kUnsupported, "cannot run " + exe);
  }
  return r;
}

}  // namespace ssdlab
