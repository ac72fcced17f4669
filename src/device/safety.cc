#include "device/safety.h"

#include <blkid/blkid.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "device/sysfs.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

struct BlockDev {
  dev_t devno;
  std::string name;  // kernel name, e.g. "sdb1"
};

Result<dev_t> ParseDevNo(const std::string& text) {
  unsigned maj = 0, min = 0;
  if (std::sscanf(text.c_str(), "%u:%u", &maj, &min) != 2) {
    return Status::Invalid("bad device number '" + text + "'");
  }
  return makedev(maj, min);
}

// The device and, for a whole disk, its partitions.
std::vector<BlockDev> DeviceFamily(dev_t devno, const std::string& sys_root) {
  std::vector<BlockDev> out;
  fs::path sys = fs::path(sys_root) / "dev/block" / DevNoString(devno);
  std::error_code ec;
  fs::path real = fs::canonical(sys, ec);
  std::string name = ec ? DevNoString(devno) : real.filename().string();
  out.push_back({devno, name});
  if (ec || fs::exists(real / "partition")) return out;
  for (const auto& entry : fs::directory_iterator(real, ec)) {
    if (!fs::exists(entry.path() / "partition")) continue;
    auto d = ParseDevNo(ReadSysLine(entry.path() / "dev"));
    if (d.ok()) out.push_back({d.value(), entry.path().filename().string()});
  }
  return out;
}

// Loop devices whose backing file is the inode (dev, ino), as "/dev/loopN".
std::vector<std::string> LoopsBackedBy(dev_t dev, ino_t ino, const std::string& sys_root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(sys_root) / "block", ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("loop", 0) != 0) continue;
    // The kernel reports the path the file had when attached, " (deleted)" once unlinked; the
    // inode numbers in loop/backing_inode and backing_dev would survive renames, but not
    // every kernel has them, so match by path and confirm by inode.
    std::string backing = ReadSysLine(entry.path() / "loop" / "backing_file");
    if (backing.empty()) continue;
    const std::string deleted = " (deleted)";
    if (backing.size() > deleted.size() &&
        backing.compare(backing.size() - deleted.size(), deleted.size(), deleted) == 0)
      backing.resize(backing.size() - deleted.size());
    struct stat bst;
    bool same = stat(backing.c_str(), &bst) == 0 && bst.st_dev == dev && bst.st_ino == ino;
    std::string inode = ReadSysLine(entry.path() / "loop" / "backing_inode");
    if (!same && !inode.empty() && std::strtoull(inode.c_str(), nullptr, 10) == ino) {
      std::string bdev = ReadSysLine(entry.path() / "loop" / "backing_dev");
      same = bdev.empty() || std::strtoull(bdev.c_str(), nullptr, 10) == dev;
    }
    if (same) out.push_back("/dev/" + name);
  }
  return out;
}

// The paths of the active swap areas (devices and files), from PROC/swaps.
std::vector<std::string> SwapAreas(const std::string& proc_root) {
  std::vector<std::string> out;
  std::ifstream sw(proc_root + "/swaps");
  std::string line;
  std::getline(sw, line);  // header
  while (std::getline(sw, line))
    out.push_back(UnescapeMountField(line.substr(0, line.find_first_of(" \t"))));
  return out;
}

// Refused when the inode is an active swap file.
Status CheckNotSwapFile(const std::string& path, dev_t dev, ino_t ino,
                        const std::string& proc_root) {
  for (const std::string& f : SwapAreas(proc_root)) {
    struct stat sst;
    if (stat(f.c_str(), &sst) == 0 && S_ISREG(sst.st_mode) && sst.st_dev == dev &&
        sst.st_ino == ino)
      return Status::Refused(path + " is in use as swap; refusing to write");
  }
  return Status::Ok();
}

// The checks a regular file to be written passes: not a swap file, not the backing file of a
// loop device in use. Sets *idle_loop to a loop device backed by the file but idle ("" if none),
// for the caller to decide.
Status CheckFileNotInUse(const std::string& path, const std::string& proc_root,
                         const std::string& sys_root, std::string* idle_loop) {
  idle_loop->clear();
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return Status::Ok();  // a new file
  SSDLAB_RETURN_IF_ERROR(CheckNotSwapFile(path, st.st_dev, st.st_ino, proc_root));
  for (const std::string& loop : LoopsBackedBy(st.st_dev, st.st_ino, sys_root)) {
    if (Status s = CheckBlockDeviceNotInUse(loop, proc_root, sys_root); !s.ok())
      return Status::Refused(path + " is the backing file of " + loop + ", and " + s.message());
    *idle_loop = loop;
    break;
  }
  return Status::Ok();
}

}  // namespace

