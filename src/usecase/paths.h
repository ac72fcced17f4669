// The registry of a command's paths (base/path_registry.h) as the command line fills it: with
// the device checks of device/safety.h for the files it writes, and the files inside targets
// (a simulated drive's state and preset files, every array member's) and traces (every per-CPU
// file of a blktrace set). Every command that writes a file registers all of its paths and
// checks them once, before it creates a database, opens a target or writes anything.
#pragma once

#include <string>
#include <vector>

#include "base/path_registry.h"
#include "base/status.h"

namespace ssdlab::usecase {

// An empty registry whose written files must pass device/safety.h CheckResultFileWritable.
PathRegistry CommandPaths();

// `target`, the value of `flag` ("--target"): for a simulated drive (or array), each member's
// state= file (read and written) and preset file (read); for a file or block device, the target
// itself, written when `writes`. Invalid as the simulator's parser for a malformed simulated
// target.
Status AddTargetPaths(PathRegistry& r, const std::string& flag, const std::string& target,
                      bool writes);

// The files a workload on `target` writes, for comparisons across processes (fleet ranks):
// a file or block device itself, or a simulated drive's state files (none without state=).
struct WrittenFile {
  std::string what;  // e.g. "--target /t/a.img", "state= of --target sim:tiny?state=s.st"
  std::string path;
};
Result<std::vector<WrittenFile>> TargetWrittenFiles(const std::string& flag,
                                                    const std::string& target);

// A results database given by `flag` ("--db"), written unless read-only; a PostgreSQL URL
// names no file and is not registered.
void AddDatabasePath(PathRegistry& r, const std::string& flag, const std::string& db, bool written);

// The vendor claims file of `--spec SPEC`: SPEC itself when it exists or names a directory
// (has a '/'); otherwise SPEC or SPEC.toml among the claims files shipped with ssdlab, in the
// binary's ../share/ssdlab/specs (installed) or ../specs (the build tree beside the sources),
// the first that exists; SPEC unchanged when none does (reading it then names it).
std::string ClaimsFilePath(const std::string& spec);

// A trace read through `what` ("TRACE"): the file, or every per-CPU file of its blktrace set.
void AddTracePaths(PathRegistry& r, const std::string& what, const std::string& trace);

}  // namespace ssdlab::usecase
