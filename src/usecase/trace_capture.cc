#include "usecase/trace_capture.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "base/units.h"
#include "usecase/options.h"

extern char** environ;

namespace ssdlab::usecase {

Result<CaptureOutcome> CaptureTrace(const CaptureRequest& r) {
  namespace fs = std::filesystem;
  uint64_t ns = 0;
  if (Status s = DurationFlag("--time", r.time, ns); !s.ok() || ns < kNsPerS)
    return Status::Invalid(s.ok() ? "--time: at least 1s" : s.message());
  struct stat st;
  if (stat(r.device.c_str(), &st) != 0 || !S_ISBLK(st.st_mode))
    return Status::Invalid("--device " + r.device + " is not a block device");
  fs::path out(r.out);
  fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!fs::is_directory(dir))
    return Status::Invalid("-o: directory " + dir.string() + " does not exist");
  if (!fs::exists("/sys/kernel/debug/block")) {
    return Status::Error(
        Code::kUnsupported,
        "blktrace needs debugfs: /sys/kernel/debug/block is missing (mount -t debugfs none "
        "/sys/kernel/debug, as root, on a kernel with CONFIG_BLK_DEV_IO_TRACE)");
  }
  CaptureOutcome o;
  o.seconds = (ns + kNsPerS - 1) / kNsPerS;
  std::string name = out.filename().string();
  std::string d = dir.string();
  std::vector<std::string> args = {"blktrace", "-d", r.device, "-w", std::to_string(o.seconds),
                                   "-D",       d,    "-o",     name};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, "blktrace", nullptr, nullptr, argv.data(), environ) != 0)
    return Status::NotFound("blktrace is not installed (apt-get install blktrace)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::Io(
        "blktrace failed on " + r.device + " (exit " +
        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
        "); its messages are above");
  }
  o.prefix = (dir / name).string();
  return o;
}

}  // namespace ssdlab::usecase
