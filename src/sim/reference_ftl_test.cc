// The simulator's write amplification against a plain reference FTL with the same blocks and
// the same free-block reserve (sim/testing/reference_ftl.h; issue 44, defect 3), and the
// analytic model `sim describe` prints (analytic_wa) against the simulator.
#include "sim/testing/reference_ftl.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "sim/analytic.h"
#include "sim/params.h"
#include "sim/test_util.h"

namespace ssdlab::simtest {
namespace {

// The three geometries of the issue, scaled to run in seconds: 1 MiB blocks (256 pages) on
// 1096-1536 blocks; 12 MiB blocks (3072 pages) on 321-466 blocks.
constexpr const char* kGeometries[] = {"sim:tiny?capacity=1GiB", "sim:dc-sata-mixed?scale=512",
                                       "sim:client-nvme-tlc?scale=256"};

// The simulator's WA after a sequential fill (when `fill`), 4 drive writes of random 4 KiB
// writes, measured over 3 more.
double SimulatedWa(const std::string& target, bool fill) {
  auto b = Open(target);
  if (!b) return 0;
  if (fill) RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
  RunSpec(*b, Spec(*b, "randwrite", "4KiB", 32, "4x", "", "0%-100%", 1, 11));
  PhaseResult r = RunSpec(*b, Spec(*b, "randwrite", "4KiB", 32, "3x", "", "0%-100%", 1, 12));
  return Counter(r, "write_amplification");
}

// The reference FTL on the simulated drive's blocks, user pages and free-block reserve.
double ReferenceWa(const std::string& target, bool fill) {
  auto p = sim::ParseSimTarget(target);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return 0;
  const sim::Geometry g = sim::DeriveGeometry(p.value());
  ReferenceFtl ftl(g.blocks, g.pages_per_block, g.user_pages, g.low_free_blocks,
                   p.value().gc == sim::VictimPolicy::kFifo ? ReferenceFtl::Policy::kFifo
                                                            : ReferenceFtl::Policy::kGreedy);
  return simtest::ReferenceSteadyWa(ftl, fill, 4, 3, 7);
}

double AnalyticWa(const std::string& target) {
  auto p = sim::ParseSimTarget(target);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return 0;
  return sim::Analyze(p.value(), sim::DeriveGeometry(p.value())).wa_steady;
}

class SimWa : public ::testing::TestWithParam<std::tuple<const char*, const char*, const char*>> {
 protected:
  std::string Target() const {
    const auto& [geometry, op, gc] = GetParam();
    return std::string(geometry) + "&op=" + op + "&gc=" + gc;
  }
};

// Within 2% (the issue asks for 3%): before issue 44 the eager GC let its pool sit one to two
// blocks under the watermark, and the 7% OP drives of 321 and 334 blocks were 2.7-2.9% under
// the reference (the 1096-block one 0.7-0.8%); now all are within 0.3%.
TEST_P(SimWa, WithinTwoPercentOfAReferenceFtlWithTheSameBlocksAndReserve) {
  const std::string target = Target();
  const double sim = SimulatedWa(target, true);
  const double ref = ReferenceWa(target, true);
  RecordProperty("sim_wa", std::to_string(sim));
  RecordProperty("reference_wa", std::to_string(ref));
  EXPECT_NEAR(sim / ref, 1.0, 0.02) << target << ": sim " << sim << ", reference " << ref;
  // analytic_wa (sim describe) is the limit model of many pages per block: FIFO's WA, and an
  // upper bound of greedy's, which smaller blocks lower (by 3.3% at 256 pages and 7% OP).
  const double analytic = AnalyticWa(target);
  RecordProperty("analytic_wa", std::to_string(analytic));
  const bool small_greedy = std::get<2>(GetParam()) == std::string("greedy") &&
                            std::string(std::get<0>(GetParam())).find("tiny") != std::string::npos;
  EXPECT_NEAR(sim / analytic, 1.0, small_greedy ? 0.04 : 0.03)
      << target << ": sim " << sim << ", analytic_wa " << analytic;
  EXPECT_LT(sim, analytic * 1.01) << target;
}

INSTANTIATE_TEST_SUITE_P(GeometryOpPolicy, SimWa,
                         ::testing::Combine(::testing::ValuesIn(kGeometries),
                                            ::testing::Values("7", "28", "50"),
                                            ::testing::Values("greedy", "fifo")));

// The figures (tiny at 7% OP, FIFO: 8.29 against 8.93) came from random writes on a
// drive never filled: the pages not written yet hold no flash, in the simulator as in any
// page-mapped FTL, and are spare while they last (4 + 3 drive writes leave e^-4 to e^-7 of
// them). The reference given the same writes has that spare too.
TEST(SimWaUnfilled, RandomWritesOnAnEmptyDriveMatchTheReferenceOnTheSameWrites) {
  const std::string target = "sim:tiny?capacity=1GiB&op=7&gc=fifo";
  const double sim = SimulatedWa(target, false);
  const double ref = ReferenceWa(target, false);
  EXPECT_NEAR(sim / ref, 1.0, 0.02) << "sim " << sim << ", reference " << ref;
  EXPECT_LT(sim, 0.95 * ReferenceWa(target, true)) << "unwritten pages are spare";
}

}  // namespace
}  // namespace ssdlab::simtest
