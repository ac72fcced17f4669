#define FUSE_USE_VERSION 314
#include "serve/fuse_drive.h"

#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <linux/falloc.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "base/process.h"
#include "base/thread.h"

namespace ssdlab::serve {

namespace {

constexpr fuse_ino_t kImageIno = 2;
constexpr const char* kPowerOffXattr = "user.ssdlab.power-off";  // FuseDrive::PowerOff's
constexpr double kAttrTimeoutS = 3600;                           // the file never changes size

// One request between its arrival and its reply (on the pacer's thread, or on the session
// thread when the pacer answers it there: serve/pacer.h).
struct Ctx {
  fuse_req_t req;
  Op op;
  uint32_t bytes;
  char* buf;  // reads: the data to send
};

void ReplyCtx(void* p, int err) {
  Ctx* c = static_cast<Ctx*>(p);
  if (err != 0) {
    fuse_reply_err(c->req, err);
  } else if (c->op == Op::kRead) {
    fuse_reply_buf(c->req, c->buf, c->bytes);
  } else if (c->op == Op::kWrite) {
    fuse_reply_write(c->req, c->bytes);
  } else {
    fuse_reply_err(c->req, 0);
  }
  std::free(c->buf);
  delete c;
}

// Mount points of this process's namespace, decoded (\040 and the like).
std::vector<std::string> MountPoints() {
  std::vector<std::string> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string f[5];
    for (auto& x : f) ls >> x;
    std::string m;
    for (size_t i = 0; i < f[4].size(); ++i) {
      if (f[4][i] == '\\' && i + 3 < f[4].size()) {
        m += static_cast<char>(std::strtol(f[4].substr(i + 1, 3).c_str(), nullptr, 8));
        i += 3;
      } else {
        m += f[4][i];
      }
    }
    out.push_back(m);
  }
  return out;
}

std::string Resolved(const std::string& dir) {
  std::error_code ec;
  auto p = std::filesystem::canonical(dir, ec);
  return ec ? std::filesystem::absolute(dir, ec).lexically_normal().string() : p.string();
}

}  // namespace

struct FuseDrive::Impl {
  std::string dir;
  uint64_t capacity = 0;
  DataStore* data = nullptr;
  std::atomic<VersionLog*> versions{nullptr};  // the power switch's (set before Attach)
  std::string serial;                          // the drive's, as xattr user.ssdlab.serial
  pid_t pid = getpid();                        // PowerOff's request comes from this process
  std::atomic<Pacer*> pacer{nullptr};
  fuse_session* se = nullptr;
  std::thread loop;
  bool mounted = false;
  std::atomic<bool> loop_ended{false};
  dev_t conn_dev = 0;  // the mount's device: /sys/fs/fuse/connections/MINOR
  // The session thread's view of the transport once attached (TransportStats): whether the
  // request being handled was already queued when the thread came back to read (the session
  // thread's own; read by the I/O handlers on that thread), and the counts.
  bool request_was_waiting = false;
  std::atomic<uint64_t> io_requests{0}, waiting{0}, busy_ns{0};
  // Asynchronous requests in flight: asked at the connection's start (OpInit), then what the
  // kernel granted (Attach, from /sys/fs/fuse/connections).
  std::atomic<unsigned> max_background{0}, congestion_threshold{0};

  void Stat(fuse_ino_t ino, struct stat* st) const {
    std::memset(st, 0, sizeof *st);
    st->st_ino = ino;
    st->st_uid = getuid();
    st->st_gid = getgid();
    if (ino == FUSE_ROOT_ID) {
      st->st_mode = S_IFDIR | 0755;
      st->st_nlink = 2;
    } else {
      st->st_mode = S_IFREG | 0600;
      st->st_nlink = 1;
      st->st_size = static_cast<off_t>(capacity);
      st->st_blksize = 4096;
      st->st_blocks = static_cast<blkcnt_t>(data->held_bytes() / 512);
    }
  }
  // Through the pacer once attached; at once (the transport alone) before.
  void Pace(Ctx* c, uint64_t offset, uint64_t arrival, uint32_t tag = 0) {
    Pacer* p = pacer.load(std::memory_order_acquire);
    if (p == nullptr) {
      ReplyCtx(c, 0);
    } else {
      io_requests.fetch_add(1, std::memory_order_relaxed);
      if (request_was_waiting) waiting.fetch_add(1, std::memory_order_relaxed);
      p->Submit(c->op, offset, c->bytes, arrival, ReplyCtx, c, tag);
    }
  }
};

