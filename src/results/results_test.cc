#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "results/fields.h"
#include "results/hir.h"
#include "results/ids.h"
#include "results/lvi.h"
#include "results/matrix.h"
#include "results/op.h"
#include "results/phase_metrics.h"
#include "results/pts_tests.h"
#include "results/run_document.h"
#include "results/steady_state.h"
#include "results/sweep.h"
#include "results/tp.h"
#include "results/wsat.h"
#include "results/xsr.h"

namespace ssdlab::results {
namespace {

using nlohmann::json;

// The report's PTS fixture: whole batteries the real program ran on the simulator.
json Fixture() {
  std::ifstream in(SSDLAB_PTS_RUNS);
  return json::parse(in);
}

// The catalogue's entries are in the order of PtsTest, so PtsTestOf(id) is the entry of id.
TEST(PtsTests, EntriesAreInTheOrderOfTheirIds) {
  for (size_t i = 0; i < PtsTests().size(); ++i)
    EXPECT_EQ(static_cast<size_t>(PtsTests()[i].id), i) << PtsTests()[i].name;
  EXPECT_STREQ(PtsTestOf(PtsTest::kOp).name, "op");
  ASSERT_NE(FindPtsTest("dirth"), nullptr);
  EXPECT_EQ(FindPtsTest("dirth")->id, PtsTest::kDirth);
  EXPECT_EQ(FindPtsTest("nope"), nullptr);
  std::string joined;
  for (const std::string& n : PtsTestNames()) joined += (joined.empty() ? "" : ",") + n;
  EXPECT_EQ(JoinedPtsTestNames(","), joined);
  EXPECT_EQ(joined.rfind("iops,tp,", 0), 0u) << joined;
}

// Every stored test of the fixture is read by its catalogue entry's check.
TEST(PtsTests, EachChecksTheFixturesStoredResults) {
  size_t checked = 0;
  for (const json& run : Fixture()) {
    for (const json& t : run["tests"]) {
      const PtsTestInfo* info = FindPtsTest(t["name"].get<std::string>());
      if (!info || t["status"] != "done") continue;
      EXPECT_TRUE(info->check(t["results"], info->name).ok()) << info->name;
      ++checked;
    }
  }
  EXPECT_GE(checked, PtsTests().size());
  EXPECT_FALSE(PtsTestOf(PtsTest::kWsat).check(json::array(), "wsat.results").ok());
}

// Every stored steady state of the fixture reads into the typed form and writes back to the
// same document.
TEST(SteadyState, StoredDocumentsRoundTrip) {
  size_t required = 0, tests = 0;
  for (const json& run : Fixture()) {
    for (const json& t : run["tests"]) {
      ++tests;
      auto s = SteadyStateFromJson(t["steady_state"]);
      ASSERT_TRUE(s.ok()) << t["name"] << ": " << s.status().message();
      required += s->required;
      EXPECT_EQ(ToJson(*s), t["steady_state"]) << t["name"];
      if (s->required) {
        EXPECT_FALSE(s->tracking.empty()) << t["name"];
      }
    }
  }
  EXPECT_GT(tests, 10u);
  EXPECT_GT(required, 8u);
}

// Every metrics object anywhere in `j` (an object with a "total" holding "lat_ns").
void CollectMetrics(const json& j, const std::string& where,
                    std::vector<std::pair<std::string, const json*>>& out) {
  if (j.is_object()) {
    if (j.contains("total") && j["total"].is_object() && j["total"].contains("lat_ns"))
      out.emplace_back(where, &j);
    for (const auto& [k, v] : j.items()) CollectMetrics(v, where + "." + k, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      CollectMetrics(j[i], where + "[" + std::to_string(i) + "]", out);
  }
}

// Every stored metrics object of the fixture reads into the typed form and writes back to
// the same keys and values (the keys the metrics own; a cell's own keys beside them stay).
TEST(PhaseMetrics, StoredDocumentsRoundTrip) {
  const json runs = Fixture();
  std::vector<std::pair<std::string, const json*>> all;
  CollectMetrics(runs, "runs", all);
  ASSERT_GT(all.size(), 100u);
  size_t with_counters = 0;
  for (const auto& [where, j] : all) {
    auto m = PhaseMetricsFromJson(*j, where);
    ASSERT_TRUE(m.ok()) << m.status().message();
    json back = ToJson(*m);
    for (const auto& [k, v] : back.items()) EXPECT_EQ(v, (*j)[k]) << where << "." << k;
    for (const char* k : {"read", "write", "total", "measured_ns"})
      EXPECT_TRUE(back.contains(k) == j->contains(k)) << where << "." << k;
    with_counters += !m->counters.empty();
  }
  EXPECT_GT(with_counters, 0u) << "the simulator's counters are read too";
}

// A `run` document with every optional part set: its keys as the schema names them, and its
// table reads back what it wrote.
TEST(RunDocument, OneTableWritesAndReadsEveryPart) {
  RunDocument doc;
  doc.context.phase.platform.host = "h";
  doc.context.phase.platform.cpus = 4;
  doc.context.phase.command_line = {"ssdlab", "run"};
  doc.context.phase.target = {.path = "/tmp/f", .kind = "file", .size_bytes = 1 << 20};
  doc.context.phase.target.details["rotational"] = "0";
  doc.context.phase.workload.read_pct = 70;
  doc.context.phase.workload.block_sizes = {{4096, 100}};
  doc.context.phase.workload.distribution = {"zoned", 0, {{80, 20}, {20, 80}}};
  doc.context.phase.workload.seed = uint64_t{1} << 60;
  doc.context.phase.start_time = "2026-01-01T00:00:00.000Z";
  EngineContext::Granted granted{.batch_submit = 1, .cpus_source = "none"};
  granted.batch_complete_min.word = "auto (a quarter of the depth, 1..32)";
  granted.uring = EngineContext::Uring{.features = "io_uring", .single_issuer = true};
  granted.uring->async_workers.number = 2;
  doc.context.engine = {.name = "io_uring",
                        .requested = EngineContext::Requested{.force_async = "auto"},
                        .granted = granted};
  doc.context.engine.requested->batch_submit.word = "adaptive";
  doc.phase.results.read = {.ios = 3, .iops = 1.5, .bytes = 12288};
  doc.phase.measured_ns = 2'000'000'000;
  doc.phase.intervals = {{.t_begin_ns = 0, .t_end_ns = 1'000'000'000, .read = {.ios = 3}}};
  doc.phase.verify = {.failures = 1, .records = {{.offset = 4096, .problem = "torn"}}};
  doc.phase.notes = {"a note"};
  doc.phase.counters_name = "sim";
  doc.phase.counters = {{"erases", 7}};
  doc.health = {{"source", "none"}};
  doc.mpi = json{{"ranks", 2}};
  const json j = ToJson(doc);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["context"]["host"], "h");  // the platform's keys stand in the context itself
  EXPECT_EQ(j["context"]["seed"], "0");  // ids as decimal strings
  EXPECT_EQ(j["context"]["workload"]["seed"], "1152921504606846976");
  EXPECT_TRUE(j["context"]["device"].is_null());
  EXPECT_FALSE(j["context"].contains("end_time"));  // unset: not written
  EXPECT_EQ(j["context"]["engine"]["requested"]["batch_submit"], "adaptive");
  EXPECT_TRUE(j["context"]["engine"]["requested"]["sqpoll_cpu"].is_null());
  EXPECT_EQ(j["context"]["engine"]["granted"]["async_workers"], 2);
  EXPECT_EQ(j["context"]["engine"]["granted"]["features"], "io_uring");  // io_uring's beside
  EXPECT_EQ(j["results"]["read"]["bytes"], 12288);
  EXPECT_EQ(j["intervals"][0]["read"]["ios"], 3);
  EXPECT_EQ(j["verify"]["records"][0]["problem"], "torn");
  EXPECT_EQ(j["sim"]["erases"], 7.0);  // the counters under the backend's name
  EXPECT_EQ(j["mpi"]["ranks"], 2);
  auto back = RunDocumentFromJson(j, "run");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ToJson(*back), j);
  EXPECT_EQ(back->phase.counters_name, "sim");
  EXPECT_EQ(back->context.phase.workload.seed, uint64_t{1} << 60);

  ReplayDocument replay;
  replay.context.engine = "sim";
  replay.replay.range = {0, 1 << 20};
  replay.replay.latency_compare = std::map<std::string, ReplayInfo::Compared>{{"total", {}}};
  const json r = ToJson(replay);
  EXPECT_EQ(r["context"]["engine"], "sim");
  EXPECT_TRUE(r["health"].is_null());
  EXPECT_TRUE(r["replay"]["kept_up"].is_null());  // unset: null (an untimed replay's lag)
  EXPECT_TRUE(r["replay"]["lag_ns"].is_null());
  EXPECT_EQ(r["replay"]["range"], json::array({0, 1 << 20}));
  EXPECT_EQ(r["replay"]["latency_compare"]["total"]["recorded"]["ios"], 0);
  auto replay_back = ReplayDocumentFromJson(r, "replay");
  ASSERT_TRUE(replay_back.ok()) << replay_back.status().message();
  EXPECT_EQ(ToJson(*replay_back), r);
}

TEST(RunDocument, DamagedDocumentsAreRefusedNamingTheKey) {
  const json good = ToJson(RunDocument{});
  const std::vector<std::pair<std::string, json>> cases = {
      {"run.context.engine.requested.batch_submit", {{"requested", {{"batch_submit", true}}}}},
      {"run.context.engine.name", {{"name", 3}}},
  };
  for (const auto& [key, engine] : cases) {
    json doc = good;
    doc["context"]["engine"] = engine;
    auto r = RunDocumentFromJson(doc, "run");
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_NE(r.status().message().find(key), std::string::npos) << r.status().message();
  }
  json doc = good;
  doc["intervals"] = {{{"t_begin_ns", -1}}};
  auto r = RunDocumentFromJson(doc, "run");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("run.intervals[0].t_begin_ns is not a count"),
            std::string::npos)
      << r.status().message();
}

TEST(PhaseMetrics, FiguresOfAPhase) {
  PhaseResult r;
  r.measured_ns = 2'000'000'000;
  for (uint64_t ns : {1000, 2000, 3000, 4000}) {
    r.dirs[0].ios++;
    r.dirs[0].bytes += 4096;
    r.dirs[0].latency.Record(ns);
  }
  PhaseMetrics m = MetricsOf(r, {50, 99.9});
  EXPECT_EQ(m.read.ios, 4u);
  EXPECT_DOUBLE_EQ(m.read.iops, 2.0);
  EXPECT_DOUBLE_EQ(m.read.bw_bytes_per_s, 8192.0);
  EXPECT_EQ(m.total.ios, 4u);
  EXPECT_EQ(m.write.ios, 0u);
  ASSERT_EQ(m.read.lat_ns.percentiles.count("p99_9"), 1u);
  EXPECT_GT(m.read.lat_ns.percentiles["p99_9"], m.read.lat_ns.percentiles["p50"]);
  auto back = PhaseMetricsFromJson(ToJson(m), "m");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(ToJson(*back), ToJson(m));
}

TEST(PhaseMetrics, DamagedDocumentsAreRefusedNamingTheKey) {
  const std::vector<std::pair<json, std::string>> cases = {
      {json::array(), "cell"},
      {{{"read", 3}}, "cell.read"},
      {{{"read", {{"ios", -1}}}}, "cell.read.ios"},
      {{{"total", {{"lat_ns", {{"p99", "slow"}}}}}}, "cell.total.lat_ns.p99"},
      {{{"total", {{"lat_ns", {{"max", -1.5}}}}}}, "cell.total.lat_ns.max"},
      {{{"sim", {{"erases", "many"}}}}, "cell.sim.erases"},
  };
  for (const auto& [doc, key] : cases) {
    auto m = PhaseMetricsFromJson(doc, "cell");
    ASSERT_FALSE(m.ok()) << doc.dump();
    EXPECT_NE(m.status().message().find(key), std::string::npos) << m.status().message();
  }
}

TEST(SteadyState, ReachedOverAllVariablesHeadlineFromTheFirst) {
  TestSteadyState s;
  s.required = true;
  s.tracking = {"a", "b"};
  s.variables["a"].reached = true;
  s.variables["a"].mean = 10;
  s.variables["b"].reached = false;
  s.headline = s.variables["a"];
  s.reached = false;
  json j = ToJson(s);
  EXPECT_EQ(j["reached"], false);
  EXPECT_EQ(j["mean"], 10.0);
  auto back = SteadyStateFromJson(j);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->reached);
  EXPECT_TRUE(back->headline.reached) << "the headline keeps its own variable's flag";
  EXPECT_EQ(back->tracking, s.tracking);
}

// Issue 44: the verdict keeps its evidence (criteria, both rules' outcomes, the first judged
// round, the end) through a round trip, and words it from the stored values.
TEST(SteadyState, EvidenceIsStoredAndWorded) {
  SteadyStateCriteria c;
  c.rule = SteadyStateRule::kReviewBand;
  c.window_rounds = 4;
  TestSteadyState s;
  s.required = true;
  s.tracking = {"iops"};
  s.variables["iops"] = JudgeSteadyState({50, 100, 120, 80, 100}, c);
  s.headline = s.variables["iops"];
  s.reached = true;
  s.end = TestEnd::kSteadyState;
  auto back = SteadyStateFromJson(ToJson(s));
  ASSERT_TRUE(back.ok()) << back.status().message();
  const SteadyStateVerdict& v = back->headline;
  ASSERT_TRUE(v.criteria && v.snia_met && v.band_met);
  EXPECT_EQ(v.criteria->rule, SteadyStateRule::kReviewBand);
  EXPECT_EQ(v.criteria->window_rounds, 4u);
  EXPECT_FALSE(*v.snia_met);
  EXPECT_TRUE(*v.band_met);
  EXPECT_EQ(back->end, TestEnd::kSteadyState);
  EXPECT_EQ(EvidenceText(v),
            "reached by the review rule (fitted line within 6% of the mean, band 10%); data "
            "excursion 40% exceeds SNIA's 20%, slope excursion 12% exceeds SNIA's 10%");
  EXPECT_EQ(
      VerdictLine(*back),
      "steady state reached in rounds 2-5 of 5 (window 4, mean 100 IOPS); " + EvidenceText(v));
  // A verdict stored before the evidence was kept words nothing more.
  json old = ToJson(s);
  for (const char* k : {"criteria", "snia_met", "band_met"}) old.erase(k);
  for (const char* k : {"criteria", "snia_met", "band_met"}) old["variables"]["iops"].erase(k);
  auto legacy = SteadyStateFromJson(old);
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(EvidenceText(legacy->headline), "");
}

// Issue 44: WSAT's own end is named, and is no missed steady state; the round limit is.
TEST(SteadyState, OwnEndIsNamedAndNotAFailure) {
  TestSteadyState s;
  s.required = true;
  s.tracking = {"iops"};
  s.variables["iops"] = JudgeSteadyState({100}, SteadyStateCriteria{});
  s.headline = s.variables["iops"];
  s.end = TestEnd::kOwnCapacity;
  s.end_capacity_multiple = 4;
  auto back = SteadyStateFromJson(ToJson(s));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(VerdictLine(*back).rfind("ended at 4x capacity, the spec's end; steady state not "
                                     "reached in its 1 round",
                                     0),
            0u)
      << VerdictLine(*back);
  EXPECT_FALSE(MissedSteadyState(*back));
  back->end = TestEnd::kRoundLimit;
  EXPECT_TRUE(MissedSteadyState(*back));
  EXPECT_EQ(
      VerdictLine(*back).rfind("STEADY STATE NOT REACHED after 1 rounds (the round limit)", 0), 0u);
}

TEST(Ids, WrittenAsStringsReadFromEither) {
  EXPECT_EQ(IdJson(9990447348439510779ull), json("9990447348439510779"));
  uint64_t v = 0;
  EXPECT_TRUE(IdFromJson(json("9990447348439510779"), v));
  EXPECT_EQ(v, 9990447348439510779ull);
  EXPECT_TRUE(IdFromJson(json(uint64_t{18446744073709551615ull}), v));
  EXPECT_EQ(v, 18446744073709551615ull);
  EXPECT_TRUE(IdFromJson(json(7), v));
  EXPECT_EQ(v, 7u);
  for (const json& bad : {json("18446744073709551616"), json("-1"), json("1x"), json(""), json(-1),
                          json(1.5), json(nullptr)})
    EXPECT_FALSE(IdFromJson(bad, v)) << bad;
}

TEST(SteadyState, NoRequirementIsEmpty) {
  auto none = SteadyStateFromJson(json::object());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->required);
  EXPECT_EQ(ToJson(*none), json::object());
  EXPECT_TRUE(SteadyStateFromJson(json()).ok());
}

