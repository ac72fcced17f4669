#include "device/safety.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

// A fake /proc and /sys around a real (unused) block device node, so the checks can be
// exercised without mounting anything.
class SafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* cand : {"/dev/loop7", "/dev/loop6", "/dev/loop0"}) {
      struct stat st;
      if (stat(cand, &st) == 0 && S_ISBLK(st.st_mode)) {
        dev_ = cand;
        devno_ = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
        break;
      }
    }
    if (dev_.empty()) GTEST_SKIP() << "no /dev/loopN block device node on this machine";
    root_ = fs::temp_directory_path() / ("ssdlab_safety_" + std::to_string(getpid()));
    fs::create_directories(root_ / "proc/self");
    fs::create_directories(root_ / "sys/dev/block" / devno_ / "holders");
    std::ofstream(root_ / "proc/self/mountinfo")
        << "22 1 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n";
    std::ofstream(root_ / "proc/swaps") << "Filename Type Size Used Priority\n";
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }
  Status Check() { return CheckBlockDeviceNotInUse(dev_, root_ / "proc", root_ / "sys"); }

  std::string dev_, devno_;
  fs::path root_;
};

TEST_F(SafetyTest, UnusedDeviceIsAllowed) { EXPECT_TRUE(Check().ok()) << Check().message(); }

TEST_F(SafetyTest, MountedDeviceIsRefused) {
  std::ofstream(root_ / "proc/self/mountinfo", std::ios::app)
      << "40 22 " << devno_ << " / /mnt/my\\040data rw,relatime shared:1 - ext4 /dev/xyz rw\n";
  Status s = Check();
  EXPECT_EQ(s.code(), Code::kPermission);
  EXPECT_NE(s.message().find("mounted on /mnt/my data"), std::string::npos) << s.message();
}

TEST_F(SafetyTest, MountBySourcePathIsRefused) {
  // btrfs and others report an anonymous device number; the source path still matches.
  std::ofstream(root_ / "proc/self/mountinfo", std::ios::app)
      << "41 22 0:55 / /srv rw - btrfs " << dev_ << " rw\n";
  EXPECT_EQ(Check().code(), Code::kPermission);
}

TEST_F(SafetyTest, SwapIsRefused) {
  std::ofstream(root_ / "proc/swaps", std::ios::app) << dev_ << " partition 1024 0 -2\n";
  Status s = Check();
  EXPECT_EQ(s.code(), Code::kPermission);
  EXPECT_NE(s.message().find("swap"), std::string::npos);
}

TEST_F(SafetyTest, HolderIsRefused) {
  fs::create_directories(root_ / "sys/dev/block" / devno_ / "holders/dm-3");
  Status s = Check();
  EXPECT_EQ(s.code(), Code::kPermission);
  EXPECT_NE(s.message().find("dm-3"), std::string::npos);
}

// A result (output, database, state) over a loop device's backing file or a swap file: refused
// whether the device is idle or in use, and no flag allows it.
TEST_F(SafetyTest, AResultFileThatBacksALoopDeviceOrIsSwapIsRefused) {
  const fs::path file = root_ / "backing.img";
  std::ofstream(file) << "data";
  EXPECT_TRUE(CheckResultFileWritable(file, root_ / "proc", root_ / "sys").ok());
  EXPECT_TRUE(CheckResultFileWritable(root_ / "new.json", root_ / "proc", root_ / "sys").ok());
  const fs::path loop = root_ / "sys/block" / fs::path(dev_).filename() / "loop";
  fs::create_directories(loop);
  std::ofstream(loop / "backing_file") << file.string() << "\n";
  Status idle = CheckResultFileWritable(file, root_ / "proc", root_ / "sys");
  EXPECT_EQ(idle.code(), Code::kPermission);
  EXPECT_EQ(idle.message(), file.string() + " is the backing file of loop device " + dev_ +
                                "; refusing to write over it");
  std::ofstream(root_ / "proc/self/mountinfo", std::ios::app)
      << "40 22 " << devno_ << " / /mnt/data rw,relatime shared:1 - ext4 " << dev_ << " rw\n";
  Status mounted = CheckResultFileWritable(file, root_ / "proc", root_ / "sys");
  EXPECT_NE(mounted.message().find("mounted on /mnt/data"), std::string::npos) << mounted.message();
  fs::remove_all(loop);
  std::ofstream(root_ / "proc/swaps", std::ios::app) << file.string() << " file 1024 0 -2\n";
  Status swap = CheckResultFileWritable(file, root_ / "proc", root_ / "sys");
  EXPECT_EQ(swap.code(), Code::kPermission);
  EXPECT_NE(swap.message().find("in use as swap"), std::string::npos) << swap.message();
}

