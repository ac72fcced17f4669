// The suite without the CLI or the database: the runner's stored steps, resume on a
// persistent target and by replay on the simulator, and a steady state reached on sim:tiny.
// The journal is kept in memory (suite/journal.h).
#include <gtest/gtest.h>

#include <map>

#include "sim/sim.h"
#include "suite/pts.h"
#include "suite/runner.h"
#include "suite/tests.h"

namespace ssdlab {
namespace {

using nlohmann::json;

class MemoryJournal : public RunJournal {
 public:
  struct Test {
    TestRecord rec;
    std::map<int, StoredRound> rounds;
    std::map<int, std::vector<StoredPhase>> phases;
  };
  std::vector<Test> tests;
  int commits = 0;

  Result<int64_t> BeginTest(int64_t, int seq, const std::string& name,
                            const json& params) override {
    for (const Test& t : tests) {
      if (t.rec.name == name) return t.rec.id;
    }
    Test t;
    t.rec = {static_cast<int64_t>(tests.size() + 1), seq, name, "running", params, {}, {}};
    tests.push_back(t);
    return tests.back().rec.id;
  }
  Result<std::vector<TestRecord>> ListTests(int64_t) override {
    std::vector<TestRecord> out;
    for (const Test& t : tests) out.push_back(t.rec);
    return out;
  }
  Status CommitRound(int64_t id, int round, const std::vector<StoredPhase>& phases,
                     const json& tracking) override {
    ++commits;
    Test& t = tests.at(id - 1);
    t.rounds[round] = {round, tracking};
    t.phases[round] = phases;
    return Status::Ok();
  }
  Status FinishTest(int64_t id, const json& steady_state, const json& results) override {
    TestRecord& r = tests.at(id - 1).rec;
    r.status = "done";
    r.steady_state = steady_state;
    r.results = results;
    return Status::Ok();
  }
  Result<std::vector<StoredRound>> LoadRounds(int64_t id) override {
    std::vector<StoredRound> out;
    for (const auto& [n, r] : tests.at(id - 1).rounds) out.push_back(r);
    return out;
  }
  Result<std::vector<StoredPhase>> LoadPhases(int64_t id, int round) override {
    std::vector<StoredPhase> out;
    for (const auto& [n, p] : tests.at(id - 1).phases) {
      if (round < 0 || n == round) out.insert(out.end(), p.begin(), p.end());
    }
    return out;
  }
};

// A target that keeps its state and answers each phase with one measured I/O per byte limit
// block, counting the phases it ran.
class CountingBackend : public Backend {
 public:
  CountingBackend() {
    info_.path = "counting";
    info_.kind = "file";
    info_.size_bytes = 64 << 20;
    info_.logical_block_bytes = 512;
  }
  const TargetInfo& info() const override { return info_; }
  Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl&) override {
    ++phases;
    PhaseResult r;
    r.measured_ns = spec.runtime_ns;
    r.dirs[0].ios = 10;
    r.dirs[0].bytes = 10 * spec.MinBlockBytes();
    for (int i = 0; i < 10; ++i) r.dirs[0].latency.Record(1000 * (i + 1));
    r.io_errors = io_errors;
    if (io_errors) r.errors.push_back("write of 4096 bytes at offset 0: Input/output error");
    r.interrupted = interrupted;
    return r;
  }
  Status Idle(uint64_t, const RunControl&) override { return Status::Ok(); }
  Result<std::string> Purge(const std::string&, const RunControl&) override {
    return std::string("none");
  }
  bool persistent_state() const override { return true; }

  int phases = 0;
  uint64_t io_errors = 0;
  bool interrupted = false;

