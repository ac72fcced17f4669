#include "base/path_registry.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>

#include "base/output_file.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxSymlinkHops = 40;  // as the kernel's own limit (ELOOP)

// The directory `dir` with its symlinks resolved as far as it exists.
fs::path RealDirectory(const fs::path& dir) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(dir, ec);
  return ec ? dir.lexically_normal() : real;
}

}  // namespace

Result<std::string> ResolvePath(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return Status::Io(path + ": " + ec.message());
  if (!p.has_filename()) p = p.parent_path();  // "dir/": the entry "dir"
  for (int hops = 0;; ++hops) {
    p = RealDirectory(p.parent_path()) / p.filename();
    if (!fs::is_symlink(p, ec)) break;
    if (hops == kMaxSymlinkHops)
      return Status::Invalid(path + ": too many levels of symbolic links");
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) return Status::Io(path + ": " + ec.message());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.lexically_normal().string();
}

std::string FileIdentity(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISBLK(st.st_mode))
      return "blk:" + std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
    return "ino:" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  Result<std::string> resolved = ResolvePath(path);
  return "path:" + (resolved.ok() ? resolved.value() : path);
}

void PathRegistry::Add(Kind kind, const std::string& flag, const std::string& what,
                       const std::string& path, bool written) {
  if (!path.empty()) entries_.push_back({kind, flag, what, path, written});
}

void PathRegistry::AddOutput(const std::string& flag, const std::string& path) {
  Add(Kind::kOutput, flag, flag + " " + path, path, true);
}

void PathRegistry::AddDatabase(const std::string& flag, const std::string& path, bool written) {
  if (path.empty()) return;
  Add(Kind::kDatabase, flag, flag + " " + path, path, written);
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    Add(Kind::kDatabase, flag, flag + " " + path, path + suffix, written);
}

void PathRegistry::AddState(const std::string& what, const std::string& path) {
  Add(Kind::kState, "", what, path, true);
}

void PathRegistry::AddInput(const std::string& what, const std::string& path) {
  Add(Kind::kInput, "", what, path, false);
}

void PathRegistry::AddTarget(const std::string& what, const std::string& path, bool written) {
  Add(Kind::kTarget, "", what, path, written);
}

Status PathRegistry::CheckWritten(const Entry& e) const {
  if (e.kind == Kind::kOutput) SSDLAB_RETURN_IF_ERROR(CheckOutputDestination(e.flag, e.path));
  struct stat st;
  if (stat(e.path.c_str(), &st) != 0) return Status::Ok();  // a new file
  if (S_ISDIR(st.st_mode)) return Status::Invalid(e.what + " is a directory");
  if (S_ISBLK(st.st_mode))
    return Status::Invalid(e.what + " is a block device; refusing to write over it");
  if (check_ && S_ISREG(st.st_mode)) {
    if (Status s = check_(e.path); !s.ok()) return s.WithContext(e.what);
  }
  return Status::Ok();
}

Status PathRegistry::Check() const {
  const Entry* on_stdout = nullptr;
  std::vector<std::string> ids(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.kind == Kind::kOutput && e.path == "-") {
      if (on_stdout)
        return Status::Invalid(e.flag + " - and " + on_stdout->flag +
                               " - would both write to stdout");
      on_stdout = &e;
      continue;
    }
    if (e.written && e.kind != Kind::kTarget) SSDLAB_RETURN_IF_ERROR(CheckWritten(e));
    ids[i] = FileIdentity(e.path);
    for (size_t j = 0; j < i; ++j) {
      const Entry& o = entries_[j];
      if (ids[j] != ids[i] || !(e.written || o.written)) continue;
      const Entry& writer = e.written ? e : o;
      const Entry& other = e.written ? o : e;
      return Status::Invalid(writer.what + " is the same file as " + other.what +
                             "; refusing to overwrite it");
    }
  }
  return Status::Ok();
}

}  // namespace ssdlab
