#include "base/units.h"

#include <gtest/gtest.h>

namespace ssdlab {
namespace {

TEST(ParseBytes, BinaryAndDecimalUnits) {
  EXPECT_EQ(ParseBytes("4KiB").value(), 4096u);
  EXPECT_EQ(ParseBytes("4k").value(), 4096u);
  EXPECT_EQ(ParseBytes("4K").value(), 4096u);
  EXPECT_EQ(ParseBytes("512").value(), 512u);
  EXPECT_EQ(ParseBytes("512B").value(), 512u);
  EXPECT_EQ(ParseBytes("0.5KiB").value(), 512u);
  EXPECT_EQ(ParseBytes("1MiB").value(), 1048576u);
  EXPECT_EQ(ParseBytes("8GiB").value(), 8ull << 30);
  EXPECT_EQ(ParseBytes("1.6TB").value(), 1600000000000ull);
  EXPECT_EQ(ParseBytes("480GB").value(), 480000000000ull);
  EXPECT_EQ(ParseBytes("4kB").value(), 4000u);
}

TEST(ParseBytes, RejectsMalformed) {
  EXPECT_FALSE(ParseBytes("4XB").ok());
  EXPECT_NE(ParseBytes("4XB").status().message().find("XB"), std::string::npos);
  EXPECT_FALSE(ParseBytes("").ok());
  EXPECT_FALSE(ParseBytes("KiB").ok());
  EXPECT_FALSE(ParseBytes("-4KiB").ok());
  EXPECT_FALSE(ParseBytes("0.3").ok());  // not whole bytes
  EXPECT_FALSE(ParseBytes("inf").ok());
  EXPECT_FALSE(ParseBytes("0x10").ok());
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(ParseDurationNs("10s").value(), 10 * kNsPerS);
  EXPECT_EQ(ParseDurationNs("10").value(), 10 * kNsPerS);
  EXPECT_EQ(ParseDurationNs("500ms").value(), 500 * kNsPerMs);
  EXPECT_EQ(ParseDurationNs("2m").value(), 120 * kNsPerS);
  EXPECT_EQ(ParseDurationNs("1h").value(), 3600 * kNsPerS);
  EXPECT_EQ(ParseDurationNs("250us").value(), 250 * kNsPerUs);
  EXPECT_EQ(ParseDurationNs("1.5s").value(), 1500 * kNsPerMs);
  EXPECT_FALSE(ParseDurationNs("10 parsecs").ok());
  EXPECT_FALSE(ParseDurationNs("2x").ok());
}

TEST(ParsePercent, Bounds) {
  EXPECT_DOUBLE_EQ(ParsePercent("70").value(), 70.0);
  EXPECT_DOUBLE_EQ(ParsePercent("12.5%").value(), 12.5);
  EXPECT_FALSE(ParsePercent("101").ok());
  EXPECT_FALSE(ParsePercent("-1").ok());
  EXPECT_FALSE(ParsePercent("7o").ok());
}

TEST(ParseCount, Digits) {
  EXPECT_EQ(ParseCount("32").value(), 32u);
  EXPECT_FALSE(ParseCount("3.2").ok());
  EXPECT_FALSE(ParseCount("").ok());
  EXPECT_FALSE(ParseCount("99999999999999999999999").ok());
}

// A compact size reads back to the same bytes, in the largest unit that divides it.
TEST(Format, CompactBytesReadsBack) {
  for (uint64_t b :
       {uint64_t{0}, uint64_t{1000}, uint64_t{1536}, 4 * kKiB, 1024 * kMiB, 3 * kGiB + kKiB}) {
    auto back = ParseBytes(CompactBytes(b));
    ASSERT_TRUE(back.ok()) << CompactBytes(b);
    EXPECT_EQ(back.value(), b);
  }
  EXPECT_EQ(CompactBytes(0), "0");
  EXPECT_EQ(CompactBytes(1536), "1536");
  EXPECT_EQ(CompactBytes(4 * kKiB), "4KiB");
  EXPECT_EQ(CompactBytes(1024 * kMiB), "1GiB");
  EXPECT_EQ(CompactBytes(3 * kGiB + kKiB), "3145729KiB");
}

TEST(Format, Readable) {
  EXPECT_EQ(FormatBytes(4096), "4 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(100), "100 B");
  EXPECT_EQ(FormatNs(1500), "1.5 us");
  EXPECT_EQ(FormatNs(2.5e6), "2.5 ms");
  // Values that round up to the next unit take that unit: never "1e+03 ms".
  EXPECT_EQ(FormatNs(999.7), "1 us");
  EXPECT_EQ(FormatNs(999.7e3), "1 ms");
  EXPECT_EQ(FormatNs(999.7e6), "1 s");
  EXPECT_EQ(FormatNs(2.5e12), "2500 s");
  EXPECT_EQ(FormatNumber(213456.7), "213457");
  EXPECT_EQ(FormatNumber(4.64831), "4.648");
}

}  // namespace
}  // namespace ssdlab
