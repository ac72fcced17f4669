// Arrays of simulated drives behind the SimBackend seam (sim/array.h, sim/raid.h).
#include "sim/array.h"

#include <gtest/gtest.h>

#include "sim/test_util.h"

namespace ssdlab {
namespace {

using simtest::Counter;
using simtest::Open;
using simtest::RunSpec;
using simtest::Spec;

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
}  // namespace ssdlab
