// What a target is: the facts every report carries (docs/methodology.md). Identification
// reads sysfs and a few read-only ioctls; it never writes and needs no tools installed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

enum class Transport {
  kUnknown,
  kSata,  // ATA disk, also behind a SAS HBA (SCSI vendor "ATA")
  kSas,   // SCSI disk on a SAS transport
  kScsi,  // other SCSI (virtio-scsi, iSCSI, FC, ...)
  kUsb,   // any disk behind USB
  kNvme,
  kVirtio,  // virtio-blk
  kMmc,
  kLoop,
  kDeviceMapper,
  kMd,
  kZram,
  kRam,  // brd /dev/ramN
  kNbd,
};
// "sata", "sas", "scsi", "usb", "nvme", "virtio", "mmc", "loop", "dm", "md", "zram", "ram",
// "nbd", "unknown".
const char* TransportName(Transport t);

struct NvmeLbaFormat {
  uint32_t index = 0;
  uint32_t data_bytes = 0;            // 2^LBADS
  uint32_t metadata_bytes = 0;        // per block
  uint32_t relative_performance = 0;  // 0 best .. 3 degraded
  bool in_use = false;
};

// Facts of a whole disk (a partition resolves to its disk). Strings are "" and numbers 0 where
// the device does not report them.
struct DiskIdentity {
  std::string name;      // kernel name: "sdb", "nvme0n1", "loop3"
  std::string dev_path;  // "/dev/sdb"
  std::string devno;     // "8:16"
  Transport transport = Transport::kUnknown;
  std::string vendor;  // SCSI vendor, or the PCI vendor's name for NVMe/virtio
  std::string model;
  std::string serial;
  std::string firmware;
  std::string wwn;  // "naa.5002538e40a22954", "eui.0025388b9100a3c2", ...
  uint64_t capacity_bytes = 0;
  uint32_t logical_sector_bytes = 0;
  uint32_t physical_sector_bytes = 0;
  bool rotational = false;
  bool read_only = false;
  bool removable = false;
  uint32_t nr_requests = 0;             // block-layer queue depth (queue/nr_requests)
  uint32_t device_queue_depth = 0;      // the device's own (SCSI NCQ/TCQ queue_depth); 0 unknown
  std::string scheduler;                // active I/O scheduler: "none", "mq-deadline", ...
  std::string write_cache;              // "write back" (volatile cache on), "write through", ""
  uint64_t discard_max_bytes = 0;       // 0: no discard (TRIM/UNMAP/Deallocate)
  uint64_t write_zeroes_max_bytes = 0;  // 0: BLKZEROOUT falls back to writing zeros
  // NVMe only.
  std::string nvme_controller;  // "nvme0"
  uint32_t nvme_namespace_id = 0;
  std::vector<NvmeLbaFormat> nvme_lba_formats;  // needs root (identify-namespace ioctl)
  // Loop only.
  std::string loop_backing_file;
};

struct DeviceIdentity {
  std::string path;           // as given
  std::string resolved_path;  // symlinks resolved: "/dev/disk/by-id/..." -> "/dev/sdb1"
  std::string kind;           // "block", "file" or "directory"
  // What `path` addresses: the disk, a partition of it, or the file's length.
  uint64_t size_bytes = 0;
  std::string partition;  // kernel name when `path` is a partition ("sdb1"), else ""
  uint64_t partition_start_bytes = 0;
  // Files and directories (allocated bytes: files only).
  uint64_t file_allocated_bytes = 0;
  std::string filesystem;   // "ext4", "xfs", "tmpfs", ...
  std::string mount_point;  // of the filesystem holding the file
  // The disk: the device itself, or for a file the disk under its filesystem when that is
  // attributable (not on tmpfs, overlay over several disks, network filesystems).
  std::optional<DiskIdentity> disk;
  std::string disk_note;  // why `disk` is absent, e.g. "tmpfs has no backing block device"
};

inline double DecimalGb(uint64_t bytes) { return static_cast<double>(bytes) / 1e9; }
inline double BinaryGib(uint64_t bytes) { return static_cast<double>(bytes) / (1ull << 30); }

// Identifies a block device (whole disk or partition, through any symlinks) or a regular
// file. NotFound for a missing path, Invalid for a directory, character device or other
// non-block non-regular file, kPermission when it cannot be read for lack of rights.
Result<DeviceIdentity> IdentifyTarget(const std::string& path);

// A directory (kind "directory", size 0): the filesystem holding it and, when attributable,
// the disk under it, exactly as for a file. NotFound when missing, Invalid when not a directory.
Result<DeviceIdentity> IdentifyDirectory(const std::string& path);

// "Samsung SSD 860 EVO 500GB, serial S3Z1NB0K123456X, 500107862016 bytes (500.1 GB, 465.8 GiB)"
// for messages; for files "file /data/f, 1073741824 bytes on <disk>".
std::string DescribeTarget(const DeviceIdentity& id);

// --- Parts exposed for tests -------------------------------------------------------------

// The disk behind device number `devno` from a sysfs tree at `sys_root` (as /sys: it needs
// dev/block/MAJ:MIN links into devices/...). Partitions resolve to their disk. Without
// `use_ioctls` nothing but sysfs is read (no /dev nodes are opened).
Result<DiskIdentity> IdentifyDisk(dev_t devno, const std::string& sys_root, bool use_ioctls);

// ATA IDENTIFY DEVICE data (256 little-endian words as HDIO_GET_IDENTITY returns them):
// model, serial, firmware and WWN (words 108-111) into `disk`.
void ParseAtaIdentify(const uint16_t* words, DiskIdentity* disk);

// NVMe Identify Namespace data (4096 bytes): the LBA formats and which is in use.
std::vector<NvmeLbaFormat> ParseNvmeIdNamespace(const uint8_t* data, size_t size);

}  // namespace ssdlab
