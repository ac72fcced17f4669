#include "sim/raid.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace ssdlab::sim {
namespace {

constexpr uint64_t K = 1024;

RaidLayout L(RaidLevel level, uint32_t n, uint64_t member_bytes = 1024 * K) {
  return {level, n, 64 * K, member_bytes};
}

std::vector<MemberIo> Map(const RaidLayout& l, Direction d, uint64_t off, uint32_t bytes) {
  std::vector<MemberIo> v;
  MapIo(l, d, off, bytes, &v);
  return v;
}

int Count(const std::vector<MemberIo>& v, Direction d, int stage = -1) {
  int n = 0;
  for (const MemberIo& io : v) n += io.dir == d && (stage < 0 || io.stage == stage);
  return n;
}

TEST(Raid, ValidateAndSize) {
  EXPECT_TRUE(ValidateLayout(L(RaidLevel::kRaid0, 2)).ok());
  EXPECT_FALSE(ValidateLayout(L(RaidLevel::kRaid0, 1)).ok());
  EXPECT_FALSE(ValidateLayout(L(RaidLevel::kRaid10, 3)).ok());
  EXPECT_FALSE(ValidateLayout(L(RaidLevel::kRaid10, 2)).ok());
  EXPECT_FALSE(ValidateLayout(L(RaidLevel::kRaid5, 2)).ok());
  RaidLayout odd = L(RaidLevel::kRaid0, 2);
  odd.chunk_bytes = 5000;
  EXPECT_NE(ValidateLayout(odd).message().find("--chunk"), std::string::npos);
  EXPECT_FALSE(ValidateLayout(L(RaidLevel::kRaid0, 2, 32 * K)).ok());
  EXPECT_EQ(ArrayBytes(L(RaidLevel::kRaid0, 4)), 4096 * K);
  EXPECT_EQ(ArrayBytes(L(RaidLevel::kRaid1, 3)), 1024 * K);
  EXPECT_EQ(ArrayBytes(L(RaidLevel::kRaid10, 4)), 2048 * K);
  EXPECT_EQ(ArrayBytes(L(RaidLevel::kRaid5, 4)), 3072 * K);
  // A member size that is not whole chunks rounds down to whole rows.
  EXPECT_EQ(ArrayBytes(L(RaidLevel::kRaid0, 2, 100 * K)), 128 * K);
  EXPECT_EQ(ParseRaidLevel("raid10").value(), RaidLevel::kRaid10);
  EXPECT_EQ(ParseRaidLevel("raid6").value(), RaidLevel::kRaid6);
  EXPECT_FALSE(ParseRaidLevel("raid7").ok());
  EXPECT_FALSE(ValidateLayout(L(RaidLevel::kRaid6, 3)).ok());
  EXPECT_TRUE(ValidateLayout(L(RaidLevel::kRaid6, 4)).ok());
  EXPECT_EQ(ArrayBytes(L(RaidLevel::kRaid6, 6)), 4096 * K);
}

TEST(Raid, Raid0StripesAndSplits) {
  RaidLayout l = L(RaidLevel::kRaid0, 4);
  auto v = Map(l, Direction::kWrite, 256 * K + 4 * K, 4096);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].member, 0u);
  EXPECT_EQ(v[0].offset, 64 * K + 4 * K);
  v = Map(l, Direction::kRead, 32 * K, 128 * 1024);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].member, 0u);
  EXPECT_EQ(v[0].offset, 32 * K);
  EXPECT_EQ(v[0].bytes, 32 * K);
  EXPECT_EQ(v[1].member, 1u);
  EXPECT_EQ(v[1].bytes, 64 * K);
  EXPECT_EQ(v[2].member, 2u);
  EXPECT_EQ(v[2].bytes, 32 * K);
  // Two rows on one member merge into one member I/O (adjacent on the member).
  RaidLayout two = L(RaidLevel::kRaid0, 2);
  v = Map(two, Direction::kWrite, 0, 256 * 1024);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].bytes, 128 * K);
}

// Every 4 KiB unit of the array lands on a distinct place of a member, inside it.
TEST(Raid, EveryLayoutMapsUnitsToDistinctMemberPlaces) {
  for (RaidLayout l : {L(RaidLevel::kRaid0, 3), L(RaidLevel::kRaid10, 4), L(RaidLevel::kRaid5, 4),
                       L(RaidLevel::kRaid5, 3), L(RaidLevel::kRaid1, 2), L(RaidLevel::kRaid6, 4),
                       L(RaidLevel::kRaid6, 5)}) {
    std::set<std::pair<uint32_t, uint64_t>> seen;
    for (uint64_t off = 0; off < ArrayBytes(l); off += 4 * K) {
      for (const MemberIo& io : Map(l, Direction::kRead, off, 4096)) {
        ASSERT_LT(io.member, l.members);
        ASSERT_LE(io.offset + io.bytes, l.member_bytes);
        EXPECT_TRUE(seen.insert({io.member, io.offset}).second)
            << RaidLevelName(l.level) << " offset " << off;
      }
    }
  }
}

TEST(Raid, MirrorsWriteEveryCopyAndReadOne) {
  auto v = Map(L(RaidLevel::kRaid1, 2), Direction::kWrite, 8 * K, 4096);
  EXPECT_EQ(Count(v, Direction::kWrite), 2);
  EXPECT_EQ(Map(L(RaidLevel::kRaid1, 2), Direction::kRead, 8 * K, 4096).size(), 1u);
  RaidLayout r10 = L(RaidLevel::kRaid10, 4);
  v = Map(r10, Direction::kWrite, 64 * K, 4096);  // chunk 1: pair 1
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].member, 2u);
  EXPECT_EQ(v[1].member, 3u);
  EXPECT_EQ(v[0].offset, 0u);
  v = Map(r10, Direction::kRead, 64 * K, 4096);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].member == 2u || v[0].member == 3u);
}

