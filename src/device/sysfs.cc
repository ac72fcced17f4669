#include "device/sysfs.h"

#include <sys/sysmacros.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>

namespace ssdlab {

std::string ReadSysLine(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string s;
  if (!in || !std::getline(in, s)) return "";
  return std::string(Trim(s, kSpaceOrNul));
}

std::string ReadSysBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return "";
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint64_t ReadSysU64(const std::filesystem::path& p, uint64_t fallback) {
  std::string s = ReadSysLine(p);
  if (s.empty()) return fallback;
  try {
    size_t used = 0;
    uint64_t v = std::stoull(s, &used, 0);
    return used == s.size() ? v : fallback;
  } catch (...) {
    return fallback;
  }
}

std::string DevNoString(dev_t d) {
  return std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

std::string UnescapeMountField(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

namespace {

bool UnderMount(const std::string& path, const std::string& mp) {
  if (mp == "/") return true;
  return path.compare(0, mp.size(), mp) == 0 &&
         (path.size() == mp.size() || path[mp.size()] == '/');
}

}  // namespace

MountEntry FindMount(dev_t dev, const std::string& canonical_path, const std::string& proc_root) {
  std::ifstream mi(proc_root + "/self/mountinfo");
  std::string line, want = DevNoString(dev);
  MountEntry best;
  while (std::getline(mi, line)) {
    std::istringstream in(line);
    std::string id, parent, majmin, root, mp, tok;
    in >> id >> parent >> majmin >> root >> mp;
    while (in >> tok && tok != "-") {
    }
    MountEntry e;
    in >> e.fstype >> e.source;
    e.devno = majmin;
    e.mount_point = UnescapeMountField(mp);
    e.source = UnescapeMountField(e.source);
    if (majmin != want || !UnderMount(canonical_path, e.mount_point)) continue;
    if (e.mount_point.size() >= best.mount_point.size()) best = e;
  }
  return best;
}

}  // namespace ssdlab
