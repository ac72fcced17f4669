// Small helpers for reading sysfs and procfs. Private to device/.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/strings.h"

namespace ssdlab {

// The first line of `p` with surrounding whitespace removed; "" when unreadable.
std::string ReadSysLine(const std::filesystem::path& p);
// The whole of `p` (binary safe); "" when unreadable.
std::string ReadSysBytes(const std::filesystem::path& p);
// An unsigned number from `p` (decimal or 0x hex); `fallback` when absent or malformed.
uint64_t ReadSysU64(const std::filesystem::path& p, uint64_t fallback = 0);
// Whitespace and NUL: what sysfs, ATA and SCSI strings and tools' output are padded with; device
// strings are trimmed of them (Trim, base/strings.h).
inline constexpr std::string_view kSpaceOrNul{" \t\n\v\f\r\0", 7};
std::string DevNoString(dev_t d);
// Undoes the octal escapes (\\040 for a space) of /proc/self/mountinfo and /proc/swaps.
std::string UnescapeMountField(const std::string& s);

// One line of /proc/self/mountinfo.
struct MountEntry {
  std::string devno;        // "254:0"
  std::string mount_point;  // unescaped
  std::string fstype;
  std::string source;  // "/dev/vda", "tmpfs", ...
};
// The mount of the filesystem with device number `dev` that holds `canonical_path` (the
// longest matching mount point), or one with empty fields.
MountEntry FindMount(dev_t dev, const std::string& canonical_path, const std::string& proc_root);

}  // namespace ssdlab
