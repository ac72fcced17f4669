#include "usecase/plp_rig.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/process.h"
#include "base/rng.h"
#include "base/thread.h"
#include "device/identify.h"
#include "workload/data.h"

namespace ssdlab::usecase {
namespace {

constexpr uint64_t kChunkUnits = 256;  // verify reads: 1 MiB at a time

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

Status WriteAll(int fd, const std::string& s) {
  for (size_t at = 0; at < s.size();) {
    const ssize_t n = write(fd, s.data() + at, s.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Io(std::strerror(n < 0 ? errno : EIO));
    at += static_cast<size_t>(n);
  }
  return Status::Ok();
}

class FileJournal : public PlpJournalSink {
 public:
  FileJournal(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~FileJournal() override { close(fd_); }
  Status Record(const std::string& line) override {
    std::lock_guard<std::mutex> lock(mu_);
    Status s = WriteAll(fd_, line + "\n");
    return s.ok() ? s : Status::Io("--journal " + path_ + ": cannot write: " + s.message());
  }
  Status Sync() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fdatasync(fd_) != 0)
      return Status::Io("--journal " + path_ + ": cannot sync: " + std::strerror(errno));
    return Status::Ok();
  }

 private:
  std::string path_;
  int fd_;
  std::mutex mu_;
};

class StreamJournal : public PlpJournalSink {
 public:
  StreamJournal(std::string where, int fd) : where_(std::move(where)), fd_(fd) {}
  ~StreamJournal() override { close(fd_); }
  Status Record(const std::string& line) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Sent(WriteAll(fd_, line + "\n"));
  }
  Status Sync() override {
    std::lock_guard<std::mutex> lock(mu_);
    SSDLAB_RETURN_IF_ERROR(Sent(WriteAll(fd_, "sync\n")));
    std::string reply;
    char c = 0;
    while (reply.size() < 16) {
      const ssize_t n = read(fd_, &c, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::Io("--journal " + where_ + ": the receiver closed the stream");
      if (c == '\n') break;
      reply += c;
    }
    if (reply != "ok")
      return Status::Io("--journal " + where_ + ": the receiver answered '" + reply + "'");
    return Status::Ok();
  }

 private:
  Status Sent(const Status& s) {
    return s.ok() ? s : Status::Io("--journal " + where_ + ": cannot send: " + s.message());
  }
  std::string where_;
  int fd_;
  std::mutex mu_;
};

// A 64-bit digest of a 4 KiB unit (to recognise data that was there before the campaign).
uint64_t UnitDigest(const char* p) {
  uint64_t h = 0x5eedULL;
  for (size_t i = 0; i < kPlpUnitBytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = Mix64(h ^ w);
  }
  return h;
}

bool AllZero(const char* p) {
  for (size_t i = 0; i < kPlpUnitBytes; ++i)
    if (p[i] != 0) return false;
  return true;
}

struct Identity {
  std::string serial, model;
  uint64_t size = 0;
};

Result<Identity> ReadIdentity(const std::string& target) {
  SSDLAB_ASSIGN_OR_RETURN(DeviceIdentity id, IdentifyTarget(target));
  if (id.kind != "block" || !id.disk)
    return Status::Invalid("plp: --target " + target + " is not a block device");
  if (id.size_bytes == 0)
    return Status::Invalid("plp: --target " + target + " has no capacity (is it powered on?)");
  return Identity{id.disk->serial, id.disk->model, id.size_bytes};
}

// Runs a power command with SSDLAB_PLP_CUT=cut; Invalid naming it when it cannot run or fails
// (the rig's command is the user's input: exit status 2, as the other refusals of a rig).
Status RunPowerCommand(const char* flag, const std::string& cmd, uint32_t cut) {
  setenv("SSDLAB_PLP_CUT", std::to_string(cut).c_str(), 1);
  auto r = RunProcess({"sh", "-c", cmd}, 600, "dash");
  if (!r.ok()) {
    return Status::Invalid(std::string(flag) + " '" + cmd + "': " + r.status().message());
  }
  if (r->exit_code != 0) {
    std::string why = r->err.empty() ? r->out : r->err;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (const size_t nl = why.rfind('\n'); nl != std::string::npos) why = why.substr(nl + 1);
    return Status::Invalid(fmt::format("{} '{}' failed (exit {}){}{} at cut {}", flag, cmd,
                                       r->exit_code, why.empty() ? "" : ": ", why, cut));
  }
  return Status::Ok();
}

class RealPlpRig : public PlpRig {
 public:
  RealPlpRig(const RealRigOptions& o, PlpJournalSink* journal, Identity id)
      : o_(o), journal_(journal), id_(std::move(id)), epoch_(NowNs()) {
    WorkloadSpec spec;
    spec.seed = o.nonce;
    spec.verify = true;
    spec.verify_unit_bytes = kPlpUnitBytes;
    filler_ = std::make_unique<DataFiller>(spec);
  }
  ~RealPlpRig() override { Close(); }
  uint64_t units() const override { return id_.size / kPlpUnitBytes; }
  Status RunAndCut(const PlpLoad& load, uint64_t cut_after_ns, Rng& rng, uint32_t* next_seq,
                   PlpJournal* journal, PlpLoadAtCut* at_cut, uint64_t* cut_ns) override;
  Status Restore(uint64_t* ready_ns) override;
  Result<PlpReading> Read(uint64_t lpn) override;