TEST(Safety, NotABlockDevice) {
  EXPECT_EQ(CheckBlockDeviceNotInUse("/etc/hostname").code(), Code::kInvalidArgument);
  EXPECT_EQ(CheckBlockDeviceNotInUse("/dev/does-not-exist").code(), Code::kNotFound);
}

TEST(Safety, WritableNeedsDestructiveFlag) {
  struct stat st;
  if (stat("/dev/loop0", &st) != 0 || !S_ISBLK(st.st_mode)) GTEST_SKIP() << "no /dev/loop0";
  Status s = CheckBlockDeviceWritable("/dev/loop0", false);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--destructive"), std::string::npos);
}

}  // namespace
}  // namespace ssdlab

namespace ssdlab {
namespace {

DeviceIdentity Block(const std::string& serial, const std::string& wwn,
                     const std::string& backing = "", const std::string& name = "sdb") {
  DeviceIdentity id;
  id.path = id.resolved_path = "/dev/" + name;
  id.kind = "block";
  id.size_bytes = 1600321314816ull;
  DiskIdentity d;
  d.name = name;
  d.dev_path = "/dev/" + name;
  d.model = "KINGSTON SEDC400S371600G";
  d.serial = serial;
  d.wwn = wwn;
  d.loop_backing_file = backing;
  d.capacity_bytes = id.size_bytes;
  id.disk = d;
  return id;
}

TEST(Confirmation, SerialOrWwn) {
  DeviceIdentity id = Block("50026B7269001234", "naa.50026b7269001234");
  EXPECT_EQ(ConfirmationTokens(id),
            (std::vector<std::string>{"50026B7269001234", "naa.50026b7269001234"}));
  EXPECT_TRUE(CheckConfirmation(id, "50026B7269001234").ok());
  EXPECT_TRUE(CheckConfirmation(id, " 50026B7269001234 ").ok());
  EXPECT_TRUE(CheckConfirmation(id, "naa.50026b7269001234").ok());
  EXPECT_TRUE(CheckConfirmation(id, "0x50026B7269001234").ok());
  Status wrong = CheckConfirmation(id, "50026B7269009999");
  EXPECT_EQ(wrong.code(), Code::kPermission);
  // The refusal shows what would be destroyed: model, serial and capacity.
  for (const char* part : {"does not match", "KINGSTON SEDC400S371600G", "serial 50026B7269001234",
                           "1600321314816 bytes", "1490.4 GiB"}) {
    EXPECT_NE(wrong.message().find(part), std::string::npos) << part << " in " << wrong.message();
  }
  Status missing = CheckConfirmation(id, "");
  EXPECT_EQ(missing.code(), Code::kPermission);
  EXPECT_NE(missing.message().find("destroys all data"), std::string::npos);
  EXPECT_FALSE(CheckConfirmation(id, "sdb").ok())
      << "the device name is no confirmation when a serial exists";
  EXPECT_FALSE(CheckConfirmation(id, "/dev/sdb").ok());
}

TEST(Confirmation, LoopDeviceUsesBackingFile) {
  DeviceIdentity id = Block("", "", "/tmp/ssdlab/img", "loop3");
  EXPECT_EQ(ConfirmationTokens(id), std::vector<std::string>{"/tmp/ssdlab/img"});
  EXPECT_TRUE(CheckConfirmation(id, "/tmp/ssdlab/img").ok());
  EXPECT_TRUE(CheckConfirmation(id, "/tmp/ssdlab/./img").ok());
  Status s = CheckConfirmation(id, "loop3");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("backing file /tmp/ssdlab/img"), std::string::npos) << s.message();
}

TEST(Confirmation, NoSerialNoWwnUsesKernelName) {
  DeviceIdentity id = Block("", "", "", "zram0");
  EXPECT_EQ(ConfirmationTokens(id), std::vector<std::string>{"zram0"});
  EXPECT_TRUE(CheckConfirmation(id, "zram0").ok());
  EXPECT_FALSE(CheckConfirmation(id, "zram1").ok());
}

TEST(Confirmation, FilesNeedNone) {
  DeviceIdentity f;
  f.kind = "file";
  EXPECT_TRUE(ConfirmationTokens(f).empty());
  EXPECT_TRUE(CheckConfirmation(f, "").ok());
}

}  // namespace
}  // namespace ssdlab
