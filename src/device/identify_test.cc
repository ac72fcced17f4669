#include "device/identify.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include "device/test_tree.h"

namespace ssdlab {
namespace {

using testing_tree::FakeTree;

// A SATA SSD on an AHCI port, with one partition.
void MakeSata(const FakeTree& t) {
  const std::string scsi = "sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0";
  const std::string disk = scsi + "/block/sda";
  t.File(scsi + "/vendor", "ATA     ");
  t.File(scsi + "/model", "Samsung SSD 860 ");
  t.File(scsi + "/rev", "4B6Q");
  t.File(scsi + "/scsi_level", "6");
  t.File(scsi + "/queue_depth", "32");
  t.File(scsi + "/wwid", "naa.5002538e40a22954");
  std::string vpd("\x00\x80\x00\x10 S3Z1NB0K123456X", 20);
  t.File(scsi + "/vpd_pg80", vpd, true);
  t.Link(disk + "/device", "../../../0:0:0:0");
  t.File(disk + "/dev", "8:0");
  t.File(disk + "/size", "976773168");
  t.Queue(disk, 512, 512, false, 64, "none [mq-deadline] kyber bfq", "write back", 2147450880);
  t.File(disk + "/sda1/partition", "1");
  t.File(disk + "/sda1/dev", "8:1");
  t.File(disk + "/sda1/start", "2048");
  t.File(disk + "/sda1/size", "1000000");
  t.Link("sys/dev/block/8:0", "../../" + disk.substr(4));
  t.Link("sys/dev/block/8:1", "../../" + disk.substr(4) + "/sda1");
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
  EXPECT_EQ(d->vendor, "ATA");
  EXPECT_EQ(d->model, "Samsung SSD 860");
  EXPECT_EQ(d->serial, "S3Z1NB0K123456X");
  EXPECT_EQ(d->firmware, "4B6Q");
  EXPECT_EQ(d->wwn, "naa.5002538e40a22954");
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
  t.Link(ns + "/device", "../../nvme0");
  t.File(ns + "/dev", "259:0");
  t.File(ns + "/size", "1953525168");
  t.File(ns + "/nsid", "1");
  t.File(ns + "/wwid", "eui.002538b211b1a2c3");
  t.Queue(ns, 512, 512, false, 1023, "[none] mq-deadline", "write back", 2199023255040ull);
  t.Link("sys/dev/block/259:0", "../../" + ns.substr(4));
  auto d = IdentifyDisk(makedev(259, 0), t.sys(), false);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->transport, Transport::kNvme);
  EXPECT_EQ(d->vendor, "Samsung");
  EXPECT_EQ(d->model, "Samsung SSD 980 PRO 1TB");
  EXPECT_EQ(d->serial, "S5GXNF0R123456A");
  EXPECT_EQ(d->firmware, "5B2QGXA7");
  EXPECT_EQ(d->wwn, "eui.002538b211b1a2c3");
  EXPECT_EQ(d->nvme_controller, "nvme0");
  EXPECT_EQ(d->nvme_namespace_id, 1u);
  EXPECT_EQ(d->capacity_bytes, 1000204886016ull);
  EXPECT_EQ(d->scheduler, "none");
}

TEST(IdentifyDisk, SasLoopAndVirtio) {
  FakeTree t("id_misc");
  const std::string sas =
      "sys/devices/pci0000:00/0000:02:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0";
  t.File(sas + "/vendor", "SEAGATE ");
  t.File(sas + "/model", "XS1600LE70084   ");
  t.File(sas + "/rev", "0003");
  t.File(sas + "/scsi_level", "7");
  t.File(sas + "/sas_address", "0x5000c500a1b2c3d5");
  t.Link(sas + "/block/sdb/device", "../../../0:0:0:0");
  t.File(sas + "/block/sdb/dev", "8:16");
  t.File(sas + "/block/sdb/size", "3125627568");
  t.Queue(sas + "/block/sdb", 512, 4096, false, 256, "[mq-deadline] none", "write through", 0);
  t.Link("sys/dev/block/8:16", "../../" + sas.substr(4) + "/block/sdb");

  t.File("sys/devices/virtual/block/loop3/dev", "7:3");
  t.File("sys/devices/virtual/block/loop3/size", "131072");
  t.File("sys/devices/virtual/block/loop3/loop/backing_file", "/tmp/x/img");
  t.Queue("sys/devices/virtual/block/loop3", 512, 512, false, 128, "none", "write back",
          4294966784);
  t.Link("sys/dev/block/7:3", "../../devices/virtual/block/loop3");

  const std::string vd = "sys/devices/pci0000:00/0000:00:02.0/virtio1";
  t.File(vd + "/vendor", "0x1af4");
  t.Link(vd + "/block/vda/device", "../../../virtio1");
  t.File(vd + "/block/vda/dev", "254:0");
  t.File(vd + "/block/vda/size", "536870912");
  t.File(vd + "/block/vda/serial", "overlayblk");
  t.Queue(vd + "/block/vda", 512, 4096, true, 256, "none [mq-deadline]", "write back", 1073741824);
  t.Link("sys/dev/block/254:0", "../../" + vd.substr(4) + "/block/vda");

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
