// `ssdlab sim serve`: the simulated drive in real time over FUSE and a loop device
// (serve/serve.h; docs/serve.md). Flags in, text out.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "base/output_file.h"
#include "cli/commands.h"
#include "serve/serve.h"

namespace ssdlab {
namespace {

std::atomic<bool> g_power_cut{false};

void OnPowerCut(int) { g_power_cut.store(true); }

struct ServeFlags {
  std::string target, fuse, cleanup, json, power_switch, pid_file;
  bool loop = false, ublk = false, daemon = false;
  double late_us = 100, late_pct = 1, transport_pct = 10, backlog_pct = 50;
};

// Copies `fd`'s lines to `out` until its end; true when one of them was "ready".
bool Relay(int fd, std::ostream& out) {
  FILE* in = fdopen(fd, "r");
  if (in == nullptr) return false;
  bool ready = false;
  char buf[4096];
  while (fgets(buf, sizeof buf, in) != nullptr) {
    out << buf << std::flush;
    if (std::string(buf) == "ready\n") ready = true;
  }
  fclose(in);
  return ready;
}

// --daemon: forks. The parent relays the child's standard output and error until the child is
// ready (then the parent returns 0) or has exited (then its exit status); the child detaches
// (setsid, stdin /dev/null), writes the pid file and returns -1: it goes on to serve, and once
// ready (ChildReady) its output goes to /dev/null. REQUIRES: no other thread runs yet.
int Daemonize(const ServeFlags* f) {
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0)
    return Fail(Status::Io(std::string("--daemon: cannot create a pipe: ") + std::strerror(errno)));
  std::cout << std::flush;
  std::cerr << std::flush;
  const pid_t pid = fork();
  if (pid < 0)
    return Fail(Status::Io(std::string("--daemon: cannot fork: ") + std::strerror(errno)));
  if (pid == 0) {
    setsid();
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    dup2(null, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    for (int fd : {out[0], out[1], err[0], err[1], null}) close(fd);
    Status s = WriteOutputFile("--pid-file", f->pid_file, std::to_string(getpid()) + "\n");
    if (!s.ok()) {
      Fail(s);
      _exit(ExitCodeFor(s));
    }
    return -1;
  }
  close(out[1]);
  close(err[1]);
  const bool ready = Relay(out[0], std::cout);
  Relay(err[0], std::cerr);
  if (ready) {
    std::cout << "mount: " << f->fuse << " (" << f->fuse << "/drive.img)\n";
    std::cout << "pid: " << pid << " (" << f->pid_file << "); SIGTERM or SIGINT stops it\n";
    return kExitOk;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return kExitFailed;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The daemon is ready: its standard output and error go to /dev/null from now on (the parent
// has returned; the stop's figures go to --json).
void ChildReady() {
  std::cout << std::flush;
  std::cerr << std::flush;
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  dup2(null, STDOUT_FILENO);
  dup2(null, STDERR_FILENO);
  close(null);
}

// `--cleanup DIR`: the exit status.
int RunCleanup(const std::string& dir) {
  std::vector<std::string> done;
  Status s = serve::Cleanup(dir, &done);
  for (const std::string& line : done) std::cout << line << "\n";
  if (done.empty() && s.ok()) std::cout << "nothing to clean up at " << dir << "\n";
  return s.ok() ? kExitOk : Fail(s);
}

// The flags' checks that need nothing started: the outputs' destinations, --daemon with
// --pid-file.
Status CheckServeFlags(const ServeFlags* f) {
  if (f->target.empty() && !f->ublk)
    return Status::Invalid("sim serve: give the target, sim:PRESET");
  if (f->daemon != !f->pid_file.empty())
    return Status::Invalid("sim serve: --daemon and --pid-file FILE go together");
  if (!f->power_switch.empty())
    SSDLAB_RETURN_IF_ERROR(CheckOutputDestination("--power-switch", f->power_switch));
  if (!f->json.empty()) SSDLAB_RETURN_IF_ERROR(CheckOutputDestination("--json", f->json));
  if (f->daemon) SSDLAB_RETURN_IF_ERROR(CheckOutputDestination("--pid-file", f->pid_file));
  return Status::Ok();
}

serve::ServeOptions OptionsOf(const ServeFlags* f) {
  serve::ServeOptions o;
  o.target = f->target;
  o.fuse_dir = f->fuse;
  o.loop = f->loop;
  o.ublk = f->ublk;
  o.late_threshold_ns = static_cast<uint64_t>(f->late_us * 1e3);
  o.late_share_limit = f->late_pct / 100;
  o.transport_excess_limit = f->transport_pct / 100;
  o.backlog_limit = f->backlog_pct / 100;
  o.stop = &StopFlag();
  if (!f->power_switch.empty()) {
    o.power_cut = &g_power_cut;
    struct sigaction sa {};
    sa.sa_handler = OnPowerCut;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, nullptr);
  }
  const bool daemon = f->daemon;
  o.say = [daemon](const std::string& line) {
    std::cout << line << std::endl;
    if (daemon && line == "ready") ChildReady();
  };
  o.progress = [](const std::string& line) { std::cerr << line << std::endl; };
  return o;
}

// A serve's end: its summary, --power-switch's account and --json written; the exit status.
int FinishServe(const Result<serve::ServeReport>& r, const ServeFlags* f,
                const serve::ServeOptions& o) {
  if (!r.ok()) return Fail(r.status());
  std::cout << serve::SummaryText(*r, o) << std::flush;
  if (r->power_cut) {
    Status s = WriteOutputFile("--power-switch", f->power_switch, serve::PowerCutJson(*r));
    if (!s.ok()) return Fail(s);
  }
  if (!f->json.empty()) {
    Status s = WriteOutputFile("--json", f->json, serve::ReportJson(*r, o));
    if (!s.ok()) return Fail(s);
  }
  return kExitOk;
}

// Serves (or cleans up) as the flags say; the exit status.
int RunServe(const ServeFlags* f) {
  if (!f->cleanup.empty()) return RunCleanup(f->cleanup);
  if (Status s = CheckServeFlags(f); !s.ok()) return Fail(s);
  const serve::ServeOptions o = OptionsOf(f);
  if (f->daemon) {
    if (const int parent = Daemonize(f); parent >= 0) return parent;
  }
  auto r = serve::Serve(o);
  const int code = FinishServe(r, f, o);
  // Last: scripts wait for the pid file to go, then read --json and --power-switch.
  std::error_code ec;
  if (f->daemon) std::filesystem::remove(f->pid_file, ec);
  return code;
}

}  // namespace

void AddSimServeCommand(CLI::App& sim, int* exit_code) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* cmd = sim.add_subcommand(
      "serve",
      "Serve a simulated drive in real time as DIR/drive.img on a FUSE mount (and a loop "
      "device), for fio, filesystems and databases; docs/serve.md");
  cmd->footer(
      "Examples:\n  ssdlab sim serve 'sim:dc-sata-mixed?state=dc.st' --fuse /tmp/drive --loop\n"
      "      the simulated drive in real time as /tmp/drive/drive.img and a loop device; prints\n"
      "      'loop: /dev/loopN' and 'ready'; SIGINT or SIGTERM stops it cleanly (docs/serve.md)\n"
      "  ssdlab sim serve 'sim:tiny?plp=0&state=t.st' --fuse /tmp/drive --loop --power-switch "
      "cut.json\n"
      "      with a power switch: SIGUSR1 cuts the power (the drive keeps what the model says\n"
      "      survives), writes the model's account to cut.json and exits; restart it to power on\n"
      "  ssdlab sim serve 'sim:dc-sata-mixed?state=dc.st' --fuse /tmp/drive --loop --daemon \\\n"
      "      --pid-file serve.pid --json serve.json\n"
      "      the same in the background: returns once the device is usable; kill -TERM \"$(cat\n"
      "      serve.pid)\" stops it cleanly (unmount, detach, state saved)\n"
      "  ssdlab sim serve --cleanup /tmp/drive\n"
      "      after a killed server: detach its loop device and unmount the directory");
  cmd->add_option("target", f->target, "sim:PRESET[?key=value&...&state=FILE]");
  cmd->add_option("--fuse", f->fuse, "Mount the drive as DIR/drive.img (DIR: an empty directory)");
  cmd->add_flag("--loop", f->loop,
                "Set up a loop device over DIR/drive.img (losetup --direct-io=on); prints "
                "'loop: /dev/loopN'");
  cmd->add_flag("--ublk", f->ublk, "Serve as a ublk block device (refused: FUSE only for now)");
  cmd->add_option("--json", f->json, "Write the serve's figures as JSON to FILE at the stop");
  cmd->add_option("--late-us", f->late_us,
                  "A reply later than this after its due time counts as late (default 100)");
  cmd->add_option("--late-limit-pct", f->late_pct,
                  "Above this share late the serve was not paced (default 1)");
  cmd->add_option("--transport-limit-pct", f->transport_pct,
                  "The loop device's clients' mean latency, or the server's estimate of its "
                  "clients' (round trip plus time in the server), further than this from the "
                  "model's means the transport did not keep up: NOT PACED (default 10)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--backlog-limit-pct", f->backlog_pct,
                  "Where clients are not compared: more than this share of requests waiting for "
                  "the server means a saturated transport: NOT PACED (default 50)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--power-switch", f->power_switch,
                  "Give the drive a power switch: SIGUSR1 cuts its power and FILE receives the "
                  "model's account of the cut (docs/serve.md)");
  cmd->add_flag("--daemon", f->daemon,
                "Run in the background once the drive is usable: prints 'loop:', 'ready' and the "
                "pid, then returns (with --pid-file; the stop's figures go to --json only)");
  cmd->add_option("--pid-file", f->pid_file,
                  "With --daemon: write the server's pid to FILE (removed at its stop)");
  cmd->add_option("--cleanup", f->cleanup,
                  "After a killed server: detach the loop devices over DIR/drive.img and "
                  "unmount DIR");
  cmd->callback([f, exit_code] { *exit_code = RunServe(f.get()); });
}

}  // namespace ssdlab
