// End-to-end tests of `ssdlab info` and `ssdlab purge` on files and on loop devices the tests
// create. Loop devices have no serial: --confirm takes the backing file's path for them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

constexpr uint64_t kImageBytes = 64ull << 20;

// Fills `path` (a file or device) with `bytes` of non-zero pseudo-random data.
void FillRandom(const std::string& path, uint64_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::in | std::ios::out);
  if (!out) out.open(path, std::ios::binary | std::ios::out);
  std::mt19937_64 rng(42);
  std::vector<uint64_t> buf(1 << 16);
  for (uint64_t done = 0; done < bytes; done += buf.size() * 8) {
    for (auto& x : buf) x = rng() | 0x0101010101010101ull;  // no zero byte
    out.write(reinterpret_cast<const char*>(buf.data()),
              static_cast<std::streamsize>(std::min<uint64_t>(buf.size() * 8, bytes - done)));
  }
  out.flush();
}

// Counts non-zero bytes in the first `bytes` of `path`.
uint64_t NonZeroBytes(const std::string& path, uint64_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buf(1 << 20);
  uint64_t nonzero = 0, done = 0;
  while (done < bytes && in.read(buf.data(), static_cast<std::streamsize>(
                                                 std::min<uint64_t>(buf.size(), bytes - done)))) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) nonzero += buf[static_cast<size_t>(i)] != 0;
    done += static_cast<uint64_t>(in.gcount());
  }
  return nonzero;
}

TEST(DeviceInfo, RegularFile) {
  TempDir t;
  FillRandom(t / "f", 1 << 20);
  Proc p = RunSsdlab({"info", "--target", t / "f", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json j = json::parse(p.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["target"]["kind"], "file");
  EXPECT_EQ(j["target"]["size_bytes"], 1 << 20);
  EXPECT_FALSE(j["target"]["filesystem"].get<std::string>().empty());
  // The backing device where attributable, or a note saying why not.
  EXPECT_TRUE(j["target"]["disk"].is_object() ||
              !j["target"]["disk_note"].get<std::string>().empty())
      << p.out;
  EXPECT_TRUE(j["smart"].contains("available"));
  EXPECT_TRUE(j["temperature"]["sample"].contains("temperature_c"));
  if (!j["temperature"]["available"].get<bool>()) {
    EXPECT_TRUE(j["temperature"]["sample"]["temperature_c"].is_null())
        << "never invent a temperature";
    EXPECT_FALSE(j["temperature"]["reason"].get<std::string>().empty());
  }
  Proc table = RunSsdlab({"info", "--target", t / "f", "--no-smart"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(Has(table.out, "kind                file")) << table.out;
}

TEST(DeviceInfo, BadInputs) {
  TempDir t;
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"info", "--target", t / "missing"}, "does not exist"},
           {{"info", "--target", t.path().string()}, "is a directory"},
           {{"info", "--target", "/dev/null"}, "character device"},
           {{"info", "--target", "sim:nosuch"}, "nosuch"},
           {{"purge", "--target", t / "missing"}, "does not exist"},
           {{"purge", "--target", "/dev/null", "--dry-run"}, "character device"},
           {{"purge", "--target", "sim:dc-sata", "--dry-run"}, "simulated"},
       }) {
    Proc p = RunSsdlab(c.args);
    EXPECT_EQ(p.exit_code, 2) << c.args[2] << ": " << p.err;
    EXPECT_TRUE(Has(p.err, c.message)) << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << "one-line error: " << p.err;
  }
  FillRandom(t / "f", 4096);
  Proc m = RunSsdlab({"purge", "--target", t / "f", "--method", "shred"});
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_TRUE(Has(m.err, "unknown purge method 'shred'")) << m.err;
  Proc n = RunSsdlab({"purge", "--target", t / "f", "--method", "nvme-format", "--destructive"});
  EXPECT_EQ(n.exit_code, 2);
  EXPECT_TRUE(Has(n.err, "needs a block device")) << n.err;
}

