// The one registry of the paths a command reads and writes. A command registers every path it
// will touch (outputs, the results database, simulator state files, traces, preset, claims and
// map files, targets) and checks them together, once, before anything runs: before a database
// is created, a target opened or an output begun. Nothing is written by the registry itself.
//
// Paths are compared by where they lead, not by how they are spelled: an existing file by its
// device and inode (symlinks and hard links meet), a missing one by its absolute path with the
// symlinks of its existing parents resolved ("a.st" in /t and "/t/a.st" meet).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

class PathRegistry {
 public:
  // The device checks of a file the command writes whole (an output, a database, a state file;
  // never a target, whose checks come with opening it): Ok, or Refused naming `path` and why
  // (an active swap file, a loop device's backing file). base/ knows no devices: the command
  // line supplies it (device/safety.h CheckResultFileWritable). Called only for paths that
  // exist.
  using WrittenFileCheck = std::function<Status(const std::string& path)>;
  explicit PathRegistry(WrittenFileCheck check = {}) : check_(std::move(check)) {}

  // In each, `what` names the path in messages ("--json out.json", "state= of --target
  // sim:tiny?state=s.st"); an empty path is not registered.
  //
  // A result written whole (base/output_file.h) by option `flag`; "-" is stdout.
  void AddOutput(const std::string& flag, const std::string& path);
  // A results database file and its -wal, -shm and -journal files; written unless read-only.
  void AddDatabase(const std::string& flag, const std::string& path, bool written);
  // A simulated drive's saved state (state=): read, and written at the end.
  void AddState(const std::string& what, const std::string& path);
  // A file only read: a preset, --base, --twin, --spec, a claims or map file, a trace file.
  void AddInput(const std::string& what, const std::string& path);
  // A file or block device a workload runs on, written when `written`.
  void AddTarget(const std::string& what, const std::string& path, bool written);

  // Ok when every path may be used as registered; otherwise the first problem, one line:
  //  - an output that cannot be written (missing or unwritable directory, a directory, a
  //    block device), two outputs on stdout (Invalid, NotFound, Refused);
  //  - a database or state file that is a directory or a block device (Invalid);
  //  - an output, database or state file that WrittenFileCheck refuses (Refused);
  //  - two registered paths that are one file when at least one of them is written (reading
  //    one file twice is fine): Invalid "WRITTEN is the same file as OTHER; refusing to
  //    overwrite it".
  Status Check() const;

 private:
  enum class Kind { kOutput, kDatabase, kState, kInput, kTarget };
  struct Entry {
    Kind kind;
    std::string flag;  // outputs: the option, for the stdout message
    std::string what;
    std::string path;
    bool written;
  };
  void Add(Kind kind, const std::string& flag, const std::string& what, const std::string& path,
           bool written);
  Status CheckWritten(const Entry& e) const;

  std::vector<Entry> entries_;
  WrittenFileCheck check_;
};

// The file `path` leads to: absolute, every symlink followed (a symlink to a file that does not
// exist yet resolves to that file), "." and ".." removed. A missing final file (or missing
// directories) is not an error. Invalid, naming `path`, for a symlink loop; Io when a symlink
// cannot be read.
Result<std::string> ResolvePath(const std::string& path);

// Where `path` leads, as text that is equal for two paths exactly when the registry takes them
// for one file: "dev:ino" of an existing file, "blk:MAJ:MIN" of a block device (any node of
// it), else "path:" and the resolved absolute path. For comparisons across processes (the
// ranks of a fleet, each adding its host name).
std::string FileIdentity(const std::string& path);

}  // namespace ssdlab