TEST(SteadyState, DamagedDocumentsAreRefusedNamingTheKey) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"reached", "yes"}}, "steady_state.reached"},
      {{{"reached", true}, {"rounds_run", -3}}, "steady_state.rounds_run"},
      {{{"reached", true}, {"mean", "x"}}, "steady_state.mean"},
      {{{"reached", true}, {"variables", 3}}, "steady_state.variables"},
      {{{"reached", true}, {"variables", {{"iops", {{"slope", "s"}}}}}},
       "steady_state.variables.iops.slope"},
      {{{"reached", true}, {"tracking", "iops"}}, "steady_state.tracking"},
      {json::array({1, 2}), "steady_state"},
  };
  for (const auto& [doc, key] : cases) {
    auto s = SteadyStateFromJson(doc);
    ASSERT_FALSE(s.ok()) << doc.dump();
    EXPECT_NE(s.status().message().find(key), std::string::npos) << s.status().message();
  }
}

// Every stored list of tracking rounds of the fixture reads and writes back to the letter, but
// for the notes of a step (XSR's list is the store's own steps: its purge's "purge_method").
TEST(Rounds, StoredDocumentsRoundTrip) {
  size_t rounds = 0, of_op = 0, notes = 0;
  for (const json& run : Fixture()) {
    for (const json& t : run["tests"]) {
      const std::string where = t["name"].get<std::string>() + ".rounds";
      auto r = RoundsFromJson(t["rounds"], where);
      ASSERT_TRUE(r.ok()) << r.status().message();
      json expected = t["rounds"];
      for (json& rd : expected) {
        json& tracking = rd["tracking"];
        for (auto it = tracking.begin(); it != tracking.end();) {
          notes += !it->is_number();
          it = it->is_number() ? std::next(it) : tracking.erase(it);
        }
      }
      EXPECT_EQ(ToJson(*r).dump(), expected.dump()) << where;
      rounds += r->size();
      for (const TrackedRound& rd : *r) of_op += rd.op_pct.has_value();
    }
  }
  EXPECT_GT(rounds, 50u);
  EXPECT_GT(of_op, 0u) << "the OP study's rounds carry their setting";
  EXPECT_GT(notes, 0u) << "a step's notes are read past";
}