  Status Open() {
    if (fd_ >= 0) return Status::Ok();
    fd_ = open(o_.target.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    if (fd_ < 0) return Status::Io("cannot open " + o_.target + ": " + std::strerror(errno));
    return Status::Ok();
  }

 private:
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    cache_n_ = 0;
  }
  // Reads units [first, first + n) into the cache; false when the read failed.
  bool Fill(uint64_t first, uint64_t n);
  // Before the first cut: a digest of each unit of the range as it is (data before the
  // campaign reads back as "never written", not as torn).
  Status Survey(uint64_t range_units);
  // One load thread until *stop or an I/O error.
  void LoadThread(const PlpLoad& load, uint64_t seed, PlpJournal* journal);

  RealRigOptions o_;
  PlpJournalSink* journal_;
  Identity id_;
  uint64_t epoch_;
  std::unique_ptr<DataFiller> filler_;
  int fd_ = -1;
  uint32_t cut_ = 0;
  std::vector<uint64_t> before_;  // digest per unit before the campaign
  // The load's shared state.
  std::mutex mu_;
  std::vector<char> busy_;  // units being written (no two writes in flight overlap)
  std::atomic<bool> stop_{false};
  std::atomic<uint32_t> seq_{1};
  std::atomic<uint64_t> writes_since_flush_{0}, acked_{0};
  std::mutex flush_mu_;
  Status journal_status_ = Status::Ok();  // guarded by mu_
  // Verify reads.
  std::vector<char, std::allocator<char>> cache_raw_;
  char* cache_ = nullptr;
  uint64_t cache_first_ = 0, cache_n_ = 0;
};

bool RealPlpRig::Fill(uint64_t first, uint64_t n) {
  if (cache_ == nullptr) {
    cache_raw_.resize(kChunkUnits * kPlpUnitBytes + kPlpUnitBytes);
    void* p = cache_raw_.data();
    size_t space = cache_raw_.size();  // room for the chunk at any alignment of the buffer
    cache_ = static_cast<char*>(std::align(kPlpUnitBytes, kChunkUnits * kPlpUnitBytes, p, space));
  }
  cache_n_ = 0;
  const ssize_t got =
      pread(fd_, cache_, n * kPlpUnitBytes, static_cast<off_t>(first * kPlpUnitBytes));
  if (got != static_cast<ssize_t>(n * kPlpUnitBytes)) return false;
  cache_first_ = first;
  cache_n_ = n;
  return true;
}

Status RealPlpRig::Survey(uint64_t range_units) {
  before_.assign(range_units, 0);
  for (uint64_t u = 0; u < range_units; u += kChunkUnits) {
    const uint64_t n = std::min(kChunkUnits, range_units - u);
    if (!Fill(u, n)) return Status::Io("cannot read " + o_.target + " before the first cut");
    for (uint64_t i = 0; i < n; ++i) before_[u + i] = UnitDigest(cache_ + i * kPlpUnitBytes);
  }
  cache_n_ = 0;
  return Status::Ok();
}

void RealPlpRig::LoadThread(const PlpLoad& load, uint64_t seed, PlpJournal* journal) {
  Rng rng(seed);
  const uint32_t max_bytes = *std::max_element(load.block_bytes.begin(), load.block_bytes.end());
  void* raw = nullptr;
  if (posix_memalign(&raw, kPlpUnitBytes, max_bytes) != 0) return;
  char* buf = static_cast<char*>(raw);
  while (!stop_.load()) {
    if (load.flush == PlpLoad::Flush::kEvery && writes_since_flush_.load() >= load.flush_every &&
        flush_mu_.try_lock()) {
      std::lock_guard<std::mutex> unlock(flush_mu_, std::adopt_lock);
      writes_since_flush_.store(0);
      PlpJournal::Flush f;
      f.issue_ns = NowNs() - epoch_;
      const bool ok = fdatasync(fd_) == 0;
      if (ok) f.done_ns = NowNs() - epoch_;
      {
        std::lock_guard<std::mutex> lock(mu_);
        journal->flushes.push_back(f);
      }
      if (!ok) break;
      Status s = journal_->Record(fmt::format("f {} {}", f.issue_ns, f.done_ns));
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        journal_status_ = s;
        break;
      }
      continue;
    }
    const uint32_t bytes = load.block_bytes[rng.Below(load.block_bytes.size())];
    const uint64_t units = std::min<uint64_t>(bytes / kPlpUnitBytes, load.range_units);
    if (load.read_pct > 0 && rng.Uniform() * 100 < load.read_pct) {
      const uint64_t at = rng.Below(load.range_units - units + 1);
      if (pread(fd_, buf, units * kPlpUnitBytes, static_cast<off_t>(at * kPlpUnitBytes)) < 0) break;
      continue;
    }
    PlpJournal::Write w;
    {
      std::lock_guard<std::mutex> lock(mu_);
      uint64_t at = 0;
      bool found = false;
      for (int tries = 0; tries < 16 && !found; ++tries) {
        at = rng.Below(load.range_units - units + 1);
        found = std::none_of(busy_.begin() + static_cast<ptrdiff_t>(at),
                             busy_.begin() + static_cast<ptrdiff_t>(at + units),
                             [](char b) { return b != 0; });
      }
      if (!found) continue;
      std::fill_n(busy_.begin() + static_cast<ptrdiff_t>(at), units, 1);
      w.seq = seq_++;
      w.offset = at * kPlpUnitBytes;
      w.bytes = static_cast<uint32_t>(units * kPlpUnitBytes);
      w.fua = load.flush == PlpLoad::Flush::kFua;
    }
    filler_->Fill(reinterpret_cast<uint8_t*>(buf), w.bytes, w.offset, w.seq, rng);
    iovec iov{buf, w.bytes};
    w.issue_ns = NowNs() - epoch_;
    const ssize_t n = pwritev2(fd_, &iov, 1, static_cast<off_t>(w.offset), w.fua ? RWF_DSYNC : 0);
    const bool ok = n == static_cast<ssize_t>(w.bytes);
    if (ok) w.ack_ns = NowNs() - epoch_;
    {
      std::lock_guard<std::mutex> lock(mu_);
      journal->writes.push_back(w);
      std::fill_n(busy_.begin() + static_cast<ptrdiff_t>(w.offset / kPlpUnitBytes), units, 0);
    }
    if (!ok) break;
    ++acked_;
    ++writes_since_flush_;
    Status s = journal_->Record(fmt::format("w {} {} {} {} {} {}", w.seq, w.offset, w.bytes,
                                            w.issue_ns, w.ack_ns, w.fua ? 1 : 0));
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      journal_status_ = s;
      break;
    }
  }
  std::free(raw);
}

