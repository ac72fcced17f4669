#include "engine/file_facts.h"

#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "engine/options.h"

namespace ssdlab {

std::string SysBlockDir(dev_t d) {
  return "/sys/dev/block/" + std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

uint32_t FileDirectIoAlign(dev_t st_dev) {
  std::string dir = SysBlockDir(st_dev);
  for (const std::string& q :
       {dir + "/queue/logical_block_size", dir + "/../queue/logical_block_size"}) {
    std::string v = ReadSysfs(q);
    if (!v.empty()) return static_cast<uint32_t>(std::stoul(v));
  }
  return 512;
}

Result<uint64_t> UnwrittenBytes(int fd, uint64_t begin, uint64_t end) {
  constexpr unsigned kExtents = 64;
  std::vector<uint8_t> mem(sizeof(fiemap) + kExtents * sizeof(fiemap_extent));
  auto* fm = reinterpret_cast<fiemap*>(mem.data());
  uint64_t pos = begin, unwritten = 0;
  while (pos < end) {
    std::memset(mem.data(), 0, mem.size());
    fm->fm_start = pos;
    fm->fm_length = end - pos;
    fm->fm_extent_count = kExtents;
    if (ioctl(fd, FS_IOC_FIEMAP, fm) != 0)
      return Status::Error(Code::kUnsupported, std::string("FIEMAP: ") + std::strerror(errno));
    if (fm->fm_mapped_extents == 0) return unwritten + (end - pos);  // a hole up to the end
    bool last = false;
    for (unsigned i = 0; i < fm->fm_mapped_extents; ++i) {
      const fiemap_extent& e = fm->fm_extents[i];
      uint64_t e_begin = std::max<uint64_t>(e.fe_logical, pos);
      uint64_t e_end = std::min<uint64_t>(e.fe_logical + e.fe_length, end);
      if (e_begin > pos) unwritten += std::min(e_begin, end) - pos;  // hole before the extent
      if (e_end > e_begin && (e.fe_flags & FIEMAP_EXTENT_UNWRITTEN)) unwritten += e_end - e_begin;
      pos = std::max(pos, e_end);
      last = e.fe_flags & FIEMAP_EXTENT_LAST;
      if (pos >= end || last) break;
    }
    if (last && pos < end) return unwritten + (end - pos);
  }
  return unwritten;
}

}  // namespace ssdlab
