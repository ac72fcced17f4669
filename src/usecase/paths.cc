#include "usecase/paths.h"

#include <filesystem>

#include "device/safety.h"
#include "sim/sim.h"
#include "store/store.h"
#include "trace/trace.h"

namespace ssdlab::usecase {

std::string ClaimsFilePath(const std::string& spec) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (spec.empty() || fs::exists(spec, ec) || spec.find('/') != std::string::npos) return spec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return spec;
  for (const fs::path& dir : {exe_dir / "../share/ssdlab/specs", exe_dir / "../specs"})
    for (const std::string& name : {spec, spec + ".toml"})
      if (fs::is_regular_file(dir / name, ec)) return (dir / name).lexically_normal().string();
  return spec;
}

PathRegistry CommandPaths() {
  return PathRegistry([](const std::string& path) { return CheckResultFileWritable(path); });
}

Status AddTargetPaths(PathRegistry& r, const std::string& flag, const std::string& target,
                      bool writes) {
  if (!IsSimTarget(target)) {
    r.AddTarget(flag + " " + target, target, writes);
    return Status::Ok();
  }
  SSDLAB_ASSIGN_OR_RETURN(SimTargetFiles files, SimTargetFilesOf(target));
  for (const SimTargetFiles::Member& m : files.members) {
    r.AddState("state= of " + flag + " " + m.target, m.state_path);
    r.AddInput("the preset file of " + flag + " " + m.target, m.preset_file);
  }
  return Status::Ok();
}

Result<std::vector<WrittenFile>> TargetWrittenFiles(const std::string& flag,
                                                    const std::string& target) {
  if (!IsSimTarget(target)) return std::vector<WrittenFile>{{flag + " " + target, target}};
  SSDLAB_ASSIGN_OR_RETURN(SimTargetFiles files, SimTargetFilesOf(target));
  std::vector<WrittenFile> out;
  for (const SimTargetFiles::Member& m : files.members) {
    if (!m.state_path.empty()) out.push_back({"state= of " + flag + " " + m.target, m.state_path});
  }
  return out;
}

void AddDatabasePath(PathRegistry& r, const std::string& flag, const std::string& db,
                     bool written) {
  if (!Store::IsUrl(db)) r.AddDatabase(flag, db, written);
}

void AddTracePaths(PathRegistry& r, const std::string& what, const std::string& trace) {
  if (trace.empty()) return;
  for (const std::string& f : trace::TraceFiles(trace))
    r.AddInput(
        f == trace ? what + " " + trace : what + " " + trace + " (its per-CPU file " + f + ")", f);
}

}  // namespace ssdlab::usecase