namespace {

FuseDrive::Impl* Self(fuse_req_t req) {
  return static_cast<FuseDrive::Impl*>(fuse_req_userdata(req));
}

void OpInit(void* userdata, fuse_conn_info* conn) {
  auto* d = static_cast<FuseDrive::Impl*>(userdata);
  if (conn->capable & FUSE_CAP_ASYNC_DIO) conn->want |= FUSE_CAP_ASYNC_DIO;
  // The loop device's direct I/O reaches FUSE as asynchronous ("background") requests, of
  // which the kernel lets max_background (12 by default) be in flight: 256, so that a client's
  // queue depth reaches the server. The kernel grants it to root (CAP_SYS_ADMIN); others get at
  // most /proc/sys/fs/fuse/max_user_bgreq.
  conn->max_background = 256;
  conn->congestion_threshold = 192;
  d->max_background.store(conn->max_background);
  d->congestion_threshold.store(conn->congestion_threshold);
}

// The pacer's arrival probe (Pacer::SetArrivalProbe): a request is queued for the session
// thread (poll with no timeout).
bool RequestQueued(void* userdata) {
  pollfd pfd{fuse_session_fd(static_cast<FuseDrive::Impl*>(userdata)->se), POLLIN, 0};
  return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

// fuse_session_loop, and the transport's figures: before each read, whether a request is
// already queued (poll with no timeout: it waited for this thread), and the time from a read's
// return to the next one's start (busy).
void SessionLoop(FuseDrive::Impl* d) {
  fuse_session* se = d->se;
  fuse_buf buf{};
  pollfd pfd{fuse_session_fd(se), POLLIN, 0};
  while (!fuse_session_exited(se)) {
    pfd.revents = 0;
    d->request_was_waiting = poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
    const int n = fuse_session_receive_buf(se, &buf);
    if (n == -EINTR) continue;
    if (n <= 0) break;
    const uint64_t t0 = Pacer::MonotonicNs();
    fuse_session_process_buf(se, &buf);
    if (d->pacer.load(std::memory_order_relaxed) != nullptr)
      d->busy_ns.fetch_add(Pacer::MonotonicNs() - t0, std::memory_order_relaxed);
  }
  std::free(buf.mem);
  fuse_session_reset(se);
}

void OpLookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (parent != FUSE_ROOT_ID || std::strcmp(name, kImageName) != 0) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  fuse_entry_param e{};
  e.ino = kImageIno;
  e.attr_timeout = e.entry_timeout = kAttrTimeoutS;
  Self(req)->Stat(kImageIno, &e.attr);
  fuse_reply_entry(req, &e);
}

void OpGetattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  struct stat st;
  Self(req)->Stat(ino, &st);
  fuse_reply_attr(req, &st, kAttrTimeoutS);
}

void OpSetattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info*) {
  if ((to_set & FUSE_SET_ATTR_SIZE) && attr->st_size != static_cast<off_t>(Self(req)->capacity)) {
    fuse_reply_err(req, EPERM);  // a drive's capacity is fixed
    return;
  }
  struct stat st;
  Self(req)->Stat(ino, &st);
  fuse_reply_attr(req, &st, kAttrTimeoutS);
}

void OpReaddir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info*) {
  if (ino != FUSE_ROOT_ID) {
    fuse_reply_err(req, ENOTDIR);
    return;
  }
  std::vector<char> buf(size);
  size_t used = 0;
  const char* names[] = {".", "..", kImageName};
  const fuse_ino_t inos[] = {FUSE_ROOT_ID, FUSE_ROOT_ID, kImageIno};
  for (off_t i = off; i < 3; ++i) {
    struct stat st {};
    st.st_ino = inos[i];
    st.st_mode = i < 2 ? S_IFDIR : S_IFREG;
    const size_t n = fuse_add_direntry(req, buf.data() + used, size - used, names[i], &st, i + 1);
    if (n > size - used) break;
    used += n;
  }
  fuse_reply_buf(req, buf.data(), used);
}

