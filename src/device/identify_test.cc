#include "device/identify.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include "device/test_tree.h"

namespace ssdlab {
namespace {

using testing_tree::FakeTree;

// Block device directory `dir` (under sys/devices) numbered `devno`, of `sectors` 512-byte
// sectors, linked from sys/dev/block and, unless `device` is empty, to its parent device by the
// relative link `device`.
void Block(const FakeTree& t, const std::string& dir, const std::string& devno,
           const std::string& sectors, const std::string& device = "") {
  if (!device.empty()) t.Link(dir + "/device", device);
  t.File(dir + "/dev", devno);
  t.File(dir + "/size", sectors);
  t.Link("sys/dev/block/" + devno, "../../" + dir.substr(4));
}

// The SCSI device directory `dir`'s inquiry data, padded with blanks as the kernel prints it.
void ScsiInquiry(const FakeTree& t, const std::string& dir, const std::string& vendor,
                 const std::string& model, const std::string& rev, const std::string& scsi_level) {
  t.File(dir + "/vendor", vendor);
  t.File(dir + "/model", model);
  t.File(dir + "/rev", rev);
  t.File(dir + "/scsi_level", scsi_level);
}

// A SATA SSD on an AHCI port, with one partition.
void MakeSata(const FakeTree& t) {
  const std::string scsi = "sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0";
  const std::string disk = scsi + "/block/sda";
  ScsiInquiry(t, scsi, "ATA     ", "Samsung SSD 860 ", "4B6Q", "6");
  t.File(scsi + "/queue_depth", "32");
  t.File(scsi + "/wwid", "naa.5002538e40a22954");
  std::string vpd("\x00\x80\x00\x10 S3Z1NB0K123456X", 20);
  t.File(scsi + "/vpd_pg80", vpd, true);
  Block(t, disk, "8:0", "976773168", "../../../0:0:0:0");
  t.Queue(disk, 512, 512, false, 64, "none [mq-deadline] kyber bfq", "write back", 2147450880);
  Block(t, disk + "/sda1", "8:1", "1000000");
  t.File(disk + "/sda1/partition", "1");
  t.File(disk + "/sda1/start", "2048");
}

// The names IdentifyDisk gives disk `d`: its vendor, model, serial, firmware and WWN.
void ExpectNames(const DiskIdentity& d, const std::string& vendor, const std::string& model,
                 const std::string& serial, const std::string& firmware, const std::string& wwn) {
  SCOPED_TRACE("disk " + d.name);
  EXPECT_EQ(d.vendor, vendor);
  EXPECT_EQ(d.model, model);
  EXPECT_EQ(d.serial, serial);
  EXPECT_EQ(d.firmware, firmware);
  EXPECT_EQ(d.wwn, wwn);
}

TEST(IdentifyDisk, SataDiskThroughItsPartition) {
  FakeTree t("id_sata");
  MakeSata(t);
  auto d = IdentifyDisk(makedev(8, 1), t.sys(), false);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->name, "sda");
  EXPECT_EQ(d->dev_path, "/dev/sda");
  EXPECT_EQ(d->devno, "8:0");
  EXPECT_EQ(d->transport, Transport::kSata);
  ExpectNames(*d, "ATA", "Samsung SSD 860", "S3Z1NB0K123456X", "4B6Q", "naa.5002538e40a22954");
  EXPECT_EQ(d->capacity_bytes, 500107862016ull);
  EXPECT_EQ(d->logical_sector_bytes, 512u);
  EXPECT_FALSE(d->rotational);
  EXPECT_EQ(d->nr_requests, 64u);
  EXPECT_EQ(d->device_queue_depth, 32u);
  EXPECT_EQ(d->scheduler, "mq-deadline");
  EXPECT_EQ(d->write_cache, "write back");
  EXPECT_EQ(d->discard_max_bytes, 2147450880ull);
}

TEST(IdentifyDisk, NvmeNamespace) {
  FakeTree t("id_nvme");
  const std::string pci = "sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0";
  const std::string ctrl = pci + "/nvme/nvme0";
  const std::string ns = ctrl + "/nvme0n1";
  t.File(pci + "/vendor", "0x144d");
  t.Link(ctrl + "/device", "../../../0000:3d:00.0");
  t.File(ctrl + "/model", "Samsung SSD 980 PRO 1TB");
  t.File(ctrl + "/serial", "S5GXNF0R123456A     ");
  t.File(ctrl + "/firmware_rev", "5B2QGXA7");
  Block(t, ns, "259:0", "1953525168", "../../nvme0");
  t.File(ns + "/nsid", "1");
  t.File(ns + "/wwid", "eui.002538b211b1a2c3");
  t.Queue(ns, 512, 512, false, 1023, "[none] mq-deadline", "write back", 2199023255040ull);
  auto d = IdentifyDisk(makedev(259, 0), t.sys(), false);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->transport, Transport::kNvme);
  ExpectNames(*d, "Samsung", "Samsung SSD 980 PRO 1TB", "S5GXNF0R123456A", "5B2QGXA7",
              "eui.002538b211b1a2c3");
  EXPECT_EQ(d->nvme_controller, "nvme0");
  EXPECT_EQ(d->nvme_namespace_id, 1u);
  EXPECT_EQ(d->capacity_bytes, 1000204886016ull);
  EXPECT_EQ(d->scheduler, "none");
}