 private:
  TargetInfo info_;
};

struct Fixture {
  explicit Fixture(Backend& b, const PtsOptions& o, RunJournal& j, const std::string& name)
      : env{b, j, o, nullptr, nullptr, 0, name, j.BeginTest(1, 0, name, json::object()).value()} {}
  pts::TestEnv env;
};

PtsOptions SmallOptions() {
  PtsOptions o = SpecDefaults(PtsSpec::kPtsE);
  o.round_ns = 100'000'000;  // virtual on the simulator
  o.iops_block_bytes = {4096};
  o.iops_mixes = {Mix{0}};
  o.wipc_multiple = 1;
  o.steady.window_rounds = 3;
  o.max_rounds = 12;
  return o;
}

pts::Runner::Body OnePhase(pts::Runner& r, const std::string& cell) {
  return [&r, cell]() -> Result<std::vector<StoredPhase>> {
    SSDLAB_ASSIGN_OR_RETURN(PhaseResult p,
                            r.Phase(r.Spec(false, 100, 4096, 1, 1, 1000, 1 << 20, 0), cell));
    return std::vector<StoredPhase>{{0, cell, json::object(), std::move(p)}};
  };
}

// The battery's registry runs every test of the catalogue, in the catalogue's order.
TEST(Suite, TestsFollowTheCatalogue) {
  ASSERT_EQ(pts::Tests().size(), results::PtsTests().size());
  for (size_t i = 0; i < results::PtsTests().size(); ++i)
    EXPECT_EQ(pts::Tests()[i].id, results::PtsTests()[i].id) << results::PtsTests()[i].name;
  EXPECT_EQ(PtsTestNames(), results::PtsTestNames());
  EXPECT_STREQ(pts::FindTest("ecw")->title(), "Enterprise composite workload");
}

// A runner's tests: a counting backend, a journal in memory and the small options.
class Runner : public ::testing::Test {
 protected:
  CountingBackend b;
  MemoryJournal j;
  PtsOptions o = SmallOptions();
};

TEST_F(Runner, CommitsEachStepAndSkipsStoredStepsOnAPersistentTarget) {
  {
    Fixture f(b, o, j, "iops");
    pts::Runner r(f.env);
    auto s0 = r.Step(0, OnePhase(r, "a"), [](const auto&) { return json{{"x", 1}}; });
    ASSERT_TRUE(s0.ok()) << s0.status().message();
    auto s1 = r.Step(1, OnePhase(r, "b"), nullptr);
    ASSERT_TRUE(s1.ok());
  }
  EXPECT_EQ(b.phases, 2);
  EXPECT_EQ(j.commits, 2);
  EXPECT_EQ(j.tests[0].rounds.at(0).tracking, (json{{"x", 1}}));
  EXPECT_EQ(j.tests[0].phases.at(1).front().round, 1);  // the runner numbers the phases
  // Resumed: the stored steps come back from the journal, the target runs only step 2.
  Fixture f(b, o, j, "iops");
  pts::Runner r(f.env);
  auto again = r.Step(1, OnePhase(r, "b"), nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->front().cell, "b");
  EXPECT_EQ(b.phases, 2);
  ASSERT_TRUE(r.Step(2, OnePhase(r, "c"), nullptr).ok());
  EXPECT_EQ(b.phases, 3);
  EXPECT_EQ(j.commits, 3);
}

TEST_F(Runner, PhaseRefusesIoErrorsAndReportsInterruption) {
  Fixture f(b, o, j, "iops");
  pts::Runner r(f.env);
  b.io_errors = 3;
  auto bad = r.Step(0, OnePhase(r, "a"), nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kIoError);
  EXPECT_NE(bad.status().message().find("3 I/O errors"), std::string::npos);
  b.io_errors = 0;
  b.interrupted = true;
  auto stopped = r.Step(0, OnePhase(r, "a"), nullptr);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), Code::kInterrupted);
  EXPECT_EQ(j.commits, 0);  // nothing half-measured is stored
}

std::unique_ptr<SimBackend> Tiny() {
  auto b = OpenSimBackend("sim:tiny");
  EXPECT_TRUE(b.ok()) << b.status().message();
  return std::move(b.value());
}

