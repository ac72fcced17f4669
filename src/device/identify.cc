#include "device/identify.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/hdreg.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "base/strings.h"
#include "base/units.h"
#include "device/sysfs.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

// The controller number X and namespace number Y of an NVMe namespace's block device name
// nvmeXnY or nvmeXcZnY (a multipath controller path); false for any other name.
bool SplitNvmeName(std::string_view name, std::string_view* controller, uint64_t* nsid) {
  constexpr std::string_view kNvme = "nvme";
  if (name.substr(0, kNvme.size()) != kNvme) return false;
  std::string_view rest = name.substr(kNvme.size());
  *controller = LeadingDigits(rest);
  if (controller->empty()) return false;
  rest.remove_prefix(controller->size());
  if (!rest.empty() && rest[0] == 'c') {
    const std::string_view path = LeadingDigits(rest.substr(1));
    if (path.empty()) return false;
    rest.remove_prefix(1 + path.size());
  }
  if (rest.empty() || rest[0] != 'n') return false;
  auto n = ParseCount(rest.substr(1));
  if (!n.ok()) return false;
  *nsid = n.value();
  return true;
}

std::string PciVendorName(const std::string& id) {
  static const std::pair<const char*, const char*> kVendors[] = {
      {"0x144d", "Samsung"},  {"0x8086", "Intel"},    {"0x15b7", "SanDisk/WD"},
      {"0x1c5c", "SK hynix"}, {"0x1344", "Micron"},   {"0x1e0f", "KIOXIA"},
      {"0x1179", "Toshiba"},  {"0x1bb1", "Seagate"},  {"0x126f", "Silicon Motion"},
      {"0x1987", "Phison"},   {"0x2646", "Kingston"}, {"0x1cc1", "ADATA"},
      {"0x1b4b", "Marvell"},  {"0x025e", "Solidigm"}, {"0x1d97", "Shenzhen Longsys"},
      {"0x1e4b", "MAXIO"},    {"0x106b", "Apple"},    {"0x1af4", "virtio"},
      {"0x1b36", "QEMU"},     {"0x1d0f", "Amazon"},   {"0x1414", "Microsoft"},
  };
  for (auto [k, v] : kVendors) {
    if (id == k) return v;
  }
  return id;
}

// The string ATA IDENTIFY stores in words [first, first+count): two chars per word, high
// byte first, space padded.
std::string AtaString(const uint16_t* w, int first, int count) {
  std::string s;
  for (int i = first; i < first + count; ++i) {
    s += static_cast<char>(w[i] >> 8);
    s += static_cast<char>(w[i] & 0xff);
  }
  return std::string(Trim(s, kSpaceOrNul));
}

std::string ActiveScheduler(const std::string& line) {
  size_t b = line.find('['), e = line.find(']');
  if (b != std::string::npos && e != std::string::npos && e > b)
    return line.substr(b + 1, e - b - 1);
  return line;  // "none" alone on devices with a single choice
}

// SCSI VPD page 0x80 (unit serial number): 4-byte header, then the serial.
std::string VpdSerial(const std::string& page) {
  if (page.size() < 4) return "";
  size_t len = (static_cast<unsigned char>(page[2]) << 8) | static_cast<unsigned char>(page[3]);
  return std::string(Trim(page.substr(4, std::min(len, page.size() - 4)), kSpaceOrNul));
}

Transport DetectTransport(const std::string& name, const std::string& real_path,
                          const fs::path& disk) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("nvme")) return Transport::kNvme;
  if (starts("loop")) return Transport::kLoop;
  if (starts("dm-")) return Transport::kDeviceMapper;
  if (starts("md")) return Transport::kMd;
  if (starts("zram")) return Transport::kZram;
  if (starts("ram")) return Transport::kRam;
  if (starts("nbd")) return Transport::kNbd;
  if (starts("mmcblk")) return Transport::kMmc;
  if (starts("vd") ||
      (real_path.find("/virtio") != std::string::npos && !fs::exists(disk / "device/scsi_level"))) {
    return Transport::kVirtio;
  }
  if (real_path.find("/usb") != std::string::npos) return Transport::kUsb;
  if (starts("sd") || fs::exists(disk / "device/scsi_level")) {
    if (ReadSysLine(disk / "device/vendor") == "ATA" ||
        real_path.find("/ata") != std::string::npos) {
      return Transport::kSata;
    }
    if (fs::exists(disk / "device/sas_address") ||
        real_path.find("/end_device-") != std::string::npos) {
      return Transport::kSas;
    }
    return Transport::kScsi;
  }
  return Transport::kUnknown;
}