void OpOpen(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (ino != kImageIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  if (fi->flags & O_TRUNC) {
    fuse_reply_err(req, EPERM);
    return;
  }
  fi->direct_io = 1;  // every request reaches the drive: no page cache in between
  fi->keep_cache = 0;
  fuse_reply_open(req, fi);
}

void OpRead(fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info*) {
  const uint64_t arrival = Pacer::MonotonicNs();
  FuseDrive::Impl* d = Self(req);
  const uint64_t offset = static_cast<uint64_t>(off);
  if (offset >= d->capacity || size == 0) {
    fuse_reply_buf(req, nullptr, 0);
    return;
  }
  const auto bytes = static_cast<uint32_t>(std::min<uint64_t>(size, d->capacity - offset));
  char* buf = static_cast<char*>(std::malloc(bytes));
  if (buf == nullptr || !d->data->Read(offset, bytes, buf).ok()) {
    std::free(buf);
    fuse_reply_err(req, buf == nullptr ? ENOMEM : EIO);
    return;
  }
  d->Pace(new Ctx{req, Op::kRead, bytes, buf}, offset, arrival);
}

void OpWrite(fuse_req_t req, fuse_ino_t, const char* in, size_t size, off_t off, fuse_file_info*) {
  const uint64_t arrival = Pacer::MonotonicNs();
  FuseDrive::Impl* d = Self(req);
  const uint64_t offset = static_cast<uint64_t>(off);
  if (offset >= d->capacity || size > d->capacity - offset) {
    fuse_reply_err(req, ENOSPC);
    return;
  }
  if (size == 0) {
    fuse_reply_write(req, 0);
    return;
  }
  const auto bytes = static_cast<uint32_t>(size);
  uint32_t tag = 0;
  if (VersionLog* log = d->versions.load(std::memory_order_acquire)) {
    auto t = log->Record(*d->data, offset, bytes, in);
    if (!t.ok()) {
      fuse_reply_err(req, EIO);
      return;
    }
    tag = *t;
  }
  if (!d->data->Write(offset, bytes, in).ok()) {
    fuse_reply_err(req, EIO);
    return;
  }
  d->Pace(new Ctx{req, Op::kWrite, bytes, nullptr}, offset, arrival, tag);
}

// A loop device's discard is PUNCH_HOLE, its write-zeroes ZERO_RANGE (or PUNCH_HOLE): both
// leave the range reading zeros and reach the drive as a trim. Plain allocation changes nothing.
void OpFallocate(fuse_req_t req, fuse_ino_t, int mode, off_t off, off_t len, fuse_file_info*) {
  const uint64_t arrival = Pacer::MonotonicNs();
  FuseDrive::Impl* d = Self(req);
  const uint64_t offset = static_cast<uint64_t>(off), length = static_cast<uint64_t>(len);
  if (offset >= d->capacity || length > d->capacity - offset) {
    fuse_reply_err(req, (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) ? EINVAL : EFBIG);
    return;
  }
  if (!(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))) {
    fuse_reply_err(req, (mode & ~FALLOC_FL_KEEP_SIZE) ? EOPNOTSUPP : 0);
    return;
  }
  if (!d->data->Punch(offset, length).ok()) {
    fuse_reply_err(req, EIO);
    return;
  }
  // The simulator's commands carry at most 4 GiB - 1: longer trims go as several.
  constexpr uint64_t kMax = 1ULL << 31;
  for (uint64_t at = 0; at < length; at += kMax) {
    const auto n = static_cast<uint32_t>(std::min(kMax, length - at));
    const bool last = at + n >= length;
    if (!last) {
      Pacer* p = d->pacer.load(std::memory_order_acquire);
      if (p != nullptr)
        p->Submit(
            Op::kTrim, offset + at, n, arrival, [](void*, int) {}, nullptr);
      continue;
    }
    d->Pace(new Ctx{req, Op::kTrim, n, nullptr}, offset + at, arrival);
  }
}

void OpFsync(fuse_req_t req, fuse_ino_t, int, fuse_file_info*) {
  const uint64_t arrival = Pacer::MonotonicNs();
  Self(req)->Pace(new Ctx{req, Op::kFlush, 0, nullptr}, 0, arrival);
}

void OpFlush(fuse_req_t req, fuse_ino_t, fuse_file_info*) { fuse_reply_err(req, 0); }