TEST(Suite, IopsReachesSteadyStateOnSimTinyAndStoresItsJudgement) {
  auto b = Tiny();
  MemoryJournal j;
  PtsOptions o = SmallOptions();
  o.tests = {"iops"};
  ASSERT_TRUE(ValidatePtsOptions(o).ok());
  ASSERT_TRUE(RunPts(*b, j, 1, o, nullptr, nullptr).ok());
  ASSERT_EQ(j.tests.size(), 1u);
  const MemoryJournal::Test& t = j.tests[0];
  EXPECT_EQ(t.rec.status, "done");
  ASSERT_TRUE(t.rec.steady_state.value("reached", false)) << t.rec.steady_state.dump();
  // Step 0 is the purge and preconditioning; each later step one round.
  const size_t rounds = t.rounds.size() - 1;
  EXPECT_GE(rounds, o.steady.window_rounds);
  EXPECT_LT(rounds, o.max_rounds);  // stopped once steady
  EXPECT_EQ(t.rec.results["rounds"].size(), rounds);
  // The stored verdict is the judge's over the stored tracking series.
  const std::string var = t.rec.steady_state["tracking"][0];
  std::vector<double> series;
  for (int i = 1; i <= static_cast<int>(rounds); ++i)
    series.push_back(t.rounds.at(i).tracking.at(var).get<double>());
  SteadyStateVerdict v = JudgeSteadyState(series, o.steady);
  EXPECT_TRUE(v.reached);
  EXPECT_DOUBLE_EQ(t.rec.steady_state["variables"][var]["mean"].get<double>(), v.mean);
  EXPECT_DOUBLE_EQ(t.rec.steady_state["range_pct"].get<double>(), v.range_pct);
  // The window's results cover the window's rounds only.
  const json& cell = t.rec.results["cells"][0];
  uint64_t window_ios = 0;
  for (size_t i = rounds - o.steady.window_rounds + 1; i <= rounds; ++i)
    window_ios += t.phases.at(static_cast<int>(i)).front().result.Total().ios;
  EXPECT_EQ(cell["total"]["ios"].get<uint64_t>(), window_ios);
}

// Bytes written by a test's random-write preconditioning (its "precondition ..." phases).
double PreconditionBytes(const MemoryJournal::Test& t) {
  double bytes = 0;
  for (const auto& [step, phases] : t.phases)
    for (const StoredPhase& p : phases)
      if (p.cell.rfind("precondition", 0) == 0)
        bytes += static_cast<double>(p.result.dirs[1].bytes);
  return bytes;
}

TEST(Suite, WdpcCapacityWritesThatMuchBeforeSteadyStateCounts) {
  PtsOptions o = SmallOptions();
  o.tests = {"lvi"};
  o.lvi_threads = {1};
  o.lvi_qds = {1};
  o.lvi_mixes = {Mix{100}};
  o.lvi_block_bytes = {4096};
  o.lvi_warmup_ns = 0;
  o.lvi_measure_ns = 100'000'000;
  const double range = static_cast<double>(Tiny()->info().size_bytes);
  MemoryJournal alone;
  ASSERT_TRUE(RunPts(*Tiny(), alone, 1, o, nullptr, nullptr).ok());
  const double steady_only = PreconditionBytes(alone.tests.at(0));
  ASSERT_LT(steady_only, 2 * range) << "tiny is steady before 2 capacities: the test shows nothing";
  o.wdpc_capacity_multiple = 2;
  MemoryJournal j;
  ASSERT_TRUE(RunPts(*Tiny(), j, 1, o, nullptr, nullptr).ok());
  const MemoryJournal::Test& t = j.tests.at(0);
  EXPECT_GE(PreconditionBytes(t), 2 * range);
  EXPECT_TRUE(t.rec.steady_state.value("reached", false)) << t.rec.steady_state.dump();
  EXPECT_GT(t.rec.steady_state.value("rounds_run", 0), static_cast<int>(o.max_rounds))
      << "more rounds than --max-rounds when the capacity needs them";
}