void FillFromIoctls(DiskIdentity* d) {
  int fd = open(d->dev_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;  // not root or no node: sysfs facts only
  if (d->transport == Transport::kSata) {
    uint16_t words[256] = {};
    if (ioctl(fd, HDIO_GET_IDENTITY, words) == 0) ParseAtaIdentify(words, d);
  }
  if (d->transport == Transport::kNvme && d->nvme_namespace_id) {
    alignas(4096) static thread_local uint8_t buf[4096];
    nvme_admin_cmd cmd{};
    cmd.opcode = 0x06;  // Identify
    cmd.nsid = d->nvme_namespace_id;
    cmd.addr = reinterpret_cast<uint64_t>(buf);
    cmd.data_len = sizeof buf;
    cmd.cdw10 = 0;  // CNS 0: Identify Namespace
    if (ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd) == 0) {
      d->nvme_lba_formats = ParseNvmeIdNamespace(buf, sizeof buf);
    }
  }
  close(fd);
}

}  // namespace

const char* TransportName(Transport t) {
  switch (t) {
    case Transport::kSata:
      return "sata";
    case Transport::kSas:
      return "sas";
    case Transport::kScsi:
      return "scsi";
    case Transport::kUsb:
      return "usb";
    case Transport::kNvme:
      return "nvme";
    case Transport::kVirtio:
      return "virtio";
    case Transport::kMmc:
      return "mmc";
    case Transport::kLoop:
      return "loop";
    case Transport::kDeviceMapper:
      return "dm";
    case Transport::kMd:
      return "md";
    case Transport::kZram:
      return "zram";
    case Transport::kRam:
      return "ram";
    case Transport::kNbd:
      return "nbd";
    case Transport::kUnknown:
      break;
  }
  return "unknown";
}

void ParseAtaIdentify(const uint16_t* w, DiskIdentity* d) {
  std::string serial = AtaString(w, 10, 10), firmware = AtaString(w, 23, 4),
              model = AtaString(w, 27, 20);
  if (!serial.empty()) d->serial = serial;
  if (!firmware.empty()) d->firmware = firmware;
  if (!model.empty()) d->model = model;
  uint64_t wwn =
      (uint64_t{w[108]} << 48) | (uint64_t{w[109]} << 32) | (uint64_t{w[110]} << 16) | w[111];
  if (wwn != 0 && (w[87] & 0xc000) == 0x4000 && (w[87] & 0x0100)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "naa.%016" PRIx64, wwn);
    d->wwn = buf;
  }
}

std::vector<NvmeLbaFormat> ParseNvmeIdNamespace(const uint8_t* data, size_t size) {
  std::vector<NvmeLbaFormat> out;
  if (size < 384) return out;
  unsigned nlbaf = data[25] + 1u;  // 0-based count
  unsigned flbas = data[26];
  unsigned in_use = (flbas & 0xf) | (((flbas >> 5) & 0x3) << 4);
  for (unsigned i = 0; i < nlbaf && i < 64; ++i) {
    const uint8_t* f = data + 128 + 4 * i;
    NvmeLbaFormat lf;
    lf.index = i;
    lf.metadata_bytes = f[0] | (f[1] << 8);
    lf.data_bytes = f[2] >= 9 && f[2] < 32 ? (1u << f[2]) : 0;
    lf.relative_performance = f[3] & 0x3;
    lf.in_use = i == in_use;
    if (lf.data_bytes) out.push_back(lf);
  }
  return out;
}

