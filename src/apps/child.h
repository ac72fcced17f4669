// Child processes of the application tests (database servers and their benchmark clients):
// started in their own process group (so a terminal's Ctrl-C reaches ssdlab only, which then
// stops them in order), killed by the kernel if ssdlab dies (PR_SET_PDEATHSIG), optionally
// under an unprivileged user, output to a log file. Private to apps/.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

// An unprivileged account to run a server as when ssdlab runs as root (PostgreSQL refuses
// root; MariaDB needs --user). Empty name: run as ssdlab's own user.
struct RunAs {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};
// The account `name` ("postgres", "mysql") when ssdlab is root, else the current user.
// NotFound when root and the account does not exist.
Result<RunAs> ServerUser(const std::string& name);

struct SpawnOptions {
  std::string log_path;  // stdout and stderr (appended); "" = /dev/null
  std::string cwd;       // "" = unchanged
  RunAs user;
  std::vector<std::string> env;  // extra "KEY=VALUE" entries
};

class Child {
 public:
  // Starts argv[0] (an absolute path or looked up in $PATH). Unsupported naming `package`
  // when the program is missing.
  static Result<Child> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options,
                             const std::string& package);
  Child() = default;
  Child(Child&& o) noexcept : pid_(o.pid_), status_(o.status_), name_(std::move(o.name_)) {
    o.pid_ = -1;
  }
  Child& operator=(Child&& o) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  // Kills the whole process group (SIGKILL) and reaps it if still running.
  ~Child();

  pid_t pid() const { return pid_; }
  bool running();  // reaps without blocking
  // The exit status once ended: the code, or 128 + signal.
  std::optional<int> exit_code() const { return status_; }

  // Waits until the child ends, `timeout_ns` passes (0 = no limit) or *stop becomes true.
  // Interrupted when stopped, IoError naming the program on timeout; the child is left running
  // in both cases (call Terminate). Ok with exit_code() set when it ended.
  Status Wait(uint64_t timeout_ns, const std::atomic<bool>* stop);
  // Sends `sig` to the child's process group, waits up to `grace_ns`, then SIGKILLs the group
  // and reaps. Returns the exit status.
  int Terminate(int sig, uint64_t grace_ns);

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::string name_;
};

// Runs argv to completion (as Child, output appended to the log), failing with the log's last
// lines when the exit code is not 0.
Status RunToCompletion(const std::vector<std::string>& argv, const SpawnOptions& options,
                       const std::string& package, uint64_t timeout_ns,
                       const std::atomic<bool>* stop);

// The last `max_lines` lines of a text file ("" when unreadable), joined by " | ".
std::string LogTail(const std::string& path, int max_lines);

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice).
Result<uint16_t> FreeLoopbackPort();
// Ok when `port` can be bound on 127.0.0.1 now; Invalid "port N on 127.0.0.1 is already in
// use" otherwise.
Status CheckLoopbackPortFree(uint16_t port);

}  // namespace ssdlab
