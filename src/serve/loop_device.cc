#include "serve/loop_device.h"

#include <filesystem>
#include <fstream>

#include "base/process.h"

namespace ssdlab::serve {
namespace {

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Result<std::string> AttachLoop(const std::string& image) {
  SSDLAB_ASSIGN_OR_RETURN(
      ProcessResult r,
      RunProcess({"losetup", "--direct-io=on", "-f", "--show", image}, 60, "util-linux"));
  if (r.exit_code != 0)
    return Status::Io("losetup " + image + " failed: " + Trimmed(r.err.empty() ? r.out : r.err));
  return Trimmed(r.out);
}

Result<BlockStat> ReadBlockStat(const std::string& device) {
  const std::string path =
      "/sys/block/" + std::filesystem::path(device).filename().string() + "/stat";
  std::ifstream in(path);
  uint64_t f[8] = {};
  for (uint64_t& x : f) in >> x;
  if (!in) return Status::Io("cannot read the block counters of " + device + " (" + path + ")");
  // Fields: reads, merged, sectors, read ms, writes, merged, sectors, write ms, ...
  return BlockStat{f[0], f[3], f[4], f[7]};
}

std::vector<std::string> LoopsBackedBy(const std::string& image) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/block", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("loop", 0) != 0) continue;
    std::ifstream in(e.path() / "loop" / "backing_file");
    std::string back;
    if (!std::getline(in, back)) continue;
    const std::string deleted = " (deleted)";
    if (back.size() > deleted.size() &&
        back.compare(back.size() - deleted.size(), deleted.size(), deleted) == 0)
      back.resize(back.size() - deleted.size());
    if (back == image) out.push_back("/dev/" + name);
  }
  return out;
}

Status DetachLoop(const std::string& device) {
  SSDLAB_ASSIGN_OR_RETURN(ProcessResult r, RunProcess({"losetup", "-d", device}, 60, "util-linux"));
  if (r.exit_code != 0) return Status::Io("losetup -d " + device + " failed: " + Trimmed(r.err));
  return Status::Ok();
}

}  // namespace ssdlab::serve