TEST(IdentifyDisk, SasLoopAndVirtio) {
  FakeTree t("id_misc");
  const std::string sas =
      "sys/devices/pci0000:00/0000:02:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0";
  ScsiInquiry(t, sas, "SEAGATE ", "XS1600LE70084   ", "0003", "7");
  t.File(sas + "/sas_address", "0x5000c500a1b2c3d5");
  Block(t, sas + "/block/sdb", "8:16", "3125627568", "../../../0:0:0:0");
  t.Queue(sas + "/block/sdb", 512, 4096, false, 256, "[mq-deadline] none", "write through", 0);

  const std::string loop = "sys/devices/virtual/block/loop3";
  Block(t, loop, "7:3", "131072");
  t.File(loop + "/loop/backing_file", "/tmp/x/img");
  t.Queue(loop, 512, 512, false, 128, "none", "write back", 4294966784);

  const std::string vd = "sys/devices/pci0000:00/0000:00:02.0/virtio1";
  t.File(vd + "/vendor", "0x1af4");
  Block(t, vd + "/block/vda", "254:0", "536870912", "../../../virtio1");
  t.File(vd + "/block/vda/serial", "overlayblk");
  t.Queue(vd + "/block/vda", 512, 4096, true, 256, "none [mq-deadline]", "write back", 1073741824);

  auto s = IdentifyDisk(makedev(8, 16), t.sys(), false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->transport, Transport::kSas);
  EXPECT_EQ(s->vendor, "SEAGATE");
  EXPECT_EQ(s->model, "XS1600LE70084");
  EXPECT_EQ(s->capacity_bytes, 1600321314816ull);  // the DC400-class 1.6 TB: 1490 GiB
  EXPECT_NEAR(BinaryGib(s->capacity_bytes), 1490.4, 0.1);
  EXPECT_EQ(s->physical_sector_bytes, 4096u);
  EXPECT_EQ(s->write_cache, "write through");

  auto l = IdentifyDisk(makedev(7, 3), t.sys(), false);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->transport, Transport::kLoop);
  EXPECT_EQ(l->loop_backing_file, "/tmp/x/img");
  EXPECT_EQ(l->serial, "");
  EXPECT_EQ(l->capacity_bytes, 64ull << 20);

  auto v = IdentifyDisk(makedev(254, 0), t.sys(), false);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->transport, Transport::kVirtio);
  EXPECT_EQ(v->serial, "overlayblk");
  EXPECT_TRUE(v->rotational);

  EXPECT_EQ(IdentifyDisk(makedev(9, 9), t.sys(), false).status().code(), Code::kNotFound);
}