// --iops-round: the IOPS test's cells last iops_round_ns, the other tests' round_ns.
TEST(Suite, IopsRoundSetsTheIopsCellsDurationOnly) {
  PtsOptions o = SmallOptions();
  o.tests = {"iops", "lat"};
  o.lat_block_bytes = {4096};
  o.lat_mixes = {Mix{100}};
  o.iops_round_ns = 7'000'000;
  CountingBackend b;
  MemoryJournal j;
  ASSERT_TRUE(RunPts(b, j, 1, o, nullptr, nullptr).ok());
  ASSERT_EQ(j.tests.size(), 2u);
  for (const MemoryJournal::Test& t : j.tests) {
    const uint64_t want = t.rec.name == "iops" ? o.iops_round_ns : o.round_ns;
    size_t cells = 0;
    for (const auto& [round, phases] : t.phases)
      for (const StoredPhase& p : phases) {
        if (round == 0) continue;  // purge and preconditioning
        EXPECT_EQ(p.result.measured_ns, want) << t.rec.name;
        ++cells;
      }
    EXPECT_GT(cells, 0u) << t.rec.name;
  }
  o.iops_round_ns = 500'000;
  EXPECT_EQ(ValidatePtsOptions(o).message(), "--iops-round must be at least 1ms");
}

TEST(Suite, ResumeOnTheSimulatorReplaysStoredRoundsAndFinishesTheSame) {
  PtsOptions o = SmallOptions();
  o.tests = {"iops"};
  MemoryJournal whole;
  ASSERT_TRUE(RunPts(*Tiny(), whole, 1, o, nullptr, nullptr).ok());
  const MemoryJournal::Test& done = whole.tests[0];
  ASSERT_GE(done.rounds.size(), 3u);

  // A run that stopped after its first round: running again replays steps 0 (purge and
  // preconditioning) and 1 on a fresh drive (checked against what was stored), then measures
  // the rest.
  MemoryJournal cut = whole;
  MemoryJournal::Test& t = cut.tests[0];
  t.rec.status = "running";
  t.rec.steady_state = t.rec.results = json();
  for (int i = 2; i < static_cast<int>(done.rounds.size()); ++i) {
    t.rounds.erase(i);
    t.phases.erase(i);
  }
  cut.commits = 0;
  ASSERT_TRUE(RunPts(*Tiny(), cut, 1, o, nullptr, nullptr).ok());
  EXPECT_EQ(cut.commits, static_cast<int>(done.rounds.size()) - 2);  // only the missing rounds
  EXPECT_EQ(t.rec.status, "done");
  EXPECT_EQ(t.rec.steady_state, done.rec.steady_state);
  EXPECT_EQ(t.rec.results, done.rec.results);

  // A stored round the replay does not reproduce stops the resume.
  MemoryJournal tampered = whole;
  tampered.tests[0].rec.status = "running";
  tampered.tests[0].phases.at(1).front().result.dirs[1].ios += 1;
  Status s = RunPts(*Tiny(), tampered, 1, o, nullptr, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("replay on resume differs"), std::string::npos) << s.message();
}

TEST(Suite, ABatterySplitIntoPassesGivesEachTestItsFiguresOfOnePass) {
  PtsOptions o = SmallOptions();
  o.tests = {"iops", "wsat"};
  o.wsat_round_ns = 200'000'000;
  o.wsat_max_rounds = 4;
  MemoryJournal whole;
  ASSERT_TRUE(RunPts(*Tiny(), whole, 1, o, nullptr, nullptr).ok());
  ASSERT_EQ(whole.tests.size(), 2u);
  // WSAT alone on another drive, then IOPS alone: the figures of the one battery.
  OnlyTests wsat_only({"wsat"}), iops_only({"iops"});
  MemoryJournal second, first;
  ASSERT_TRUE(RunPts(*Tiny(), second, 1, o, nullptr, nullptr, &wsat_only).ok());
  ASSERT_TRUE(RunPts(*Tiny(), first, 1, o, nullptr, nullptr, &iops_only).ok());
  ASSERT_EQ(second.tests.size(), 1u);
  ASSERT_EQ(first.tests.size(), 1u);
  EXPECT_EQ(first.tests[0].rec.name, "iops");
  EXPECT_EQ(second.tests[0].rec.name, "wsat");
  EXPECT_EQ(first.tests[0].rec.results, whole.tests[0].rec.results);
  EXPECT_EQ(second.tests[0].rec.results, whole.tests[1].rec.results);
  EXPECT_EQ(second.tests[0].rec.steady_state, whole.tests[1].rec.steady_state);
  // In another place a test's workload has another seed, and other figures: why places count.
  PtsOptions swapped = o;
  swapped.tests = {"wsat", "iops"};
  MemoryJournal other;
  ASSERT_TRUE(RunPts(*Tiny(), other, 1, swapped, nullptr, nullptr, &iops_only).ok());
  EXPECT_NE(other.tests.at(0).rec.results, whole.tests[0].rec.results);
}

