#include "base/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

std::string DirOf(const std::string& path) {
  std::string d = fs::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

Status CheckDestination(const std::string& flag, const std::string& path, struct stat* st,
                        bool* exists) {
  *exists = stat(path.c_str(), st) == 0;
  if (*exists) {
    if (S_ISDIR(st->st_mode)) return Status::Invalid(flag + " " + path + " is a directory");
    if (S_ISBLK(st->st_mode))
      return Status::Invalid(flag + " " + path +
                             " is a block device; refusing to write a result over it");
  }
  std::string dir = DirOf(path);
  struct stat ds;
  if (stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode))
    return Status::NotFound(flag + " " + path + ": directory " + dir + " does not exist");
  bool in_place = *exists && (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode));
  if (!in_place && access(dir.c_str(), W_OK | X_OK) != 0)
    return Status::Refused(flag + " " + path + ": cannot create files in " + dir + " (" +
                           std::strerror(errno) + ")");
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& flag,
                                                       const std::string& path) {
  struct stat st;
  bool exists = false;
  if (Status s = CheckDestination(flag, path, &st, &exists); !s.ok()) return s;
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return Status::Io(flag + " " + path + ": " + std::strerror(errno));
    return std::unique_ptr<OutputFile>(new OutputFile(flag, path, "", f));
  }
  fs::path p(path);
  std::string temp = (fs::path(DirOf(path)) / ("." + p.filename().string() + ".ssdlab-" +
                                               std::to_string(getpid()) + ".tmp"))
                         .string();
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                exists ? (st.st_mode & 07777) : 0644);
  if (fd < 0)
    return Status::Io(flag + " " + path + ": cannot create " + temp + ": " + std::strerror(errno));
  FILE* f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(temp.c_str());
    return Status::Io(flag + " " + path + ": " + std::strerror(errno));
  }
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  return std::unique_ptr<OutputFile>(new OutputFile(flag, path, temp, f));
}

OutputFile::~OutputFile() {
  if (f_) std::fclose(f_);
  if (f_ && !temp_.empty()) unlink(temp_.c_str());
}

void OutputFile::Write(const void* data, size_t bytes) {
  if (!f_ || error_) return;
  if (std::fwrite(data, 1, bytes, f_) != bytes) error_ = errno ? errno : EIO;
}

Status OutputFile::Commit() {
  if (!f_) return Status::Invalid(flag_ + " " + path_ + ": already written");
  if (!error_ && std::fflush(f_) != 0) error_ = errno;
  if (!error_ && !temp_.empty() && fsync(fileno(f_)) != 0) error_ = errno;
  int rc = std::fclose(f_);
  f_ = nullptr;
  if (!error_ && rc != 0) error_ = errno;
  if (!error_ && !temp_.empty() && rename(temp_.c_str(), path_.c_str()) != 0) error_ = errno;
  if (error_) {
    if (!temp_.empty()) unlink(temp_.c_str());
    std::string what = flag_ + " " + path_ + ": write failed (" + std::strerror(error_) + ")" +
                       (temp_.empty() ? "" : "; the previous file, if any, is unchanged");
    return Status::Error(error_ == ENOSPC || error_ == EDQUOT ? Code::kNoSpace : Code::kIoError,
                         what);
  }
  if (!temp_.empty()) {  // the rename itself is durable once the directory is synced
    int dfd = open(DirOf(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
  }
  return Status::Ok();
}

Status WriteOutputFile(const std::string& flag, const std::string& path, const std::string& text) {
  auto f = OutputFile::Create(flag, path);
  if (!f.ok()) return f.status();
  (*f)->Write(text);
  return (*f)->Commit();
}

Status CheckOutputDestination(const std::string& flag, const std::string& path) {
  struct stat st;
  bool exists = false;
  return CheckDestination(flag, path, &st, &exists);
}

}  // namespace ssdlab