TEST(Rounds, NotesAreSkippedDamageIsRefused) {
  auto notes = RoundsFromJson(json::parse(R"([{"round": 0, "tracking": {"purge_method": "format"}},
                      {"round": 1, "tracking": {"iops": 5}}])"),
                              "t.rounds");
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  ASSERT_EQ(notes->size(), 2u);
  EXPECT_TRUE((*notes)[0].tracking.empty());
  EXPECT_EQ((*notes)[1].tracking.at("iops"), 5.0);
  EXPECT_TRUE(RoundsFromJson(json(), "t.rounds")->empty());
  const std::vector<std::pair<const char*, std::string>> cases = {
      {R"({"round": 1})", "t.rounds is not a list"},
      {R"([{"round": -1}])", "t.rounds[0].round is not a count"},
      {R"([{}, {"tracking": [1]}])", "t.rounds[1].tracking is not an object"},
      {R"([{"op_pct": "5%"}])", "t.rounds[0].op_pct is not a number"},
  };
  for (const auto& [text, want] : cases) {
    auto r = RoundsFromJson(json::parse(text), "t.rounds");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message(), want);
  }
}

// ---- The results of each PTS test ----

// Every stored results object of test `name` in the fixture reads into the typed form `from`
// gives and writes back to the same document, to the letter (the same keys, values and number
// types: what the suite stores through ToJson); keys the battery adds beside (health) stay out.
template <class From>
void ExpectStoredResultsRoundTrip(const std::vector<std::string>& names, From from) {
  size_t seen = 0;
  for (const json& run : Fixture()) {
    for (const json& t : run["tests"]) {
      const std::string name = t["name"];
      if (std::find(names.begin(), names.end(), name) == names.end()) continue;
      ++seen;
      json stored = t["results"];
      stored.erase("health");
      auto r = from(t["results"], name + ".results");
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(ToJson(*r).dump(), stored.dump()) << name;
    }
  }
  EXPECT_GT(seen, 0u) << names[0];
}