TEST(DeviceInfo, SimulatedDriveAnswersWithItsModel) {
  Proc p = RunSsdlab({"info", "--target", "sim:dc-sata-read-intensive?op=50", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  nlohmann::json doc = nlohmann::json::parse(p.out);
  EXPECT_EQ(doc["target"]["kind"], "sim");
  EXPECT_EQ(doc["target"]["params"]["op"], "50");
  EXPECT_FALSE(doc["smart"]["available"].get<bool>());
  EXPECT_EQ(doc["temperature"]["source"], "simulated");
  EXPECT_FALSE(doc["temperature"]["available"].get<bool>()) << "the model has no temperature";
  EXPECT_TRUE(doc["temperature"]["sample"].is_null());
  bool has_wa = false;
  for (const auto& f : doc["figures"]) has_wa |= f["key"] == "analytic_wa";
  EXPECT_TRUE(has_wa);
}

TEST(DevicePurge, PunchHoleOnAFileZeroesIt) {
  TempDir t;
  const uint64_t size = 8 << 20;
  FillRandom(t / "f", size);
  Proc refused = RunSsdlab({"purge", "--target", t / "f"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(Has(refused.err, "--destructive")) << refused.err;
  EXPECT_EQ(NonZeroBytes(t / "f", size), size) << "a refused purge must not touch the data";

  Proc dry = RunSsdlab({"purge", "--target", t / "f", "--dry-run", "--json"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  json plan = json::parse(dry.out);
  EXPECT_EQ(plan["plan"]["method"], "punch-hole");
  EXPECT_TRUE(Has(plan["plan"]["steps"][0].get<std::string>(), "FALLOC_FL_PUNCH_HOLE"));
  EXPECT_EQ(NonZeroBytes(t / "f", size), size) << "a dry run writes nothing";

  Proc ok = RunSsdlab({"purge", "--target", t / "f", "--method", "discard", "--destructive"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  struct stat st;
  ASSERT_EQ(stat((t / "f").c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), size) << "punching holes keeps the size";
  EXPECT_EQ(NonZeroBytes(t / "f", size), 0u);
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, size) << "the blocks were released";
}

// A loop device over a 64 MiB image in the test's directory.
class LoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "loop devices need root";
    img_ = dir_ / "img";
    std::ofstream(img_).close();
    if (truncate(img_.c_str(), static_cast<off_t>(kImageBytes)) != 0)
      GTEST_SKIP() << "cannot create " << img_;
  }
  // Attaches the image; `partscan` makes the kernel read a partition table.
  bool Attach(bool partscan) { return loops_.Attach(img_, kImageBytes, &dev_, partscan); }
  bool Mount(const std::string& dev) { return loops_.Mount(dev, dir_ / "mnt", false); }
  // The image's canonical path, which --confirm takes for a loop device.
  std::string Confirm() const { return std::filesystem::canonical(img_).string(); }
  Proc Purge(std::vector<std::string> extra) {
    std::vector<std::string> args = {"purge", "--target", dev_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunSsdlab(args);
  }

  TempDir dir_;
  LoopDevices loops_;  // detached before dir_ goes
  std::string img_, dev_;
};

#define ATTACH_OR_SKIP(partscan) \
  if (!Attach(partscan)) GTEST_SKIP() << loops_.error()

TEST_F(LoopTest, InfoDescribesTheLoopDevice) {
  ATTACH_OR_SKIP(false);
  Proc p = RunSsdlab({"info", "--target", dev_, "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json j = json::parse(p.out);
  EXPECT_EQ(j["target"]["kind"], "block");
  EXPECT_EQ(j["target"]["size_bytes"], kImageBytes);
  const json& d = j["target"]["disk"];
  EXPECT_EQ(d["transport"], "loop");
  EXPECT_EQ(d["capacity_bytes"], kImageBytes);
  EXPECT_EQ(d["loop_backing_file"], Confirm());
  EXPECT_EQ(d["logical_sector_bytes"], 512);
  EXPECT_FALSE(j["smart"]["available"].get<bool>());
  EXPECT_FALSE(j["temperature"]["available"].get<bool>());
  EXPECT_TRUE(j["temperature"]["sample"]["temperature_c"].is_null());
  EXPECT_TRUE(Has(j["temperature"]["reason"].get<std::string>(), "loop")) << j["temperature"];
}

TEST_F(LoopTest, MountedExt4IsRefused) {
  ATTACH_OR_SKIP(false);
  std::string out;
  if (Shell("mkfs.ext4 -q -F " + dev_, &out) != 0) GTEST_SKIP() << "no mkfs.ext4: " << out;
  if (!Mount(dev_)) GTEST_SKIP() << loops_.error();
  Proc p = Purge({"--method", "discard", "--destructive", "--confirm", Confirm()});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_TRUE(Has(p.err, "mounted on " + (dir_ / "mnt"))) << p.err;
  EXPECT_EQ(Shell("blkid -p " + dev_ + " | grep -q ext4"), 0) << "the filesystem is intact";
  Proc dry = Purge({"--dry-run", "--json"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  json j = json::parse(dry.out);
  EXPECT_FALSE(j["allowed"].get<bool>());
  EXPECT_TRUE(Has(j["refusal"].get<std::string>(), "mounted on")) << j;
}

TEST_F(LoopTest, MountedPartitionIsRefused) {
  {
    // An MBR with one Linux partition from sector 2048 to the end.
    std::fstream f(img_, std::ios::binary | std::ios::in | std::ios::out);
    unsigned char mbr[512] = {};
    unsigned char* e = mbr + 446;
    e[4] = 0x83;
    uint32_t start = 2048, count = static_cast<uint32_t>(kImageBytes / 512) - start;
    for (int i = 0; i < 4; ++i) {
      e[8 + i] = static_cast<unsigned char>(start >> (8 * i));
      e[12 + i] = static_cast<unsigned char>(count >> (8 * i));
    }
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    f.write(reinterpret_cast<const char*>(mbr), sizeof mbr);
  }
  ATTACH_OR_SKIP(true);
  std::string part = dev_ + "p1", out;
  struct stat st;
  // Kernels without MBR support in partscan still take the partition through BLKPG.
  if (stat(part.c_str(), &st) != 0) Shell("partx -a " + dev_);
  if (stat(part.c_str(), &st) != 0) GTEST_SKIP() << "the kernel made no partition node " << part;
  if (Shell("mkfs.ext4 -q -F " + part, &out) != 0) GTEST_SKIP() << "no mkfs.ext4: " << out;
  if (!Mount(part)) GTEST_SKIP() << loops_.error();

  Proc p = Purge({"--method", "discard", "--destructive", "--confirm", Confirm()});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_TRUE(Has(p.err, "has a partition " + part + " that is mounted on")) << p.err;

  // The partition resolves to its disk; whole-disk methods want the disk.
  Proc info = RunSsdlab({"info", "--target", part, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  json j = json::parse(info.out);
  EXPECT_EQ(j["target"]["partition"], part.substr(5));
  EXPECT_EQ(j["target"]["partition_start_bytes"], 2048 * 512);
  EXPECT_EQ(j["target"]["disk"]["dev_path"], dev_);
}

TEST_F(LoopTest, SignatureNeedsDestructiveAndTheRightConfirmation) {
  ATTACH_OR_SKIP(false);
  std::string out;
  if (Shell("mkfs.ext4 -q -F " + dev_, &out) != 0) GTEST_SKIP() << "no mkfs.ext4: " << out;

  Proc plain = Purge({"--method", "discard"});
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_TRUE(Has(plain.err, "ext4")) << plain.err;
  EXPECT_TRUE(Has(plain.err, "--destructive")) << plain.err;

  Proc unconfirmed = Purge({"--method", "discard", "--destructive"});
  EXPECT_EQ(unconfirmed.exit_code, 2);
  // The refusal shows what would be destroyed and what --confirm expects.
  EXPECT_TRUE(Has(unconfirmed.err, "destroys all data on " + dev_)) << unconfirmed.err;
  EXPECT_TRUE(Has(unconfirmed.err, std::to_string(kImageBytes) + " bytes")) << unconfirmed.err;
  EXPECT_TRUE(Has(unconfirmed.err, "backing file " + Confirm())) << unconfirmed.err;

  for (const std::string& wrong :
       {dev_, dev_.substr(5), std::string("S3Z1NB0K123456X"), img_ + "x"}) {
    Proc p = Purge({"--method", "discard", "--destructive", "--confirm", wrong});
    EXPECT_EQ(p.exit_code, 2) << wrong;
    EXPECT_TRUE(Has(p.err, "does not match")) << p.err;
  }
  Proc no_destructive = Purge({"--method", "discard", "--confirm", Confirm()});
  EXPECT_EQ(no_destructive.exit_code, 2);
  EXPECT_EQ(Shell("blkid -p " + dev_ + " | grep -q ext4"), 0)
      << "every refusal left the data alone";

  Proc ok = Purge({"--method", "discard", "--destructive", "--confirm", Confirm()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(Shell("blkid -p " + dev_ + " | grep -q ext4"), 0) << "the signature is gone";
}

TEST_F(LoopTest, DiscardAndZeroPurgesZeroTheData) {
  ATTACH_OR_SKIP(false);
  for (const char* method : {"auto", "zero"}) {
    FillRandom(dev_, kImageBytes);
    ASSERT_EQ(NonZeroBytes(dev_, kImageBytes), kImageBytes);
    Proc p = Purge({"--method", method, "--destructive", "--confirm", Confirm(), "--json"});
    ASSERT_EQ(p.exit_code, 0) << method << ": " << p.err;
    json j = json::parse(p.out);
    EXPECT_TRUE(j["completed"].get<bool>());
    EXPECT_EQ(j["plan"]["method"], std::string(method) == "auto" ? "discard" : "zero");
    EXPECT_TRUE(j["plan"]["whole_device"].get<bool>());
    EXPECT_EQ(NonZeroBytes(dev_, kImageBytes), 0u) << method;
  }
}

TEST_F(LoopTest, SymlinkIsResolvedAndAccepted) {
  ATTACH_OR_SKIP(false);
  // What udev would make: /dev/disk/by-path/... -> ../../loopN.
  std::filesystem::create_directories(dir_ / "by-path");
  std::string link = dir_ / "by-path/virtual-loop";
  std::filesystem::create_symlink(dev_, link);
  Proc info = RunSsdlab({"info", "--target", link, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  json j = json::parse(info.out);
  EXPECT_EQ(j["target"]["path"], link);
  EXPECT_EQ(j["target"]["resolved_path"], dev_);
  EXPECT_EQ(j["target"]["disk"]["transport"], "loop");

  FillRandom(dev_, kImageBytes);
  Proc dry = RunSsdlab({"purge", "--target", link, "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_TRUE(Has(dry.out, "ioctl(BLKDISCARD) on " + dev_)) << dry.out;
  EXPECT_EQ(NonZeroBytes(dev_, kImageBytes), kImageBytes) << "a dry run writes nothing";
  Proc ok = RunSsdlab({"purge", "--target", link, "--destructive", "--confirm", Confirm()});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(NonZeroBytes(dev_, kImageBytes), 0u);
}

TEST_F(LoopTest, UnsupportedMethodsAreRefusedBeforeWriting) {
  ATTACH_OR_SKIP(false);
  FillRandom(dev_, 1 << 20);
  for (const char* m : {"ata-secure-erase", "ata-enhanced", "sas-format", "nvme-format",
                        "nvme-sanitize", "punch-hole"}) {
    Proc p = Purge({"--method", m, "--destructive", "--confirm", Confirm()});
    EXPECT_EQ(p.exit_code, 2) << m << ": " << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
  }
  EXPECT_EQ(NonZeroBytes(dev_, 1 << 20), 1u << 20);
}

}  // namespace
}  // namespace ssdlab::test