Status CheckFileWritable(const std::string& path, bool destructive, const std::string& proc_root,
                         const std::string& sys_root) {
  std::string loop;
  SSDLAB_RETURN_IF_ERROR(CheckFileNotInUse(path, proc_root, sys_root, &loop));
  if (!loop.empty() && !destructive)
    return Status::Refused(
        path + " is the backing file of loop device " + loop +
        " (writing it changes that device's data); pass --destructive to allow it");
  return Status::Ok();
}

Status CheckResultFileWritable(const std::string& path, const std::string& proc_root,
                               const std::string& sys_root) {
  std::string loop;
  SSDLAB_RETURN_IF_ERROR(CheckFileNotInUse(path, proc_root, sys_root, &loop));
  if (!loop.empty())
    return Status::Refused(path + " is the backing file of loop device " + loop +
                           "; refusing to write over it");
  return Status::Ok();
}

Status CheckBlockDeviceNotInUse(const std::string& path, const std::string& proc_root,
                                const std::string& sys_root) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return Status::NotFound(path + ": " + std::strerror(errno));
  }
  if (!S_ISBLK(st.st_mode)) return Status::Invalid(path + " is not a block device");
  std::vector<BlockDev> family = DeviceFamily(st.st_rdev, sys_root);
  auto describe = [&](const BlockDev& d) {
    return d.devno == st.st_rdev ? path + " is"
                                 : path + " has a partition /dev/" + d.name + " that is";
  };

  // Mounts: match the device number field and the mount source.
  std::ifstream mi(proc_root + "/self/mountinfo");
  std::string line;
  while (std::getline(mi, line)) {
    std::istringstream in(line);
    std::string id, parent, majmin, root, mountpoint;
    in >> id >> parent >> majmin >> root >> mountpoint;
    std::string tok, fstype, source;
    while (in >> tok && tok != "-") {
    }
    in >> fstype >> source;
    auto d = ParseDevNo(majmin);
    struct stat sst;
    bool source_is_dev = !source.empty() && source[0] == '/' && stat(source.c_str(), &sst) == 0 &&
                         S_ISBLK(sst.st_mode);
    for (const BlockDev& b : family) {
      if ((d.ok() && d.value() == b.devno) || (source_is_dev && sst.st_rdev == b.devno)) {
        return Status::Refused(describe(b) + " mounted on " + UnescapeMountField(mountpoint) +
                               "; refusing to write");
      }
    }
  }
  // Swap.
  for (const std::string& dev : SwapAreas(proc_root)) {
    struct stat sst;
    if (stat(dev.c_str(), &sst) != 0 || !S_ISBLK(sst.st_mode)) continue;
    for (const BlockDev& b : family) {
      if (sst.st_rdev == b.devno)
        return Status::Refused(describe(b) + " in use as swap; refusing to write");
    }
  }
  // Holders: md, dm (LVM, crypt), bcache... stacked on the device or a partition.
  for (const BlockDev& b : family) {
    fs::path holders = fs::path(sys_root) / "dev/block" / DevNoString(b.devno) / "holders";
    std::error_code ec;
    for (const auto& h : fs::directory_iterator(holders, ec)) {
      return Status::Refused(describe(b) + " held by /dev/" + h.path().filename().string() +
                             " (md/dm/LVM); refusing to write");
    }
  }
  return Status::Ok();
}

Result<std::string> ProbeSignature(const std::string& path) {
  blkid_probe pr = blkid_new_probe_from_filename(path.c_str());
  if (!pr) return Status::Io("cannot probe " + path + " for signatures: " + std::strerror(errno));
  blkid_probe_enable_superblocks(pr, 1);
  blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
  blkid_probe_enable_partitions(pr, 1);
  blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
  std::string found;
  int rc = blkid_do_safeprobe(pr);
  if (rc == 0) {
    const char* value = nullptr;
    if (blkid_probe_lookup_value(pr, "TYPE", &value, nullptr) == 0 && value) {
      found = std::string(value) + " signature";
    } else if (blkid_probe_lookup_value(pr, "PTTYPE", &value, nullptr) == 0 && value) {
      found = std::string(value) + " partition table";
    } else {
      found = "a signature";
    }
  } else if (rc == -2) {
    found = "ambiguous signatures";
  }
  blkid_free_probe(pr);
  return found;
}