TEST(Raid, Raid5SmallWriteIsReadModifyWrite) {
  RaidLayout l = L(RaidLevel::kRaid5, 4);
  // Row 0: data on members 0, 1, 2, parity on 3 (left-symmetric).
  auto v = Map(l, Direction::kWrite, 68 * K, 4096);  // chunk 1 -> member 1
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(Count(v, Direction::kRead, 0), 2);
  EXPECT_EQ(Count(v, Direction::kWrite, 1), 2);
  std::map<uint32_t, int> members;
  for (const MemberIo& io : v) {
    ++members[io.member];
    EXPECT_EQ(io.offset, 4 * K);
    EXPECT_EQ(io.bytes, 4096u);
  }
  EXPECT_EQ(members[1], 2);
  EXPECT_EQ(members[3], 2);
  // Row 1: parity on member 2, data chunks 3, 4, 5 on members 3, 0, 1.
  v = Map(l, Direction::kWrite, 3 * 64 * K, 4096);
  EXPECT_EQ(v[0].member, 3u);
  EXPECT_EQ(v[1].member, 2u);  // the parity read
  EXPECT_EQ(v[0].offset, 64 * K);
  // Reads never touch parity.
  v = Map(l, Direction::kRead, 3 * 64 * K, 4096);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].member, 3u);
}

TEST(Raid, Raid5FullRowWritesParityWithoutReading) {
  RaidLayout l = L(RaidLevel::kRaid5, 4);
  auto v = Map(l, Direction::kWrite, 3 * 64 * K, 3 * 64 * 1024);  // row 1 whole
  EXPECT_EQ(Count(v, Direction::kRead), 0);
  EXPECT_EQ(Count(v, Direction::kWrite), 4);
  for (const MemberIo& io : v) EXPECT_EQ(io.stage, 0);
}

TEST(Raid, Raid5ChoosesReconstructWriteWhenItReadsLess) {
  // 3 members: one data chunk touched of two; RMW reads 2, reconstruct-write reads 1.
  auto v = Map(L(RaidLevel::kRaid5, 3), Direction::kWrite, 0, 4096);
  EXPECT_EQ(Count(v, Direction::kRead, 0), 1);
  EXPECT_EQ(Count(v, Direction::kWrite, 1), 2);
  EXPECT_EQ(v[0].member, 1u);  // the other data chunk of row 0
}

TEST(Raid, Raid6PlacesPAndQAndWritesBoth) {
  // 4 members, md left-symmetric: row 0 has P on 3, Q on 0, data chunks 0, 1 on members 1, 2;
  // row 1 has P on 2, Q on 3, data chunks 2, 3 on members 0, 1.
  RaidLayout l = L(RaidLevel::kRaid6, 4);
  EXPECT_EQ(Map(l, Direction::kRead, 0, 4096)[0].member, 1u);
  EXPECT_EQ(Map(l, Direction::kRead, 64 * K, 4096)[0].member, 2u);
  EXPECT_EQ(Map(l, Direction::kRead, 128 * K, 4096)[0].member, 0u);
  auto v = Map(l, Direction::kRead, 128 * K, 4096);
  EXPECT_EQ(v[0].offset, 64 * K);  // row 1 on the member
  // One chunk of two touched: reconstruct-write reads 1 chunk (the other data chunk), not 3.
  v = Map(l, Direction::kWrite, 0, 4096);
  EXPECT_EQ(Count(v, Direction::kRead, 0), 1);
  EXPECT_EQ(v[0].member, 2u);
  ASSERT_EQ(Count(v, Direction::kWrite, 1), 3);
  std::set<uint32_t> written;
  for (const MemberIo& io : v)
    if (io.dir == Direction::kWrite) written.insert(io.member);
  EXPECT_EQ(written, (std::set<uint32_t>{1, 3, 0}));  // data, P, Q
  // A whole row: data, P and Q written, nothing read.
  v = Map(l, Direction::kWrite, 128 * K, 128 * 1024);
  EXPECT_EQ(Count(v, Direction::kRead), 0);
  EXPECT_EQ(Count(v, Direction::kWrite, 0), 4);
  // 6 members, one of four data chunks touched: read-modify-write reads data, P and Q (3)
  // against 3 for reconstruct-write; md prefers read-modify-write on a tie.
  v = Map(L(RaidLevel::kRaid6, 6), Direction::kWrite, 0, 4096);
  EXPECT_EQ(Count(v, Direction::kRead, 0), 3);
  EXPECT_EQ(Count(v, Direction::kWrite, 1), 3);
  EXPECT_EQ(v.size(), 6u);  // 6 member I/Os per 4 KiB random write
}

TEST(Raid, TrimGoesToDataOnly) {
  auto v = Map(L(RaidLevel::kRaid5, 4), Direction::kTrim, 0, 4096);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].dir, Direction::kTrim);
  EXPECT_EQ(Count(Map(L(RaidLevel::kRaid10, 4), Direction::kTrim, 0, 4096), Direction::kTrim), 2);
}

}  // namespace
}  // namespace ssdlab::sim