// drive.img's one extended attribute, user.ssdlab.serial: the served drive's serial, which the
// device layer reads for a loop device over it (device/identify.h), as a drive's own.
void OpGetxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  if (ino == kImageIno && std::strcmp(name, kPowerOffXattr) == 0 &&
      fuse_req_ctx(req)->pid == Self(req)->pid) {
    fuse_session_exit(Self(req)->se);  // FuseDrive::PowerOff: this is the session's last request
    fuse_reply_err(req, ENODATA);
    return;
  }
  const std::string& serial = Self(req)->serial;
  if (ino != kImageIno || std::strcmp(name, kSerialXattr) != 0 || serial.empty()) {
    fuse_reply_err(req, ENODATA);
  } else if (size == 0) {
    fuse_reply_xattr(req, serial.size());
  } else if (size < serial.size()) {
    fuse_reply_err(req, ERANGE);
  } else {
    fuse_reply_buf(req, serial.data(), serial.size());
  }
}

const fuse_lowlevel_ops& Ops() {
  static const fuse_lowlevel_ops ops = [] {
    fuse_lowlevel_ops o{};
    o.init = OpInit;
    o.lookup = OpLookup;
    o.getattr = OpGetattr;
    o.setattr = OpSetattr;
    o.readdir = OpReaddir;
    o.open = OpOpen;
    o.read = OpRead;
    o.write = OpWrite;
    o.fallocate = OpFallocate;
    o.fsync = OpFsync;
    o.flush = OpFlush;
    o.getxattr = OpGetxattr;
    return o;
  }();
  return ops;
}

}  // namespace

bool IsMountPoint(const std::string& dir) {
  const std::string r = Resolved(dir);
  for (const std::string& m : MountPoints())
    if (m == r) return true;
  return false;
}

Status CheckFuseMountable(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec))
    return Status::Invalid("--fuse " + dir + ": no such directory");
  if (IsMountPoint(dir))
    return Status::Invalid("--fuse " + dir +
                           " is already a mount point (a server still running, or killed: "
                           "ssdlab sim serve --cleanup " +
                           dir + ")");
  if (!std::filesystem::is_directory(dir, ec))
    return Status::Invalid("--fuse " + dir + " is not a directory");
  if (!std::filesystem::is_empty(dir, ec) || ec)
    return Status::Invalid("--fuse " + dir + " is not an empty directory");
  if (access("/dev/fuse", F_OK) != 0)
    return Status::Error(Code::kUnsupported,
                         "/dev/fuse is missing: this kernel or container has no FUSE (modprobe "
                         "fuse, or give the container the device)");
  const int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return Status::Refused(std::string("/dev/fuse may not be opened: ") + std::strerror(errno) +
                           " (add the user to the group owning it, or run as root)");
  }
  close(fd);
  return Status::Ok();
}

FuseDrive::FuseDrive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FuseDrive::~FuseDrive() {
  (void)Unmount();
  if (impl_->se != nullptr) fuse_session_destroy(impl_->se);
}

std::string FuseDrive::image_path() const { return impl_->dir + "/" + kImageName; }