TEST(TestResults, StoredDocumentsRoundTrip) {
  ExpectStoredResultsRoundTrip({"iops", "lat"}, MatrixResultsFromJson);
  ExpectStoredResultsRoundTrip({"tp"}, TpResultsFromJson);
  ExpectStoredResultsRoundTrip({"lvi"}, LviResultsFromJson);
  ExpectStoredResultsRoundTrip({"wsat"}, WsatResultsFromJson);
  ExpectStoredResultsRoundTrip({"hir"}, HirResultsFromJson);
  ExpectStoredResultsRoundTrip({"xsr"}, XsrResultsFromJson);
  ExpectStoredResultsRoundTrip({"dirth", "ecw"}, SweepResultsFromJson);
  ExpectStoredResultsRoundTrip({"op"}, OpResultsFromJson);
}

// Each damaged results object (JSON text) is refused with Invalid naming the test and the key.
template <class From>
void ExpectRefused(From from, const std::string& test,
                   const std::vector<std::pair<const char*, std::string>>& cases) {
  for (const auto& [text, key] : cases) {
    auto r = from(json::parse(text), test + ".results");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find(test + ".results" + key), std::string::npos)
        << r.status().message();
  }
}

TEST(TestResults, DamagedDocumentsAreRefusedNamingTestAndKey) {
  ExpectRefused(MatrixResultsFromJson, "iops",
                {{"[]", ""},
                 {R"({"range_bytes": -1})", ".range_bytes"},
                 {R"({"purge_method": 3})", ".purge_method"},
                 {R"({"cells": [{"cell": "c", "total": {"iops": "x"}}]})", ".cells[0].total.iops"},
                 {R"({"cells": [{"workload": {"seed": "s"}}]})", ".cells[0].workload.seed"}});
  ExpectRefused(TpResultsFromJson, "tp",
                {{R"({"by_block": [{"steady_state": {"reached": "y"}}]})",
                  ".by_block[0].steady_state.reached"},
                 {R"({"by_block": [{"block_bytes": "big"}]})", ".by_block[0].block_bytes"}});
  ExpectRefused(LviResultsFromJson, "lvi",
                {{R"({"curves": [{"points": [{"qd": "deep"}]}]})", ".curves[0].points[0].qd"},
                 {R"({"curves": 3})", ".curves"}});
  ExpectRefused(WsatResultsFromJson, "wsat",
                {{R"({"per_round": [{"time_s": "late"}]})", ".per_round[0].time_s"},
                 {R"({"stopped_by": 3})", ".stopped_by"}});
  ExpectRefused(
      HirResultsFromJson, "hir",
      {{R"({"wait_states": [{"cycles": [{"max_ns": -1}]}]})", ".wait_states[0].cycles[0].max_ns"},
       {R"({"wait_states": [{"return_series": [{"iops": "x"}]}]})",
        ".wait_states[0].return_series[0].iops"},
       {R"({"wait_states": [{"cycle_metrics": 1}]})", ".wait_states[0].cycle_metrics"}});
  ExpectRefused(XsrResultsFromJson, "xsr",
                {{R"({"segments": [{"series_bw": [[1]]}]})", ".segments[0].series_bw[0]"},
                 {R"({"recovered": "no"})", ".recovered"}});
  ExpectRefused(SweepResultsFromJson, "dirth",
                {{R"({"selected": [{"histogram": [["a", 1]]}]})", ".selected[0].histogram[0]"},
                 {R"({"max_mean_latency_ns": "5ms"})", ".max_mean_latency_ns"}});
  ExpectRefused(
      OpResultsFromJson, "op",
      {{R"({"op_points": [{"curves": 3}]})", ".op_points[0].curves"},
       {R"({"op_points": [{"steady_state": {"mean": "m"}}]})", ".op_points[0].steady_state.mean"}});
}

