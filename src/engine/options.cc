#include "engine/options.h"

#include <sched.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "base/units.h"

namespace ssdlab {

std::string ReadSysfs(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}
namespace {

constexpr uint32_t kMaxCpus = 4096;

// A CPU number: a count (ParseCount) of at most 9 digits.
bool ParseUint(const std::string& s, uint32_t& out) {
  auto v = ParseCount(s);
  if (s.size() > 9 || !v.ok()) return false;
  out = static_cast<uint32_t>(v.value());
  return true;
}

}  // namespace

Result<std::vector<uint32_t>> ParseCpuList(const std::string& text) {
  std::vector<uint32_t> cpus;
  auto bad = [&](const std::string& why) {
    return Status::Invalid("--cpus-allowed '" + text + "': " + why + " (expected e.g. 0,2-3)");
  };
  if (text.empty()) return bad("empty");
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t dash = item.find('-');
    uint32_t lo, hi;
    if (dash == std::string::npos) {
      if (!ParseUint(item, lo)) return bad("'" + item + "' is not a CPU number");
      hi = lo;
    } else if (!ParseUint(item.substr(0, dash), lo) || !ParseUint(item.substr(dash + 1), hi)) {
      return bad("'" + item + "' is not a CPU range");
    }
    if (lo > hi) return bad("range '" + item + "' is reversed");
    if (hi >= kMaxCpus)
      return bad("CPU " + std::to_string(hi) + " is beyond " + std::to_string(kMaxCpus - 1));
    for (uint32_t c = lo; c <= hi; ++c) cpus.push_back(c);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

Status ParseBatchComplete(const std::string& text, uint32_t& min, uint32_t& max) {
  auto bad = [&] {
    return Status::Invalid("--batch-complete '" + text +
                           "': expected auto, MIN or MIN:MAX with 1 <= MIN <= MAX");
  };
  if (text == "auto") {
    min = kBatchCompleteAuto;
    max = 0;
    return Status::Ok();
  }
  size_t colon = text.find(':');
  uint32_t lo = 0, hi = 0;
  if (!ParseUint(text.substr(0, colon), lo) || lo == 0) return bad();
  if (colon != std::string::npos && (!ParseUint(text.substr(colon + 1), hi) || hi < lo))
    return bad();
  min = lo;
  max = hi;
  return Status::Ok();
}

Result<AutoOnOff> ParseAutoOnOff(const char* flag, const std::string& text) {
  if (text == "auto") return AutoOnOff::kAuto;
  if (text == "on") return AutoOnOff::kOn;
  if (text == "off") return AutoOnOff::kOff;
  return Status::Invalid(std::string(flag) + " '" + text + "': expected auto, on or off");
}

const char* AutoOnOffName(AutoOnOff v) {
  switch (v) {
    case AutoOnOff::kOn:
      return "on";
    case AutoOnOff::kOff:
      return "off";
    case AutoOnOff::kAuto:
      break;
  }
  return "auto";
}

uint32_t AsyncWorkers(size_t cpus, uint32_t jobs) {
  return std::max<uint32_t>(1, static_cast<uint32_t>(cpus / std::max<uint32_t>(jobs, 1)));
}

bool IssuesWithoutBlocking(int fd) {
  alignas(4096) uint8_t buf[4096];  // O_DIRECT: an aligned block
  iovec iov{buf, sizeof buf};
  return preadv2(fd, &iov, 1, 0, RWF_NOWAIT) >= 0 || errno != EOPNOTSUPP;
}

std::vector<uint32_t> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<uint32_t> out;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
  for (uint32_t c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

Status CheckCpus(const std::string& flag, const std::vector<uint32_t>& cpus) {
  std::vector<uint32_t> allowed = AllowedCpus();
  for (uint32_t c : cpus) {
    if (!std::binary_search(allowed.begin(), allowed.end(), c)) {
      return Status::Invalid(flag + ": CPU " + std::to_string(c) +
                             " is not available (this process may use " + FormatCpuList(allowed) +
                             ")");
    }
  }
  return Status::Ok();
}

std::string BlockSysDir(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "";
  dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  if (major(d) == 0) return "";  // tmpfs, overlay: no block device
  return "/sys/dev/block/" + std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

int DeviceNumaNode(const std::string& sys_dir) {
  if (sys_dir.empty()) return -1;
  for (const std::string& p : {sys_dir + "/device/numa_node", sys_dir + "/../device/numa_node",
                               sys_dir + "/device/device/numa_node"}) {
    std::string v = ReadSysfs(p);
    if (v.empty()) continue;
    if (v[0] == '-') return -1;
    uint32_t n;
    if (ParseUint(v, n)) return static_cast<int>(n);
  }
  return -1;
}

std::vector<uint32_t> NodeCpus(int node) {
  if (node < 0) return {};
  std::string list = ReadSysfs("/sys/devices/system/node/node" + std::to_string(node) + "/cpulist");
  if (list.empty()) return {};
  auto cpus = ParseCpuList(list);
  return cpus.ok() ? cpus.value() : std::vector<uint32_t>{};
}

int DevicePollQueues(const std::string& sys_dir) {
  if (sys_dir.empty()) return -1;
  for (const std::string& p : {sys_dir + "/queue/io_poll", sys_dir + "/../queue/io_poll"}) {
    std::string v = ReadSysfs(p);
    if (v == "0") return 0;
    if (v == "1") return 1;
  }
  return -1;
}

std::string FormatCpuList(const std::vector<uint32_t>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ssdlab