Result<std::unique_ptr<FuseDrive>> FuseDrive::Mount(const std::string& dir, uint64_t capacity_bytes,
                                                    DataStore* data, const std::string& serial) {
  SSDLAB_RETURN_IF_ERROR(CheckFuseMountable(dir));
  auto impl = std::make_unique<Impl>();
  impl->dir = Resolved(dir);
  impl->capacity = capacity_bytes;
  impl->data = data;
  impl->serial = serial;
  std::vector<std::string> words = {"ssdlab", "-o", "fsname=ssdlab-serve,subtype=ssdlab"};
  std::vector<char*> argv;
  argv.reserve(words.size());
  for (auto& w : words) argv.push_back(w.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  impl->se = fuse_session_new(&args, &Ops(), sizeof(fuse_lowlevel_ops), impl.get());
  if (impl->se == nullptr) return Status::Io("--fuse " + dir + ": cannot start a FUSE session");
  if (fuse_session_mount(impl->se, impl->dir.c_str()) != 0) {
    fuse_session_destroy(impl->se);
    return Status::Io("--fuse " + dir + ": the FUSE mount failed (see the message above)");
  }
  impl->mounted = true;
  std::unique_ptr<FuseDrive> drive(new FuseDrive(std::move(impl)));
  Impl* im = drive->impl_.get();
  auto t = StartThread(
      [im] {
        (void)Pacer::RaiseToRealTime();  // arrivals stamped without waiting for a CPU
        SessionLoop(im);
        im->loop_ended.store(true);
      },
      "the FUSE session's thread");
  if (!t.ok()) return t.status();  // ~FuseDrive unmounts
  im->loop = std::move(t).value();
  struct stat st {};
  if (stat(im->dir.c_str(), &st) == 0) im->conn_dev = st.st_dev;
  return drive;
}

bool FuseDrive::alive() const { return !impl_->loop_ended.load(); }

void FuseDrive::Attach(Pacer* pacer) {
  // What the kernel granted of OpInit's asks, where /sys/fs/fuse/connections is mounted.
  const std::string conn = "/sys/fs/fuse/connections/" + std::to_string(minor(impl_->conn_dev));
  unsigned granted = 0;
  if (std::ifstream(conn + "/max_background") >> granted) impl_->max_background.store(granted);
  if (std::ifstream(conn + "/congestion_threshold") >> granted)
    impl_->congestion_threshold.store(granted);
  pacer->SetArrivalProbe(RequestQueued, impl_.get());
  impl_->pacer.store(pacer, std::memory_order_release);
}

TransportStats FuseDrive::transport() const {
  TransportStats t;
  t.io_requests = impl_->io_requests.load();
  t.waiting = impl_->waiting.load();
  t.busy_ns = impl_->busy_ns.load();
  t.max_background = impl_->max_background.load();
  t.congestion_threshold = impl_->congestion_threshold.load();
  return t;
}

void FuseDrive::RecordVersions(VersionLog* log) {
  impl_->versions.store(log, std::memory_order_release);
}

Status FuseDrive::Unmount() {
  Impl& im = *impl_;
  if (!im.mounted) return Status::Ok();
  im.mounted = false;
  fuse_session_exit(im.se);
  Status s = Status::Ok();
  if (geteuid() == 0) {
    if (umount2(im.dir.c_str(), 0) != 0) {
      // Busy (a loop device or an open file): detach it lazily and abort the connection so the
      // session ends; whoever still uses drive.img gets errors.
      const int err = errno;
      if (umount2(im.dir.c_str(), MNT_DETACH) != 0)
        s = Status::Io("cannot unmount " + im.dir + ": " + std::strerror(err));
      std::ofstream abort("/sys/fs/fuse/connections/" + std::to_string(minor(im.conn_dev)) +
                          "/abort");
      abort << "1\n";
    }
  } else {
    fuse_session_unmount(im.se);
  }
  if (im.loop.joinable()) im.loop.join();
  return s;
}

Status FuseDrive::PowerOff() {
  Impl& im = *impl_;
  if (!im.mounted) return Status::Ok();
  im.mounted = false;
  // A request the kernel never caches, whose handler ends the session loop: answered for sure
  // (the loop runs until it has handled it).
  char none;
  (void)getxattr((im.dir + "/" + kImageName).c_str(), kPowerOffXattr, &none, 0);
  Status s = Status::Ok();
  if (umount2(im.dir.c_str(), MNT_DETACH) != 0)
    s = Status::Io("cannot unmount " + im.dir + ": " + std::strerror(errno));
  // Whoever still holds drive.img (a loop device kept by its users) gets errors: the connection
  // is aborted (here when fusectl is mounted; otherwise when the session closes /dev/fuse).
  std::ofstream abort("/sys/fs/fuse/connections/" + std::to_string(minor(im.conn_dev)) + "/abort");
  abort << "1\n";
  abort.close();
  if (im.loop.joinable()) im.loop.join();
  return s;
}

Status UnmountFuseDir(const std::string& dir, std::string* how) {
  const std::string r = Resolved(dir);
  if (umount2(r.c_str(), 0) == 0) {
    *how = "unmounted";
    return Status::Ok();
  }
  const int err = errno;
  if (umount2(r.c_str(), MNT_DETACH) == 0) {
    *how = "unmounted lazily (busy)";
    return Status::Ok();
  }
  if (err == EPERM) {  // not root: fusermount3 does it for the mount's owner
    auto run = RunProcess({"fusermount3", "-uz", r}, 30, "fuse3");
    if (run.ok() && run->exit_code == 0) {
      *how = "unmounted (fusermount3)";
      return Status::Ok();
    }
  }
  return Status::Io("cannot unmount " + r + ": " + std::strerror(err));
}

}  // namespace ssdlab::serve