Status CheckBlockDeviceWritable(const std::string& path, bool destructive) {
  SSDLAB_RETURN_IF_ERROR(CheckBlockDeviceNotInUse(path));
  // A loop device shares its data with every other loop device on the same backing file.
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
    fs::path loop = fs::path("/sys/dev/block") / DevNoString(st.st_rdev) / "loop" / "backing_file";
    std::string backing = ReadSysLine(loop);
    struct stat bst;
    if (!backing.empty() && stat(backing.c_str(), &bst) == 0) {
      for (const std::string& other : LoopsBackedBy(bst.st_dev, bst.st_ino, "/sys")) {
        struct stat ost;
        if (stat(other.c_str(), &ost) == 0 && ost.st_rdev == st.st_rdev) continue;
        if (Status s = CheckBlockDeviceNotInUse(other); !s.ok())
          return Status::Refused(path + " shares its backing file " + backing + " with " + other +
                                 ", and " + s.message());
      }
      SSDLAB_RETURN_IF_ERROR(CheckNotSwapFile(backing, bst.st_dev, bst.st_ino, "/proc"));
    }
  }
  if (destructive) return Status::Ok();
  auto sig = ProbeSignature(path);
  std::string what = sig.ok() && !sig.value().empty() ? " (it holds " + sig.value() + ")" : "";
  return Status::Refused("writing to block device " + path + " destroys its data" + what +
                         "; pass --destructive to allow it");
}

}  // namespace ssdlab

namespace ssdlab {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "naa.5002538E40A22954", "0x5002538e40a22954", "5002538e40a22954" -> "5002538e40a22954".
std::string WwnDigits(const std::string& s) {
  std::string l = Lower(s);
  for (const char* prefix : {"naa.", "eui.", "0x"}) {
    if (l.rfind(prefix, 0) == 0) return l.substr(std::strlen(prefix));
  }
  return l;
}

}  // namespace

std::vector<std::string> ConfirmationTokens(const DeviceIdentity& id) {
  std::vector<std::string> out;
  if (id.kind != "block" || !id.disk) return out;
  const DiskIdentity& d = *id.disk;
  if (!d.serial.empty()) out.push_back(d.serial);
  if (!d.wwn.empty()) out.push_back(d.wwn);
  if (out.empty() && !d.loop_backing_file.empty()) out.push_back(d.loop_backing_file);
  if (out.empty()) out.push_back(d.name);
  return out;
}

Status CheckConfirmation(const DeviceIdentity& id, const std::string& confirm) {
  std::vector<std::string> tokens = ConfirmationTokens(id);
  if (tokens.empty()) return Status::Ok();
  std::string c(Trim(confirm, " \t\n"));  // not \r, \v, \f
  const DiskIdentity& d = *id.disk;
  if (!c.empty()) {
    for (const std::string& t : tokens) {
      if (c == t) return Status::Ok();
      if (t == d.wwn && WwnDigits(c) == WwnDigits(t)) return Status::Ok();
      if (t == d.loop_backing_file) {
        std::error_code ec;
        fs::path cc = fs::weakly_canonical(c, ec);
        if (!ec && cc == fs::weakly_canonical(t, ec)) return Status::Ok();
      }
    }
  }
  std::string expects;
  if (!d.serial.empty()) {
    expects = "its serial " + d.serial + (d.wwn.empty() ? "" : " or WWN " + d.wwn);
  } else if (!d.wwn.empty()) {
    expects = "its WWN " + d.wwn;
  } else if (!d.loop_backing_file.empty()) {
    expects = "the loop device's backing file " + d.loop_backing_file + " (it has no serial)";
  } else {
    expects = "its kernel name " + d.name + " (it has no serial or WWN)";
  }
  std::string head = c.empty() ? "this destroys all data on " + DescribeTarget(id)
                               : "--confirm '" + c + "' does not match " + DescribeTarget(id);
  return Status::Refused(head + "; pass --confirm with " + expects + " to proceed");
}

}  // namespace ssdlab