Result<DiskIdentity> IdentifyDisk(dev_t devno, const std::string& sys_root, bool use_ioctls) {
  std::error_code ec;
  fs::path link = fs::path(sys_root) / "dev/block" / DevNoString(devno);
  fs::path real = fs::canonical(link, ec);
  if (ec)
    return Status::NotFound("no sysfs entry " + link.string() + " for device " +
                            DevNoString(devno));
  fs::path disk = fs::exists(real / "partition") ? real.parent_path() : real;
  DiskIdentity d;
  d.name = disk.filename().string();
  d.dev_path = "/dev/" + d.name;
  d.devno = ReadSysLine(disk / "dev");
  d.transport = DetectTransport(d.name, disk.string(), disk);
  d.capacity_bytes = ReadSysU64(disk / "size") * 512;
  d.logical_sector_bytes = static_cast<uint32_t>(ReadSysU64(disk / "queue/logical_block_size"));
  d.physical_sector_bytes = static_cast<uint32_t>(ReadSysU64(disk / "queue/physical_block_size"));
  d.rotational = ReadSysU64(disk / "queue/rotational") != 0;
  d.read_only = ReadSysU64(disk / "ro") != 0;
  d.removable = ReadSysU64(disk / "removable") != 0;
  d.nr_requests = static_cast<uint32_t>(ReadSysU64(disk / "queue/nr_requests"));
  d.scheduler = ActiveScheduler(ReadSysLine(disk / "queue/scheduler"));
  d.write_cache = ReadSysLine(disk / "queue/write_cache");
  d.discard_max_bytes = ReadSysU64(disk / "queue/discard_max_bytes");
  d.write_zeroes_max_bytes = ReadSysU64(disk / "queue/write_zeroes_max_bytes");
  std::string wwid = ReadSysLine(disk / "wwid");
  if (wwid.empty()) wwid = ReadSysLine(disk / "device/wwid");
  if (wwid.rfind("naa.", 0) == 0 || wwid.rfind("eui.", 0) == 0) d.wwn = wwid;

  switch (d.transport) {
    case Transport::kNvme: {
      fs::path ctrl = disk / "device";
      d.model = ReadSysLine(ctrl / "model");
      d.serial = ReadSysLine(ctrl / "serial");
      d.firmware = ReadSysLine(ctrl / "firmware_rev");
      d.vendor = PciVendorName(ReadSysLine(ctrl / "device/vendor"));
      d.nvme_namespace_id = static_cast<uint32_t>(ReadSysU64(disk / "nsid"));
      std::string_view controller;
      uint64_t nsid = 0;
      if (SplitNvmeName(d.name, &controller, &nsid)) {
        d.nvme_controller = "nvme" + std::string(controller);
        if (!d.nvme_namespace_id) d.nvme_namespace_id = static_cast<uint32_t>(nsid);
      }
      std::string eui = ReadSysLine(disk / "eui");
      if (d.wwn.empty() && !eui.empty() && eui.find_first_not_of("0 ") != std::string::npos) {
        d.wwn = "eui." + eui;
      }
      break;
    }
    case Transport::kSata:
    case Transport::kSas:
    case Transport::kScsi:
    case Transport::kUsb: {
      d.vendor = ReadSysLine(disk / "device/vendor");
      d.model = ReadSysLine(disk / "device/model");
      d.firmware = ReadSysLine(disk / "device/rev");
      d.serial = VpdSerial(ReadSysBytes(disk / "device/vpd_pg80"));
      d.device_queue_depth = static_cast<uint32_t>(ReadSysU64(disk / "device/queue_depth"));
      break;
    }
    case Transport::kVirtio:
      d.vendor = PciVendorName(ReadSysLine(disk / "device/vendor"));
      d.model = "virtio-blk";
      d.serial = ReadSysLine(disk / "serial");
      break;
    case Transport::kMmc:
      d.model = ReadSysLine(disk / "device/name");
      d.serial = ReadSysLine(disk / "device/serial");
      d.firmware = ReadSysLine(disk / "device/fwrev");
      d.vendor = ReadSysLine(disk / "device/manfid");
      break;
    case Transport::kLoop:
      d.loop_backing_file = ReadSysLine(disk / "loop/backing_file");
      d.model = "loop device";
      if (use_ioctls) {
        // Over a drive served by `ssdlab sim serve` (docs/serve.md): its serial, as a drive's.
        char serial[256];
        const ssize_t n =
            getxattr(d.loop_backing_file.c_str(), "user.ssdlab.serial", serial, sizeof serial);
        if (n > 0) {
          d.serial.assign(serial, static_cast<size_t>(n));
          d.model = "loop device over an ssdlab served drive";
        }
      }
      break;
    case Transport::kDeviceMapper:
      d.model = "device-mapper " + ReadSysLine(disk / "dm/name");
      d.serial = ReadSysLine(disk / "dm/uuid");
      break;
    case Transport::kMd:
      d.model = "md RAID " + ReadSysLine(disk / "md/level");
      d.serial = ReadSysLine(disk / "md/uuid");
      break;
    default:
      d.model = ReadSysLine(disk / "device/model");
      d.serial = ReadSysLine(disk / "serial");
      break;
  }
  if (d.serial.empty()) d.serial = ReadSysLine(disk / "serial");
  if (use_ioctls) FillFromIoctls(&d);
  return d;
}