// ---- The field table (results/fields.h) ----

struct Inner {
  double x = 0;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
};
struct Outer {
  std::string name;
  uint32_t n = 0;
  std::optional<uint64_t> seed;
  bool done = false;
  Inner inner;
  std::vector<Inner> list;
  std::map<std::string, double> named;
  std::string path;  // written as {"target": {"path"}}
};

constexpr auto kInner = fields::Object<Inner>(
    fields::Number("x", &Inner::x),
    fields::List("pairs", &Inner::pairs, fields::PairOf<uint64_t, uint64_t>()));
constexpr auto kOuter = fields::Object<Outer>(
    fields::Text("name", &Outer::name), fields::Count("n", &Outer::n),
    fields::Count("seed", &Outer::seed), fields::Flag("done", &Outer::done),
    fields::Sub("inner", &Outer::inner, kInner), fields::List("list", &Outer::list, kInner),
    fields::Sub("named", &Outer::named, fields::MapOf(fields::NumberOf<double>())),
    fields::At<Outer>("target", fields::Object<Outer>(fields::Text("path", &Outer::path))));

TEST(Fields, OneTableWritesAndReads) {
  Outer o{"a", 3, std::nullopt, true, {1.5, {{1, 2}}}, {{}, {2, {}}}, {{"v", 0.5}}, "/p"};
  const json j = kOuter.Write(o);
  EXPECT_EQ(j.dump(),
            R"({"done":true,"inner":{"pairs":[[1,2]],"x":1.5},"list":[{"pairs":[],"x":0.0},)"
            R"({"pairs":[],"x":2.0}],"n":3,"name":"a","named":{"v":0.5},"target":{"path":"/p"}})");
  EXPECT_TRUE(j["n"].is_number_unsigned());
  auto back = kOuter.Parse(j, "o");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(kOuter.Write(*back), j);
  EXPECT_FALSE(back->seed.has_value()) << "an optional member is written only when set";
  o.seed = 7;
  EXPECT_EQ(kOuter.Parse(kOuter.Write(o), "o")->seed, 7u);
  auto empty = kOuter.Parse(json{{"name", nullptr}}, "o");
  ASSERT_TRUE(empty.ok()) << "missing and null keys keep the defaults";
  EXPECT_EQ(empty->n, 0u);
}

TEST(Fields, OneWordingForEveryKind) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"[]", "o is not an object"},
      {R"({"name": 1})", "o.name is not a text"},
      {R"({"n": -1})", "o.n is not a count"},
      {R"({"seed": "s"})", "o.seed is not a count"},
      {R"({"done": 0})", "o.done is not true or false"},
      {R"({"inner": {"x": "y"}})", "o.inner.x is not a number"},
      {R"({"inner": 2})", "o.inner is not an object"},
      {R"({"list": {}})", "o.list is not a list"},
      {R"({"list": [{}, {"pairs": [[1]]}]})", "o.list[1].pairs[0] is not a pair of numbers"},
      {R"({"named": {"v": true}})", "o.named.v is not a number"},
      {R"({"target": {"path": 3}})", "o.target.path is not a text"},
  };
  for (const auto& [text, want] : cases) {
    auto r = kOuter.Parse(json::parse(text), "o");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(r.status().message(), want);
  }
}

}  // namespace
}  // namespace ssdlab::results