Status RealPlpRig::RunAndCut(const PlpLoad& load, uint64_t cut_after_ns, Rng& rng,
                             uint32_t* next_seq, PlpJournal* journal, PlpLoadAtCut* at_cut,
                             uint64_t* cut_ns) {
  ++cut_;
  SSDLAB_RETURN_IF_ERROR(Open());
  if (before_.empty()) SSDLAB_RETURN_IF_ERROR(Survey(load.range_units));
  cache_n_ = 0;
  busy_.assign(load.range_units, 0);
  stop_ = false;
  seq_ = *next_seq;
  writes_since_flush_ = 0;
  acked_ = 0;
  const uint64_t start = NowNs();
  std::vector<std::thread> threads;
  Status started = Status::Ok();
  for (uint32_t i = 0; i < load.qd && started.ok(); ++i) {
    auto t =
        StartThread([this, &load, journal, seed = rng.Next()] { LoadThread(load, seed, journal); },
                    "a plp load thread");
    if (t.ok()) {
      threads.push_back(std::move(t).value());
    } else {
      started = t.status();
    }
  }
  Status power = Status::Ok();
  if (started.ok()) {
    std::this_thread::sleep_until(
        std::chrono::steady_clock::time_point(std::chrono::nanoseconds(start + cut_after_ns)));
    power = journal_->Sync();  // every acknowledgement so far is off the drive
    if (power.ok()) power = RunPowerCommand("--power-off", o_.power_off, cut_);
  }
  stop_ = true;
  for (std::thread& t : threads) t.join();
  Close();  // the device went away with the power
  SSDLAB_RETURN_IF_ERROR(started);
  SSDLAB_RETURN_IF_ERROR(journal_status_);
  *cut_ns = NowNs() - epoch_;
  *next_seq = seq_.load();
  std::sort(journal->writes.begin(), journal->writes.end(),
            [](const PlpJournal::Write& a, const PlpJournal::Write& b) { return a.seq < b.seq; });
  std::sort(journal->flushes.begin(), journal->flushes.end(),
            [](const PlpJournal::Flush& a, const PlpJournal::Flush& b) {
              return a.issue_ns < b.issue_ns;
            });
  at_cut->writes_acked = acked_.load();
  at_cut->in_flight = static_cast<uint32_t>(
      std::count_if(journal->writes.begin(), journal->writes.end(),
                    [](const PlpJournal::Write& w) { return w.ack_ns == kPlpNever; }));
  at_cut->iops = static_cast<double>(acked_.load()) * 1e9 /
                 static_cast<double>(std::max<uint64_t>(1, *cut_ns + epoch_ - start));
  SSDLAB_RETURN_IF_ERROR(power);
  SSDLAB_RETURN_IF_ERROR(journal_->Record(fmt::format("c {} {}", cut_, *cut_ns)));
  return journal_->Sync();
}