TEST(PtsOptions, StoredOptionsReadBackAsTheyWere) {
  PtsOptions o = SpecDefaults(PtsSpec::kReview);
  o.tests = {"iops", "wsat"};
  o.round_ns = 123'000'000;
  o.iops_round_ns = 4'000'000;
  o.iops_mixes = {Mix{65}, Mix{0}};
  o.steady.band_pct = 7.5;
  auto back = PtsOptionsFromJson(PtsOptionsJson(o));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(PtsOptionsJson(back.value()), PtsOptionsJson(o));
  EXPECT_EQ(back->spec, PtsSpec::kReview);
  EXPECT_EQ(back->iops_mixes.size(), 2u);
  // An older document without a key keeps the spec's default for it.
  json old = PtsOptionsJson(o);
  old.erase("dirth_max_mean_ns");
  auto older = PtsOptionsFromJson(old);
  ASSERT_TRUE(older.ok());
  EXPECT_EQ(older->dirth_max_mean_ns, SpecDefaults(PtsSpec::kReview).dirth_max_mean_ns);
}

TEST(PtsOptions, DividedDurationsAreTheSpecsOverTheTimeScale) {
  const PtsOptions spec = SpecDefaults(PtsSpec::kReview);
  PtsOptions o = spec;
  DivideDurations(o, 6);
  EXPECT_EQ(o.time_scale, 6u);
  EXPECT_EQ(o.round_ns, 10'000'000'000u);
  EXPECT_EQ(o.wsat_round_ns, 10'000'000'000u);
  EXPECT_EQ(o.iops_round_ns, 0u);  // --round's, divided
  EXPECT_EQ(o.lvi_warmup_ns, spec.lvi_warmup_ns / 6);
  EXPECT_EQ(o.lvi_measure_ns, 5'000'000'000u);
  EXPECT_EQ(o.hir_write_ns, spec.hir_write_ns / 6);
  EXPECT_EQ(o.hir_baseline_ns, 300'000'000'000u);
  ASSERT_EQ(o.hir_wait_ns.size(), spec.hir_wait_ns.size());
  EXPECT_EQ(o.hir_wait_ns.back(), spec.hir_wait_ns.back() / 6);
  EXPECT_EQ(o.xsr_ns.front(), 4800'000'000'000u);  // 8 h -> 80 min
  EXPECT_EQ(o.dirth_histogram_ns, 100'000'000'000u);
  // Counts, sizes and latency limits are not durations.
  EXPECT_EQ(o.max_rounds, spec.max_rounds);
  EXPECT_EQ(o.wsat_max_rounds, spec.wsat_max_rounds);
  EXPECT_EQ(o.hir_cycles, spec.hir_cycles);
  EXPECT_EQ(o.dirth_max_mean_ns, spec.dirth_max_mean_ns);
  // Stored and read back with the scale.
  auto back = PtsOptionsFromJson(PtsOptionsJson(o));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->time_scale, 6u);
  EXPECT_EQ(PtsOptionsFromJson(PtsOptionsJson(spec))->time_scale, 1u);
}

TEST(PtsOptions, DamagedStoredOptionsAreAStatusNamingTheKey) {
  json j = PtsOptionsJson(SpecDefaults(PtsSpec::kPtsE));
  j["round_ns"] = "sixty seconds";
  auto bad = PtsOptionsFromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("round_ns"), std::string::npos);
  j = PtsOptionsJson(SpecDefaults(PtsSpec::kPtsE));
  j["steady_state"]["rule"] = "vibes";
  EXPECT_NE(PtsOptionsFromJson(j).status().message().find("steady_state"), std::string::npos);
  j["spec"] = "pts-x";
  EXPECT_NE(PtsOptionsFromJson(j).status().message().find("spec"), std::string::npos);
  EXPECT_FALSE(PtsOptionsFromJson(json::array()).ok());
}

}  // namespace
}  // namespace ssdlab
