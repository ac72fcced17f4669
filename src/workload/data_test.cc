#include "workload/data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "workload/parse.h"

namespace ssdlab {
namespace {

WorkloadSpec Spec(const std::string& data, bool verify, const std::string& bs = "4KiB") {
  WorkloadArgs a;
  a.rw = "randwrite";
  a.bs = bs;
  a.data = data;
  a.verify = verify;
  a.seed = 42;
  return ResolveWorkload(a, 1ull << 30, 512).value();
}

// 16 KiB as `f` writes them at `offset` for the write numbered `seq` (the first draw of Rng(1)).
std::vector<uint8_t> Written(const DataFiller& f, uint64_t offset, uint64_t seq) {
  std::vector<uint8_t> buf(16384);
  f.Prepare(buf.data(), buf.size());
  Rng rng(1);
  f.Fill(buf.data(), 16384, offset, seq, rng);
  return buf;
}

TEST(DataFiller, VerifyHeaderRoundTrip) {
  WorkloadSpec s = Spec("random", true, "4KiB:50,16KiB:50");
  DataFiller f(s);
  std::vector<uint8_t> buf = Written(f, 65536, 7);
  std::vector<VerifyFailure> fails;
  EXPECT_EQ(f.Check(buf.data(), 16384, 65536, &fails, 10), 0u);
  // A 4 KiB read of the third unit verifies on its own.
  EXPECT_EQ(f.Check(buf.data() + 8192, 4096, 65536 + 8192, &fails, 10), 0u);
  EXPECT_TRUE(fails.empty());
}

TEST(DataFiller, DetectsEachKindOfDamage) {
  WorkloadSpec s = Spec("random", true);
  DataFiller f(s);
  std::vector<uint8_t> buf = Written(f, 0, 1);
  std::vector<VerifyFailure> fails;
  // Read back as if at another offset: every unit names the wrong offset.
  EXPECT_EQ(f.Check(buf.data(), 16384, 1 << 20, &fails, 10), 4u);
  EXPECT_EQ(fails[0].outcome, VerifyOutcome::kWrongOffset);
  EXPECT_EQ(fails[0].found_offset, 0u);
  fails.clear();
  buf[4096 + 1000] ^= 1;  // flip one bit in the second unit
  EXPECT_EQ(f.Check(buf.data(), 16384, 0, &fails, 10), 1u);
  EXPECT_EQ(fails[0].offset, 4096u);
  EXPECT_EQ(fails[0].outcome, VerifyOutcome::kBadChecksum);
  fails.clear();
  std::memset(buf.data() + 8192, 0, 4096);  // a zeroed unit has no header
  EXPECT_EQ(f.Check(buf.data(), 16384, 0, &fails, 1), 2u);
  EXPECT_EQ(fails.size(), 1u) << "records capped";
  WorkloadSpec other = s;
  other.seed = 43;
  DataFiller g(other);
  std::vector<uint8_t> b2(4096);
  g.Prepare(b2.data(), b2.size());
  Rng rng(1);
  g.Fill(b2.data(), 4096, 0, 1, rng);
  fails.clear();
  EXPECT_EQ(f.Check(b2.data(), 4096, 0, &fails, 10), 1u);
  EXPECT_EQ(fails[0].outcome, VerifyOutcome::kWrongSeed);
}

TEST(DataFiller, SameInputsSameBytesAndWritesDiffer) {
  WorkloadSpec s = Spec("random", false);
  DataFiller f(s);
  std::vector<uint8_t> a(4096), b(4096), c(4096);
  for (auto* v : {&a, &b, &c}) f.Prepare(v->data(), v->size());
  Rng r1(5), r2(5), r3(5);
  f.Fill(a.data(), 4096, 8192, 3, r1);
  f.Fill(b.data(), 4096, 8192, 3, r2);
  f.Fill(c.data(), 4096, 8192, 4, r3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(DataFiller, ZeroAndCompressible) {
  DataFiller zero(Spec("zero", false));
  std::vector<uint8_t> buf(4096, 0xff);
  Rng rng(1);
  zero.Prepare(buf.data(), buf.size());
  zero.Fill(buf.data(), 4096, 0, 1, rng);
  EXPECT_EQ(std::count(buf.begin(), buf.end(), 0), 4096);

  DataFiller half(Spec("compressible:50", false));
  half.Prepare(buf.data(), buf.size());
  half.Fill(buf.data(), 4096, 0, 1, rng);
  EXPECT_EQ(std::count(buf.begin(), buf.begin() + 2048, 0), 2048);
  EXPECT_LT(std::count(buf.begin() + 2048, buf.end(), 0), 100);
}

TEST(DataFiller, DedupeRepeatsContents) {
  DataFiller f(Spec("dedupe:30", false));
  std::vector<uint8_t> buf(4096);
  f.Prepare(buf.data(), buf.size());
  Rng rng(9);
  std::set<std::vector<uint8_t>> distinct;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    f.Fill(buf.data(), 4096, static_cast<uint64_t>(i) * 4096, i, rng);
    distinct.insert(buf);
  }
  // ~70% unique plus at most 1024 pool contents.
  double unique_share = static_cast<double>(distinct.size()) / n;
  EXPECT_GT(unique_share, 0.70);
  EXPECT_LT(unique_share, 0.70 + 1024.0 / n);
}

}  // namespace
}  // namespace ssdlab