Status RealPlpRig::Restore(uint64_t* ready_ns) {
  std::this_thread::sleep_for(std::chrono::nanoseconds(o_.settle_ns));
  const uint64_t on = NowNs();
  SSDLAB_RETURN_IF_ERROR(RunPowerCommand("--power-on", o_.power_on, cut_));
  // Ready: the device exists, is the same drive, and opens.
  while (true) {
    auto id = ReadIdentity(o_.target);
    if (id.ok()) {
      if (id->serial != id_.serial || id->model != id_.model || id->size != id_.size) {
        return Status::Invalid(fmt::format(
            "plp: {} came back as another drive after cut {}: serial '{}', model '{}', {} bytes "
            "(was serial '{}', model '{}', {} bytes)",
            o_.target, cut_, id->serial, id->model, id->size, id_.serial, id_.model, id_.size));
      }
      if (Open().ok()) break;
    }
    if (NowNs() - on > o_.ready_timeout_ns) {
      return Status::Io(fmt::format("plp: {} is not back {:.0f} s after --power-on (cut {})",
                                    o_.target, static_cast<double>(o_.ready_timeout_ns) / 1e9,
                                    cut_));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  *ready_ns = NowNs() - on;
  return journal_->Record(fmt::format("r {} {}", cut_, *ready_ns));
}

Result<PlpReading> RealPlpRig::Read(uint64_t lpn) {
  PlpReading r;
  r.lpn = lpn;
  SSDLAB_RETURN_IF_ERROR(Open());
  if (lpn < cache_first_ || lpn >= cache_first_ + cache_n_) {
    const uint64_t n = std::min(kChunkUnits, before_.size() - std::min(lpn, before_.size()));
    if (!Fill(lpn, std::max<uint64_t>(n, 1)) && !Fill(lpn, 1)) {
      r.readable = false;
      return r;
    }
  }
  const char* unit = cache_ + (lpn - cache_first_) * kPlpUnitBytes;
  if (AllZero(unit) || (lpn < before_.size() && UnitDigest(unit) == before_[lpn])) return r;
  std::vector<VerifyFailure> f;
  if (filler_->Check(reinterpret_cast<const uint8_t*>(unit), kPlpUnitBytes, lpn * kPlpUnitBytes, &f,
                     1) == 0) {
    uint64_t generation;
    std::memcpy(&generation, unit + 24, 8);  // the header: magic, offset, seed, generation
    r.seq = static_cast<uint32_t>(generation);
    return r;
  }
  if (f[0].outcome == VerifyOutcome::kWrongOffset) {
    r.lpn = f[0].found_offset / kPlpUnitBytes;
    r.seq = static_cast<uint32_t>(f[0].generation);
    return r;
  }
  r.intact = false;
  return r;
}

}  // namespace

bool IsJournalStream(const std::string& where) {
  const size_t colon = where.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == where.size()) return false;
  if (where.find('/') != std::string::npos) return false;
  return std::all_of(where.begin() + static_cast<ptrdiff_t>(colon) + 1, where.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

Result<std::unique_ptr<PlpJournalSink>> OpenPlpJournal(const std::string& where) {
  if (!IsJournalStream(where)) {
    const int fd = open(where.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return Status::Io("--journal " + where + ": " + std::strerror(errno));
    return std::unique_ptr<PlpJournalSink>(new FileJournal(where, fd));
  }
  const size_t colon = where.rfind(':');
  std::string host = where.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (const int e = getaddrinfo(host.c_str(), where.substr(colon + 1).c_str(), &hints, &res);
      e != 0)
    return Status::Io("--journal " + where + ": " + gai_strerror(e));
  int fd = -1, err = 0;
  for (addrinfo* a = res; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) return Status::Io("--journal " + where + ": cannot connect: " + std::strerror(err));
  return std::unique_ptr<PlpJournalSink>(new StreamJournal(where, fd));
}

Status CheckJournalOffTarget(const std::string& journal, const std::string& target) {
  if (IsJournalStream(journal)) return Status::Ok();
  SSDLAB_ASSIGN_OR_RETURN(DeviceIdentity t, IdentifyTarget(target));
  std::error_code ec;
  auto j = std::filesystem::exists(journal, ec)
               ? IdentifyTarget(journal)
               : IdentifyDirectory(std::filesystem::absolute(journal, ec).parent_path().string());
  if (j.ok() && j->disk && t.disk && j->disk->devno == t.disk->devno) {
    return Status::Invalid("--journal " + journal + " is on the drive under test (" + target +
                           "): the power cut reaches it; keep it on another disk, or stream it "
                           "to another host (--journal HOST:PORT)");
  }
  return Status::Ok();
}

Result<std::unique_ptr<PlpRig>> OpenRealPlpRig(const RealRigOptions& o, PlpJournalSink* journal) {
  SSDLAB_ASSIGN_OR_RETURN(Identity id, ReadIdentity(o.target));
  auto rig = std::make_unique<RealPlpRig>(o, journal, id);
  SSDLAB_RETURN_IF_ERROR(rig->Open());
  SSDLAB_RETURN_IF_ERROR(journal->Record(
      fmt::format("plp {} serial={} size={} nonce={}", o.target, id.serial, id.size, o.nonce)));
  return std::unique_ptr<PlpRig>(std::move(rig));
}

Status ReceivePlpJournal(uint16_t port, const std::string& out,
                         const std::function<void(uint16_t)>& listening, uint64_t* records) {
  *records = 0;
  const int file = open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (file < 0) return Status::Io("--out " + out + ": " + std::strerror(errno));
  const int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(port);
  socklen_t len = sizeof addr;
  if (ls < 0 || bind(ls, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(ls, 1) != 0 || getsockname(ls, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int e = errno;
    if (ls >= 0) close(ls);
    close(file);
    return Status::Io("--listen " + std::to_string(port) + ": " + std::strerror(e));
  }
  listening(ntohs(addr.sin_port));
  const int c = accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
  close(ls);
  if (c < 0) {
    close(file);
    return Status::Io(std::string("--listen: accept: ") + std::strerror(errno));
  }
  Status st = Status::Ok();
  std::string pending;
  char buf[65536];
  for (bool open_stream = true; open_stream && st.ok();) {
    const ssize_t n = read(c, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      open_stream = false;
      break;
    }
    pending.append(buf, static_cast<size_t>(n));
    std::string batch;
    size_t at = 0;
    for (size_t nl; st.ok() && (nl = pending.find('\n', at)) != std::string::npos; at = nl + 1) {
      const std::string line = pending.substr(at, nl - at);
      if (line != "sync") {
        batch += line + "\n";
        ++*records;
        continue;
      }
      st = WriteAll(file, batch);
      batch.clear();
      if (st.ok() && fdatasync(file) != 0) st = Status::Io(std::strerror(errno));
      if (st.ok()) st = WriteAll(c, "ok\n");
    }
    if (st.ok()) st = WriteAll(file, batch);
    pending.erase(0, at);
  }
  if (st.ok() && fdatasync(file) != 0) st = Status::Io(std::strerror(errno));
  close(c);
  close(file);
  if (!st.ok()) return Status::Io("plp journal: " + out + ": " + st.message());
  return Status::Ok();
}

}  // namespace ssdlab::usecase
