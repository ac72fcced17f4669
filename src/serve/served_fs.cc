#include "serve/served_fs.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "base/process.h"
#include "base/thread.h"

namespace ssdlab::serve {
namespace {

Status NeedTool(const std::string& tool, const std::string& package) {
  if (!FindTool(tool).empty()) return Status::Ok();
  return Status::Io(tool + " not found; install " + package + " (apt-get install " + package + ")");
}

// A new directory PARENT/ssdlab-served-XXXXXX (mode 0755: the database servers' users enter it)
// holding "drive" (the FUSE mount point) and "fs" (the filesystem's).
Result<std::string> MakeWorkDir(std::string parent) {
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string pattern = parent + "/ssdlab-served-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)
    return Status::Io("cannot create a directory in " + parent + ": " + std::strerror(errno));
  if (chmod(pattern.c_str(), 0755) != 0 || mkdir((pattern + "/drive").c_str(), 0755) != 0 ||
      mkdir((pattern + "/fs").c_str(), 0755) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    std::filesystem::remove_all(pattern, ec);
    return Status::Io("cannot create directories in " + pattern + ": " + why);
  }
  return pattern;
}

// mkfs.ext4 without the discard pass (a fresh served drive is empty) nor the zeroing of the
// inode tables and journal (a simulated drive's empty ranges read as zeros).
Status MakeExt4(const std::string& dev) {
  SSDLAB_ASSIGN_OR_RETURN(ProcessResult r,
                          RunProcess({"mkfs.ext4", "-F", "-q", "-E",
                                      "nodiscard,lazy_itable_init=1,lazy_journal_init=1", dev},
                                     600, "e2fsprogs"));
  if (r.exit_code != 0) {
    std::string why = r.err.empty() ? r.out : r.err;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return Status::Io("mkfs.ext4 " + dev + " failed: " + why.substr(0, why.find('\n')));
  }
  return Status::Ok();
}

// noinit_itable: no background zeroing of inode tables, whose writes would count as the app's.
Status MountExt4(const std::string& dev, const std::string& dir) {
  if (mount(dev.c_str(), dir.c_str(), "ext4", 0, "noinit_itable") != 0)
    return Status::Io("cannot mount " + dev + " at " + dir + ": " + std::strerror(errno));
  return Status::Ok();
}

// What the filesystem holds in the page cache reaches the drive.
void SyncFs(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)syncfs(fd);
  close(fd);
}

// Unmounts `dir`, waiting up to 30 s for its last users (a server's processes exiting), then
// lazily with a warning.
void UnmountFs(const std::string& dir, std::vector<std::string>* warnings) {
  for (int i = 0; i < 300; ++i) {
    if (umount2(dir.c_str(), 0) == 0) return;
    if (errno != EBUSY) {
      warnings->push_back("cannot unmount " + dir + ": " + std::strerror(errno));
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (umount2(dir.c_str(), MNT_DETACH) == 0) {
    warnings->push_back(dir + " was still in use after 30 s: unmounted lazily");
  } else {
    warnings->push_back("cannot unmount " + dir + ": " + std::strerror(errno));
  }
}

// The serve on its own thread, and what it said: ready (with the counters), or ended.
class ServeThread {
 public:
  // Starts Serve(o) with o.loop on and o.stop, o.say, o.ready set here.
  Status Start(ServeOptions o) {
    o.loop = true;
    o.stop = &stop_;
    o.say = [this](const std::string& line) {
      if (line.rfind("loop: ", 0) == 0) loop_ = line.substr(6);
    };
    o.ready = [this](const std::function<SimCounters()>& counters) {
      std::lock_guard<std::mutex> lock(mu_);
      counters_ = counters;
      ready_ = true;
      cv_.notify_all();
    };
    auto t = StartThread(
        [this, o] {
          auto r = Serve(o);
          std::lock_guard<std::mutex> lock(mu_);
          result_ = std::move(r);
          ended_ = true;
          cv_.notify_all();
        },
        "the serve's thread");
    if (!t.ok()) return t.status();
    thread_ = std::move(t).value();
    return Status::Ok();
  }
  // Waits until the drive can be used (true) or the serve ended (false: Finish() says why).
  bool WaitReady() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return ready_ || ended_; });
    return ready_ && !ended_;
  }
  SimCounters Counters() { return counters_(); }
  const std::string& loop() const { return loop_; }
  // Stops the serve and returns its result. Idempotent.
  Result<ServeReport> Finish() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    return result_;
  }
  ~ServeThread() { (void)Finish(); }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool ready_ = false, ended_ = false;
  std::function<SimCounters()> counters_;
  std::string loop_;
  Result<ServeReport> result_ = Status::Error(Code::kInternal, "the serve did not run");
};

// Serves, makes and mounts the filesystem, runs the body; `work` is the private directory.
Result<ServedFsReport> ServeAndRun(const ServedFsOptions& o, const std::string& work,
                                   const ServedFsBody& body) {
  ServeOptions so;
  so.target = o.target;
  so.fuse_dir = work + "/drive";
  so.progress = o.progress;
  ServeThread serve;
  SSDLAB_RETURN_IF_ERROR(serve.Start(so));
  if (!serve.WaitReady()) return serve.Finish().status();
  ServedFsReport r;
  r.loop_device = serve.loop();
  r.mount_dir = work + "/fs";
  if (o.progress) o.progress("making an ext4 filesystem on " + r.loop_device);
  Status s = MakeExt4(r.loop_device);
  if (o.stop->load()) s = Status::Error(Code::kInterrupted, "interrupted");  // mkfs got it too
  if (s.ok()) s = MountExt4(r.loop_device, r.mount_dir);
  if (!s.ok()) {
    (void)serve.Finish();
    return s;
  }
  if (o.progress) o.progress("mounted " + r.loop_device + " at " + r.mount_dir);
  r.before = serve.Counters();
  body(r.mount_dir);
  SyncFs(r.mount_dir);
  r.after = serve.Counters();
  UnmountFs(r.mount_dir, &r.warnings);
  SSDLAB_ASSIGN_OR_RETURN(r.serve, serve.Finish());
  return r;
}

}  // namespace

Status CheckServedFsTools() {
  SSDLAB_RETURN_IF_ERROR(NeedTool("mkfs.ext4", "e2fsprogs"));
  return NeedTool("losetup", "util-linux");
}

Result<ServedFsReport> WithServedFilesystem(const ServedFsOptions& o, const ServedFsBody& body) {
  SSDLAB_RETURN_IF_ERROR(CheckServedFsTools());
  SSDLAB_ASSIGN_OR_RETURN(std::string work, MakeWorkDir(o.parent));
  Result<ServedFsReport> r = ServeAndRun(o, work, body);
  std::error_code ec;
  // Only empty directories are removed: a mount that could not be undone keeps its data.
  std::filesystem::remove(work + "/fs", ec);
  std::filesystem::remove(work + "/drive", ec);
  std::filesystem::remove(work, ec);
  if (r.ok() && std::filesystem::exists(work))
    r->warnings.push_back(work + " could not be removed (something is still mounted there)");
  return r;
}

}  // namespace ssdlab::serve
