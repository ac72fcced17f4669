// Arrays of simulated drives behind the SimBackend seam (sim/array.h, sim/raid.h).
#include "sim/array.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/test_util.h"

namespace ssdlab::simtest {
namespace {

std::string Array(const std::string& layout, int n, const std::string& member = "sim:tiny") {
  std::vector<std::string> m(n, member);
  auto t = ArrayTarget(m, layout, "64KiB");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? t.value() : "";
}

TEST(SimArray, SizeAndIdentity) {
  auto one = Open("sim:tiny");
  auto r5 = Open(Array("raid5", 4));
  ASSERT_TRUE(one && r5);
  EXPECT_TRUE(IsSimTarget(r5->info().path));
  EXPECT_EQ(r5->info().size_bytes, one->info().size_bytes / 65536 * 65536 * 3);
  EXPECT_NE(r5->info().model.find("raid5 of 4"), std::string::npos);
  auto r1 = Open(Array("raid1", 2));
  EXPECT_EQ(r1->info().size_bytes, one->info().size_bytes / 65536 * 65536);
}

// The member I/Os of small random writes: about 4 per host write on RAID 5 (read data and
// parity, write both), 2 on RAID 10 (both copies), 1 on RAID 0.
TEST(SimArray, Raid5SmallWritesCostTwiceRaid10sMemberIos) {
  double per_io[3];
  double iops[3];
  const char* layouts[3] = {"raid0", "raid10", "raid5"};
  for (int i = 0; i < 3; ++i) {
    auto b = Open(Array(layouts[i], 4));
    ASSERT_TRUE(b);
    auto r = RunSpec(*b, Spec(*b, "randwrite", "4KiB", 32, "", "1s"));
    per_io[i] = Counter(r, "array_member_ios_per_host_io");
    iops[i] = simtest::WriteIops(r);
    EXPECT_EQ(Counter(r, "array_members"), 4);
  }
  EXPECT_DOUBLE_EQ(per_io[0], 1.0);
  EXPECT_DOUBLE_EQ(per_io[1], 2.0);
  EXPECT_DOUBLE_EQ(per_io[2], 4.0);
  // Reads before writes make RAID 5 slower than RAID 0 for small random writes.
  EXPECT_LT(iops[2], iops[0]);
}

TEST(SimArray, ReadsTouchOneMemberAndSameSeedSameResult) {
  auto a = Open(Array("raid10", 4));
  auto b = Open(Array("raid10", 4));
  auto ra = RunSpec(*a, Spec(*a, "randrw", "4KiB", 8, "", "200ms"));
  auto rb = RunSpec(*b, Spec(*b, "randrw", "4KiB", 8, "", "200ms"));
  EXPECT_EQ(ra.counters, rb.counters);
  EXPECT_EQ(ra.dirs[0].ios, rb.dirs[0].ios);
  // randrw 50/50 on RAID 10: reads cost 1 member I/O, writes 2 -> about 1.5 per host I/O.
  EXPECT_NEAR(Counter(ra, "array_member_ios_per_host_io"), 1.5, 0.05);
}

TEST(SimArray, PurgeAndIdleReachEveryMember) {
  auto b = Open(Array("raid0", 2));
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "8MiB"));
  EXPECT_GT(b->counters().host_pages_written, 0u);
  ASSERT_TRUE(b->Purge("auto", RunControl{}).ok());
  EXPECT_EQ(b->counters().host_pages_written, 0u);
  EXPECT_TRUE(b->Idle(1'000'000'000, RunControl{}).ok());
}

// The host path (array_io_us): one host time per array I/O, one at a time. It caps an array's
// IOPS at 1e6 / array_io_us whatever the direction, adds that time to an unqueued I/O's
// latency, and leaves a single drive alone.
TEST(SimArray, HostPathCapsAnArraysIopsNotItsMembers) {
  auto read_iops = [](SimBackend& b, uint32_t qd) {
    RunSpec(b, Spec(b, "write", "128KiB", 4, "", "", "0%-25%"));
    auto r = RunSpec(b, Spec(b, "randread", "4KiB", qd, "", "500ms", "0%-25%"));
    return r.Iops(r.dirs[0]);
  };
  auto one = Open("sim:tiny");
  ASSERT_TRUE(one);
  const double one_iops = read_iops(*one, 64);
  auto plain = Open(Array("raid0", 2));
  ASSERT_TRUE(plain);
  const double plain_iops = read_iops(*plain, 64);
  EXPECT_GT(plain_iops, 1.8 * one_iops);  // two drives, no host limit

  // A host that does 1.5 drives' worth of I/Os.
  const double host_us = 1e6 / (1.5 * one_iops);
  const std::string member = "sim:tiny?array_io_us=" + std::to_string(host_us);
  auto capped = Open(Array("raid0", 2, member));
  ASSERT_TRUE(capped);
  const double cap = 1e6 / (std::round(host_us * 1e3) / 1e3);
  EXPECT_NEAR(read_iops(*capped, 64), cap, 0.01 * cap);
  auto w = RunSpec(*capped, Spec(*capped, "randwrite", "4KiB", 64, "", "500ms", "0%-25%"));
  EXPECT_LE(simtest::WriteIops(w), 1.001 * cap);

  // Unqueued (QD 1): the same reads, each later by the host time.
  auto qd1 = [](SimBackend& b) {
    auto r = RunSpec(b, Spec(b, "randread", "4KiB", 1, "", "200ms", "0%-25%"));
    return r.dirs[0].latency.Mean();
  };
  const double lat_plain = qd1(*plain), lat_capped = qd1(*capped);
  RecordProperty("one_drive_iops", std::to_string(one_iops));
  RecordProperty("two_drives_iops", std::to_string(plain_iops));
  RecordProperty("host_cap_iops", std::to_string(cap));
  RecordProperty("qd1_latency_ns", std::to_string(lat_plain) + " -> " + std::to_string(lat_capped));
  EXPECT_NEAR(lat_capped - lat_plain, host_us * 1e3, 0.02 * lat_plain);

  // A single drive has no array path: the key changes nothing.
  auto single = Open(member);
  ASSERT_TRUE(single);
  EXPECT_EQ(read_iops(*single, 64), one_iops);
}

TEST(SimArray, BadArrays) {
  EXPECT_NE(ArrayTarget({"sim:tiny", "/dev/sda"}, "raid1", "64KiB")
                .status()
                .message()
                .find("not a simulated drive"),
            std::string::npos);
  EXPECT_NE(
      ArrayTarget({"sim:tiny", "sim:tiny"}, "raid5", "64KiB").status().message().find("at least 3"),
      std::string::npos);
  EXPECT_FALSE(ArrayTarget({"sim:tiny", "sim:tiny"}, "raid7", "64KiB").ok());
  EXPECT_FALSE(ArrayTarget({"sim:tiny", "sim:tiny"}, "raid0", "6x").ok());
  auto t = ArrayTarget({"sim:tiny", "sim:tiny?capacity=2GiB"}, "raid1", "64KiB");
  ASSERT_TRUE(t.ok());
  auto b = OpenSimBackend(t.value());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("mismatched array members"), std::string::npos);
  EXPECT_FALSE(OpenSimBackend("array:raid0:x").ok());
}

}  // namespace
}  // namespace ssdlab::simtest
