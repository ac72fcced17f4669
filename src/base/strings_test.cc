#include "base/strings.h"

#include <gtest/gtest.h>

#include "base/units.h"

namespace ssdlab {
namespace {

using V = std::vector<std::string>;

TEST(Strings, SplitKeepsEveryField) {
  EXPECT_EQ(Split("a,b,c", ','), (V{"a", "b", "c"}));
  EXPECT_EQ(Split(",a,,b,", ','), (V{"", "a", "", "b", ""}));
  EXPECT_EQ(Split("", ','), (V{""}));
  EXPECT_EQ(Split(" a , b ", ','), (V{" a ", " b "}));  // nothing trimmed
  EXPECT_EQ(Split("k=v&x", '&'), (V{"k=v", "x"}));
}

TEST(Strings, SplitNonEmptyDropsEmptyFields) {
  EXPECT_EQ(SplitNonEmpty("a,,b,", ','), (V{"a", "b"}));
  EXPECT_EQ(SplitNonEmpty("", ','), V{});
  EXPECT_EQ(SplitNonEmpty(",", ','), V{});
  EXPECT_EQ(SplitNonEmpty("/usr/bin::/bin:", ':'), (V{"/usr/bin", "/bin"}));
}

TEST(Strings, SplitNLeavesTheRestInTheLastView) {
  std::string_view f[3];
  ASSERT_EQ(SplitN("a,b,c,d", ',', f, 3), 3u);
  EXPECT_EQ(f[0], "a");
  EXPECT_EQ(f[1], "b");
  EXPECT_EQ(f[2], "c,d");
  ASSERT_EQ(SplitN("a,,", ',', f, 3), 3u);
  EXPECT_EQ(f[1], "");
  EXPECT_EQ(f[2], "");
  ASSERT_EQ(SplitN("", ',', f, 3), 1u);
  EXPECT_EQ(f[0], "");
  ASSERT_EQ(SplitN("x,y", ',', f, 1), 1u);
  EXPECT_EQ(f[0], "x,y");
}

TEST(Strings, TrimTakesTheGivenCharactersFromBothEnds) {
  EXPECT_EQ(Trim(" \t\n\v\f\rab c\r\n "), "ab c");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim("\t x \n", " \t"), "x \n");  // only spaces and tabs
  EXPECT_EQ(Trim(std::string_view("\0 sn \0", 6), std::string(kSpace) + '\0'), "sn");
  EXPECT_EQ(TrimRight(" msg \n"), " msg");
  EXPECT_EQ(TrimRight("err\n \n", "\n "), "err");
}

TEST(Strings, CountsAreDigitsOnlyAndNeverWrap) {
  EXPECT_EQ(ParseCount("0").value(), 0u);
  EXPECT_EQ(ParseCount("007").value(), 7u);
  EXPECT_EQ(ParseCount("18446744073709551609").value(), 18446744073709551609ull);
  EXPECT_EQ(ParseCount("18446744073709551610").status().message(),
            "count '18446744073709551610' is too large");
  EXPECT_EQ(ParseCount("").status().message(), "empty count");
  for (const char* bad : {" 1", "1 ", "+1", "-1", "1k", "1.0", "0x10"})
    EXPECT_EQ(ParseCount(bad).status().message(), "'" + std::string(bad) + "' is not a count");
  EXPECT_EQ(ParsePositiveCount("3").value(), 3u);
  EXPECT_EQ(ParsePositiveCount("0").status().message(), "must be at least 1");
  EXPECT_EQ(ParsePositiveCount("x").status().message(), "'x' is not a count");
}

TEST(Strings, LeadingDigitsStopAtTheFirstOtherCharacter) {
  EXPECT_EQ(LeadingDigits("12min"), "12");
  EXPECT_EQ(LeadingDigits("0042"), "0042");
  EXPECT_EQ(LeadingDigits("n1"), "");
  EXPECT_EQ(LeadingDigits(""), "");
  EXPECT_EQ(LeadingDigits("-3"), "");
}

}  // namespace
}  // namespace ssdlab
