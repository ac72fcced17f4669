#include "serve/data_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace ssdlab::serve {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kHeaderBytes = 4096;

class Memory final : public DataStore {
 public:
  explicit Memory(uint64_t capacity) : capacity_(capacity) {}
  Status Read(uint64_t offset, uint32_t bytes, char* out) override {
    ForPages(offset, bytes, [&](uint64_t page, uint64_t in_page, uint64_t n, uint64_t at) {
      auto it = pages_.find(page);
      if (it == pages_.end()) {
        std::memset(out + at, 0, n);
      } else {
        std::memcpy(out + at, it->second->data() + in_page, n);
      }
    });
    return Status::Ok();
  }
  Status Write(uint64_t offset, uint32_t bytes, const char* in) override {
    ForPages(offset, bytes, [&](uint64_t page, uint64_t in_page, uint64_t n, uint64_t at) {
      auto& p = pages_[page];
      if (!p) {
        p = std::make_unique<Page>();
        if (n < kPage) p->fill(0);
      }
      std::memcpy(p->data() + in_page, in + at, n);
    });
    return Status::Ok();
  }
  Status Punch(uint64_t offset, uint64_t bytes) override {
    ForPages(offset, bytes, [&](uint64_t page, uint64_t in_page, uint64_t n, uint64_t) {
      auto it = pages_.find(page);
      if (it == pages_.end()) return;
      if (n == kPage) {
        pages_.erase(it);
      } else {
        std::memset(it->second->data() + in_page, 0, n);
      }
    });
    return Status::Ok();
  }
  Status Sync() override { return Status::Ok(); }
  uint64_t held_bytes() const override { return pages_.size() * kPage; }

 private:
  using Page = std::array<char, kPage>;
  // f(page index, offset in the page, bytes in the page, offset in the caller's buffer).
  template <class F>
  void ForPages(uint64_t offset, uint64_t bytes, F&& f) {
    uint64_t at = 0;
    while (at < bytes) {
      const uint64_t pos = offset + at, in_page = pos % kPage;
      const uint64_t n = std::min(kPage - in_page, bytes - at);
      f(pos / kPage, in_page, n, at);
      at += n;
    }
  }
  uint64_t capacity_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

class File final : public DataStore {
 public:
  File(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~File() override { close(fd_); }
  Status Read(uint64_t offset, uint32_t bytes, char* out) override {
    return Io(pread(fd_, out, bytes, static_cast<off_t>(kHeaderBytes + offset)), bytes, "read");
  }
  Status Write(uint64_t offset, uint32_t bytes, const char* in) override {
    return Io(pwrite(fd_, in, bytes, static_cast<off_t>(kHeaderBytes + offset)), bytes, "write");
  }
  Status Punch(uint64_t offset, uint64_t bytes) override {
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  static_cast<off_t>(kHeaderBytes + offset), static_cast<off_t>(bytes)) != 0) {
      return Status::Io("cannot punch a hole in " + path_ + ": " + std::strerror(errno));
    }
    return Status::Ok();
  }
  Status Sync() override {
    if (fdatasync(fd_) != 0)
      return Status::Io("cannot sync " + path_ + ": " + std::strerror(errno));
    return Status::Ok();
  }
  uint64_t held_bytes() const override {
    struct stat st {};
    return fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
  }

 private:
  Status Io(ssize_t n, uint32_t want, const char* what) {
    if (n == static_cast<ssize_t>(want)) return Status::Ok();
    return Status::Io(std::string("cannot ") + what + " " + path_ + ": " +
                      (n < 0 ? std::strerror(errno) : "short transfer"));
  }
  std::string path_;
  int fd_;
};

std::string Header(uint64_t capacity, const std::string& drive_id) {
  return "ssdlab serve data 1\ndrive " + drive_id + "\ncapacity " + std::to_string(capacity) + "\n";
}

}  // namespace

std::unique_ptr<DataStore> MemoryStore(uint64_t capacity_bytes) {
  return std::make_unique<Memory>(capacity_bytes);
}

Result<std::unique_ptr<DataStore>> OpenFileStore(const std::string& path, uint64_t capacity_bytes,
                                                 const std::string& drive_id) {
  const std::string want = Header(capacity_bytes, drive_id);
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    std::vector<char> head(kHeaderBytes);
    const ssize_t n = pread(fd, head.data(), head.size(), 0);
    if (n < static_cast<ssize_t>(want.size()) || std::memcmp(head.data(), want.data(), 18) != 0) {
      close(fd);
      return Status::Invalid("data file " + path +
                             " is not a served drive's data (ssdlab serve data); refusing to "
                             "overwrite it");
    }
    if (std::memcmp(head.data(), want.data(), want.size()) != 0) {
      close(fd);
      const std::string text(head.data(), strnlen(head.data(), head.size()));
      const size_t a = text.find('\n') + 1, b = text.find('\n', text.find('\n', a) + 1);
      std::string found = text.substr(a, b - a);
      for (char& c : found)
        if (c == '\n') c = ' ';
      return Status::Invalid("data file " + path + " belongs to another drive (" + found +
                             ", not drive " + drive_id + " capacity " +
                             std::to_string(capacity_bytes) + "); refusing to use it");
    }
    return std::unique_ptr<DataStore>(std::make_unique<File>(path, fd));
  }
  if (errno != ENOENT) return Status::Io("cannot open " + path + ": " + std::strerror(errno));
  fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Io("cannot create " + path + ": " + std::strerror(errno));
  std::vector<char> head(kHeaderBytes, 0);
  std::memcpy(head.data(), want.data(), want.size());
  if (pwrite(fd, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size()) ||
      ftruncate(fd, static_cast<off_t>(kHeaderBytes + capacity_bytes)) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    unlink(path.c_str());
    return Status::Io("cannot create " + path + ": " + why);
  }
  return std::unique_ptr<DataStore>(std::make_unique<File>(path, fd));
}

}  // namespace ssdlab::serve