void PutAtaString(uint16_t* w, int first, int words, const std::string& s) {
  std::string p = s;
  p.resize(static_cast<size_t>(words) * 2, ' ');
  for (int i = 0; i < words; ++i) {
    w[first + i] = static_cast<uint16_t>((static_cast<unsigned char>(p[2 * i]) << 8) |
                                         static_cast<unsigned char>(p[2 * i + 1]));
  }
}

TEST(ParseAtaIdentify, ModelSerialFirmwareWwn) {
  uint16_t w[256] = {};
  PutAtaString(w, 10, 10, "     S3Z1NB0K123456X");
  PutAtaString(w, 23, 4, "RVT04B6Q");
  PutAtaString(w, 27, 20, "Samsung SSD 860 EVO 500GB");
  w[87] = 0x4100;  // valid, WWN supported
  w[108] = 0x5002;
  w[109] = 0x538e;
  w[110] = 0x40a2;
  w[111] = 0x2954;
  DiskIdentity d;
  ParseAtaIdentify(w, &d);
  EXPECT_EQ(d.model, "Samsung SSD 860 EVO 500GB");
  EXPECT_EQ(d.serial, "S3Z1NB0K123456X");
  EXPECT_EQ(d.firmware, "RVT04B6Q");
  EXPECT_EQ(d.wwn, "naa.5002538e40a22954");
}

TEST(ParseNvmeIdNamespace, LbaFormats) {
  uint8_t data[4096] = {};
  data[25] = 1;        // two formats
  data[26] = 1;        // format 1 in use
  data[128 + 2] = 9;   // 512 B
  data[128 + 3] = 2;   // rp 2
  data[132 + 2] = 12;  // 4096 B
  data[132 + 0] = 8;   // 8 B metadata
  auto f = ParseNvmeIdNamespace(data, sizeof data);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].data_bytes, 512u);
  EXPECT_EQ(f[0].relative_performance, 2u);
  EXPECT_FALSE(f[0].in_use);
  EXPECT_EQ(f[1].data_bytes, 4096u);
  EXPECT_EQ(f[1].metadata_bytes, 8u);
  EXPECT_TRUE(f[1].in_use);
}

TEST(IdentifyTarget, BadInputs) {
  EXPECT_EQ(IdentifyTarget("/nonexistent/xyz").status().code(), Code::kNotFound);
  auto dir = IdentifyTarget("/tmp");
  EXPECT_EQ(dir.status().code(), Code::kInvalidArgument);
  EXPECT_NE(dir.status().message().find("directory"), std::string::npos);
  auto chr = IdentifyTarget("/dev/null");
  EXPECT_EQ(chr.status().code(), Code::kInvalidArgument);
  EXPECT_NE(chr.status().message().find("character device"), std::string::npos);
}

TEST(IdentifyTarget, RegularFile) {
  FakeTree t("id_file");
  t.File("f", std::string(8192, 'x'), true);
  auto id = IdentifyTarget((t.root() / "f").string());
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(id->kind, "file");
  EXPECT_EQ(id->size_bytes, 8192u);
  EXPECT_FALSE(id->mount_point.empty());
  // Either the disk under the filesystem, or a note saying why there is none.
  EXPECT_TRUE(id->disk.has_value() || !id->disk_note.empty());
  EXPECT_NE(DescribeTarget(id.value()).find("8192 bytes"), std::string::npos);
}

TEST(IdentifyDirectory, DirectoryAndNotDirectory) {
  FakeTree t("id_dir");
  t.File("f", "x", true);
  auto id = IdentifyDirectory(t.root().string());
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(id->kind, "directory");
  EXPECT_FALSE(id->mount_point.empty());
  EXPECT_TRUE(id->disk.has_value() || !id->disk_note.empty());
  EXPECT_NE(DescribeTarget(id.value()).find("directory"), std::string::npos);
  EXPECT_EQ(IdentifyDirectory((t.root() / "f").string()).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(IdentifyDirectory("/nonexistent/xyz").status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace ssdlab