namespace {

Result<DeviceIdentity> Identify(const std::string& path, bool allow_directory) {
  DeviceIdentity id;
  id.path = path;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) return Status::NotFound(path + " does not exist");
    if (e == EACCES) return Status::Refused(path + ": permission denied");
    return Status::Io(path + ": " + std::strerror(e));
  }
  std::error_code ec;
  id.resolved_path = fs::canonical(path, ec).string();
  if (ec) id.resolved_path = path;
  if (S_ISDIR(st.st_mode) && !allow_directory) {
    return Status::Invalid(path + " is a directory; give a block device or a regular file");
  }
  if (S_ISCHR(st.st_mode)) {
    return Status::Invalid(
        path + " is a character device; give a block device (e.g. /dev/nvme0n1, /dev/sdb)");
  }
  if (S_ISBLK(st.st_mode)) {
    id.kind = "block";
    SSDLAB_ASSIGN_OR_RETURN(DiskIdentity disk, IdentifyDisk(st.st_rdev, "/sys", true));
    fs::path part = fs::canonical(fs::path("/sys/dev/block") / DevNoString(st.st_rdev), ec);
    if (!ec && fs::exists(part / "partition")) {
      id.partition = part.filename().string();
      id.partition_start_bytes = ReadSysU64(part / "start") * 512;
      id.size_bytes = ReadSysU64(part / "size") * 512;
    } else {
      id.size_bytes = disk.capacity_bytes;
    }
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      uint64_t bytes = 0;
      if (ioctl(fd, BLKGETSIZE64, &bytes) == 0 && bytes) id.size_bytes = bytes;
      close(fd);
    }
    id.disk = std::move(disk);
    return id;
  }
  if (S_ISDIR(st.st_mode)) {
    id.kind = "directory";
  } else if (!S_ISREG(st.st_mode)) {
    return Status::Invalid(path + " is neither a regular file nor a block device");
  } else {
    if (access(path.c_str(), R_OK) != 0) return Status::Refused(path + ": permission denied");
    id.kind = "file";
    id.size_bytes = static_cast<uint64_t>(st.st_size);
    id.file_allocated_bytes = static_cast<uint64_t>(st.st_blocks) * 512;
  }
  MountEntry m = FindMount(st.st_dev, id.resolved_path, "/proc");
  id.filesystem = m.fstype;
  id.mount_point = m.mount_point;
  auto disk = IdentifyDisk(st.st_dev, "/sys", true);
  if (!disk.ok() && !m.source.empty() && m.source[0] == '/') {
    struct stat sst;
    if (stat(m.source.c_str(), &sst) == 0 && S_ISBLK(sst.st_mode))
      disk = IdentifyDisk(sst.st_rdev, "/sys", true);
  }
  if (disk.ok()) {
    id.disk = std::move(disk.value());
  } else {
    id.disk_note = (m.fstype.empty() ? std::string("the filesystem") : m.fstype) + " of " + path +
                   " has no single backing block device";
  }
  return id;
}

}  // namespace

Result<DeviceIdentity> IdentifyTarget(const std::string& path) { return Identify(path, false); }

Result<DeviceIdentity> IdentifyDirectory(const std::string& path) {
  SSDLAB_ASSIGN_OR_RETURN(DeviceIdentity id, Identify(path, true));
  if (id.kind != "directory") return Status::Invalid(path + " is not a directory");
  return id;
}

std::string DescribeTarget(const DeviceIdentity& id) {
  auto sizes = [](uint64_t b) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes (%.1f GB, %.1f GiB)", b, DecimalGb(b),
                  BinaryGib(b));
    return std::string(buf);
  };
  if (id.kind == "file" || id.kind == "directory") {
    std::string s = id.kind == "file"
                        ? "file " + id.resolved_path + ", " + sizes(id.size_bytes)
                        : "directory " + id.resolved_path + " (" + id.filesystem + ")";
    if (id.disk) s += ", on " + id.disk->dev_path;
    return s;
  }
  if (!id.disk) return id.resolved_path;
  const DiskIdentity& d = *id.disk;
  std::string s = id.partition.empty()
                      ? d.dev_path
                      : "/dev/" + id.partition + " (partition of " + d.dev_path + ")";
  std::string what = d.model.empty() ? TransportName(d.transport) : d.model;
  s += ": " + what;
  if (!d.serial.empty()) s += ", serial " + d.serial;
  if (!d.wwn.empty()) s += ", WWN " + d.wwn;
  if (!d.loop_backing_file.empty()) s += ", backing file " + d.loop_backing_file;
  s += ", " + sizes(id.partition.empty() ? d.capacity_bytes : id.size_bytes);
  return s;
}

}  // namespace ssdlab
