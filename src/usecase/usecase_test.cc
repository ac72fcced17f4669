// The use cases without the binary: a PTS battery on the simulator into a temporary SQLite
// store, its resume rules, and what the use cases say through their Console.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "lab/mpi.h"
#include "store/store.h"
#include "usecase/console.h"
#include "usecase/profile.h"
#include "usecase/pts.h"
#include "usecase/pts_mpi.h"
#include "usecase/replay.h"
#include "usecase/run.h"
#include "usecase/sim_spread.h"
#include "usecase/test_util.h"
#include "usecase/trace_capture.h"
#include "usecase/trace_stats.h"
#include "usecase/twin_fit.h"

namespace ssdlab::usecase {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using UsecaseTest = TempDirTest;

TEST_F(UsecaseTest, RunPtsStoresTheBatteryAndSaysItsStart) {
  PtsRequest r = ShortIops("short");
  bool outputs_called = false;
  r.write_outputs = [&](PtsOutcome& o) {
    outputs_called = true;
    EXPECT_TRUE(o.doc.ok()) << o.doc.status().message();
    return Status::Ok();
  };
  auto out = RunPts(r);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->battery.ok()) << out->battery.message();
  EXPECT_TRUE(out->end.closed.ok());
  EXPECT_TRUE(outputs_called);
  EXPECT_EQ(out->run, "short");
  EXPECT_FALSE(out->resumed);
  ASSERT_TRUE(out->doc.ok());
  ASSERT_EQ((*out->doc)["tests"].size(), 1u);
  EXPECT_EQ((*out->doc)["tests"][0]["name"], "iops");
  EXPECT_NE(console_.notes.find("ssdlab pts: run 'short' on sim:tiny"), std::string::npos)
      << console_.notes;
  // The store holds the run, done, with the options as given and resolved.
  auto store = Store::Open(r.db, Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto run = (*store)->FindRun("short");
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->config["args"]["round"], "200ms");
  EXPECT_EQ(run->config["args"]["target"], "sim:tiny");
  EXPECT_EQ(run->config["options"]["tests"], json::array({"iops"}));
}

TEST_F(UsecaseTest, AFailedOutputIsInTheOutcome) {
  PtsRequest r = ShortIops("outputs");
  r.write_outputs = [](PtsOutcome&) { return Status::Io("--json x: disk full"); };
  auto out = RunPts(r);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->battery.ok());
  EXPECT_EQ(out->end.outputs.code(), Code::kIoError);
}

TEST_F(UsecaseTest, AnInterruptedRunIsStoredAndResumedToTheEnd) {
  std::atomic<bool> stop{true};  // stopped before its first round
  PtsRequest r = ShortIops("cut");
  r.stop = &stop;
  auto first = RunPts(r);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->battery.code(), Code::kInterrupted);
  {
    auto store = Store::Open(r.db, Store::Mode::kReadOnly);
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->FindRun("cut")->status, "interrupted");
  }
  PtsRequest again;
  again.db = r.db;
  again.given.resume = "cut";
  again.console = &console_;
  auto second = RunPts(again);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->resumed);
  EXPECT_EQ(second->target, "sim:tiny");  // the stored run's
  EXPECT_TRUE(second->battery.ok()) << second->battery.message();
  // Done now: a third resume is refused as bad input, naming the run.
  auto third = RunPts(again);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), Code::kInvalidArgument);
  EXPECT_NE(third.status().message().find("--resume cut: the run is already done"),
            std::string::npos)
      << third.status().message();
}

TEST_F(UsecaseTest, AResumeThatWouldChangeTheOptionsIsRefused) {
  std::atomic<bool> stop{true};
  PtsRequest r = ShortIops("opts");
  r.stop = &stop;
  ASSERT_TRUE(RunPts(r).ok());
  PtsRequest again;
  again.db = r.db;
  again.given.resume = "opts";
  again.given.flags = {"--round"};
  again.given.options = {{"--round", "1s"}};
  again.console = &console_;
  auto refused = RunPts(again);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("--round 1s conflicts with the stored run's --round "
                                            "200ms"),
            std::string::npos)
      << refused.status().message();
  // The same value spelled otherwise changes nothing: the run continues.
  again.given.options = {{"--round", "0.2s"}};
  auto same = RunPts(again);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_TRUE(same->battery.ok());
}

// An MSR Cambridge trace of `n` 4 KiB requests 50 us apart, two reads to a write, inside the
// first 400 MiB.
std::string MsrTrace(int n) {
  std::string csv;
  uint64_t ts = 128166372003061629ULL;
  for (int i = 0; i < n; ++i) {
    ts += 500;
    csv += std::to_string(ts) + ",hm,0," + (i % 3 ? "Read" : "Write") + "," +
           std::to_string(static_cast<uint64_t>(i) * 7919 % 100000 * 4096) + ",4096," +
           std::to_string(1000 + i % 50) + "\n";
  }
  return csv;
}

TEST_F(UsecaseTest, ReplayOfATraceOnTheSimulatorIsStoredAndDocumented) {
  const std::string trace = (dir_ / "msr.csv").string();
  std::ofstream(trace) << MsrTrace(300);
  ReplayRequest q;
  q.trace = trace;
  q.target = "sim:tiny";
  q.db = (dir_ / "r.db").string();
  q.run = "rp";
  q.console = &console_;
  bool outputs_called = false;
  q.write_outputs = [&](ReplayOutcome& o) {
    outputs_called = true;
    EXPECT_TRUE(o.end.stored.ok()) << o.end.stored.message();  // stored before the outputs
    return Status::Ok();
  };
  auto out = Replay(q);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(outputs_called);
  EXPECT_TRUE(out->end.closed.ok());
  EXPECT_EQ(out->result.Total().ios, 300u);
  EXPECT_EQ(out->counts.records, 300u);
  EXPECT_EQ(out->format, "msr");
  EXPECT_EQ(out->recorded.count(), 300u);  // the trace's own response times
  EXPECT_EQ(out->doc.replay.trace.records, 300u);
  ASSERT_TRUE(out->doc.replay.latency_compare.has_value());
  EXPECT_EQ(out->doc.replay.latency_compare->at("total").recorded.ios, 300u);
  EXPECT_EQ(out->doc.phase.results.total.ios, 300u);
  EXPECT_EQ(out->doc.context.engine, "sim");
  // The document reads back as it was written (results/run_document.h's one table).
  nlohmann::json written = results::ToJson(out->doc);
  auto read = results::ReplayDocumentFromJson(written, "replay");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(results::ToJson(read.value()), written);
  auto store = Store::Open(q.db, Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok());
  auto run = (*store)->FindRun("rp");
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->kind, "replay");
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->config["format"], "msr");
}

TEST_F(UsecaseTest, AReplayBeyondTheTargetFailsAndItsRunIsMarkedFailed) {
  const std::string trace = (dir_ / "far.csv").string();
  std::ofstream(trace) << "128166372003061629,hm,0,Write,1099511627776,4096,1000\n";
  ReplayRequest q;
  q.trace = trace;
  q.target = "sim:tiny";
  q.db = (dir_ / "far.db").string();
  q.console = &console_;
  auto out = Replay(q);
  // A simulated drive has no first pass without --remap scale: the record is refused when the
  // source meets it, and the run is marked failed.
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("lies beyond the target's range"), std::string::npos)
      << out.status().message();
  auto store = Store::Open(q.db, Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok());
  const std::vector<RunRecord> runs = (*store)->ListRuns();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "failed");
}

TEST_F(UsecaseTest, RunOfAWorkloadOnTheSimulatorDocumentsItsPhase) {
  RunRequest q;
  q.target = "sim:tiny";
  q.workload.rw = "randwrite";
  q.workload.io_size = "4MiB";
  q.console = &console_;
  bool outputs_called = false;
  q.write_outputs = [&](RunOutcome&) {
    outputs_called = true;
    return Status::Ok();
  };
  auto out = usecase::Run(q);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(outputs_called);
  EXPECT_TRUE(out->reports);
  EXPECT_EQ(out->result.Total().bytes, 4u << 20);
  EXPECT_EQ(out->doc.phase.results.total.ios, 1024u);
  EXPECT_EQ(out->doc.context.engine.name, "sim");
  EXPECT_EQ(out->doc.context.phase.target.kind, "sim");
  nlohmann::json written = results::ToJson(out->doc);
  EXPECT_EQ(written["results"]["total"]["ios"], 1024);
  auto read = results::RunDocumentFromJson(written, "run");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(results::ToJson(read.value()), written);
  EXPECT_EQ(out->health["source"], "simulated");
}

TEST_F(UsecaseTest, RunRefusesTheRealEngineFlagsOnTheSimulator) {
  RunRequest q;
  q.target = "sim:tiny";
  q.engine_flags_given = true;
  q.console = &console_;
  auto out = usecase::Run(q);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("not a simulated drive"), std::string::npos);
}

// Each default that --help shows is the request's own: given back as the flag's text, it sets
// the same value (the getter and the setter agree), for run and replay.
template <class O>
void ExpectShownDefaultsReadBack(const std::vector<OptionDef<O>>& defs) {
  size_t shown = 0;
  for (const OptionDef<O>& d : defs) {
    const std::string text = DefaultText(d);
    if (text.empty()) continue;
    ++shown;
    O o;
    ASSERT_TRUE(d.set(d.flag, text, o).ok()) << d.flag << " " << text;
    EXPECT_EQ(d.shown(o), text) << d.flag;
  }
  EXPECT_GE(shown, 8u);
}

TEST(OptionDefs, RunAndReplayShowTheirRealDefaults) {
  ExpectShownDefaultsReadBack(RunOptionDefs());
  ExpectShownDefaultsReadBack(ReplayOptionDefs());
  EXPECT_EQ(DefaultText(*FindOptionDef(RunOptionDefs(), "--qd")), "1");
  EXPECT_EQ(DefaultText(*FindOptionDef(RunOptionDefs(), "--rwmix-read")), "50");
  EXPECT_EQ(DefaultText(*FindOptionDef(ReplayOptionDefs(), "--max-bs")), "1MiB");
  EXPECT_EQ(DefaultText(*FindOptionDef(ReplayOptionDefs(), "--lag-limit")), "1ms");
  EXPECT_EQ(DurationText(90'000'000'000), "90s");
  EXPECT_EQ(DurationText(120'000'000'000), "2m");
}

// An engine flag marks the request's engine flags as given (the simulator refuses them); the
// workload's flags do not.
TEST(OptionDefs, EngineFlagsAreMarkedGiven) {
  RunRequest q;
  ASSERT_TRUE(ApplyOptionDefs(RunOptionDefs(), {{"--qd", "4"}, {"--rw", "randwrite"}}, q).ok());
  EXPECT_FALSE(q.engine_flags_given);
  EXPECT_EQ(q.workload.qd, 4u);
  ASSERT_TRUE(ApplyOptionDefs(RunOptionDefs(), {{"--no-ring-fd", "true"}}, q).ok());
  EXPECT_TRUE(q.engine_flags_given);
  EXPECT_FALSE(q.engine_options.register_ring_fd);
  Status bad = ApplyOptionDefs(RunOptionDefs(), {{"--sqpoll-cpu", "1,2"}}, q);
  EXPECT_NE(bad.message().find("--sqpoll-cpu"), std::string::npos) << bad.message();
}

TEST(CheckResumeIdentity, AnotherDriveIsRefused) {
  RunRecord run;
  run.name = "r1";
  run.context = {{"target", {{"size_bytes", 1024 * 1024}, {"details", {{"preset", "tiny"}}}}}};
  TargetInfo now;
  now.kind = "file";
  now.size_bytes = 1024 * 1024;
  EXPECT_TRUE(CheckResumeIdentity(run, now, std::nullopt).ok());
  now.size_bytes = 2 * 1024 * 1024;
  Status s = CheckResumeIdentity(run, now, std::nullopt);
  EXPECT_EQ(s.code(), Code::kPermission) << s.message();
  EXPECT_NE(s.message().find("--resume r1: the target's size was 1048576 bytes and is now "
                             "2097152 bytes"),
            std::string::npos)
      << s.message();
}

TEST(CheckResumeIdentity, ASimulatedDriveWithOtherParametersIsRefused) {
  RunRecord run;
  run.name = "r2";
  run.context = {{"target", {{"size_bytes", 4096}, {"details", {{"preset", "tiny"}}}}}};
  TargetInfo now;
  now.kind = "sim";
  now.size_bytes = 4096;
  now.details = {{"preset", "tiny"}};
  EXPECT_TRUE(CheckResumeIdentity(run, now, std::nullopt).ok());
  now.details = {{"preset", "dc-sata-read-intensive"}};
  Status s = CheckResumeIdentity(run, now, std::nullopt);
  EXPECT_EQ(s.code(), Code::kPermission) << s.message();
  EXPECT_NE(s.message().find("parameter preset was tiny"), std::string::npos) << s.message();
}

TEST_F(UsecaseTest, RunProfileStoresAProfileRunAndSaysItsStart) {
  ProfileRequest r;
  r.name = "cdm";
  r.targets = {"sim:tiny"};
  r.db = (dir_ / "p.db").string();
  r.run = "cdm1";
  r.options = {{"--purge", "auto"},
               {"--size", "32MiB"},
               {"--passes", "1"},
               {"--time", "200ms"},
               {"--pause", "0"}};
  r.console = &console_;
  bool ended = false, outputs_called = false;
  r.ended = [&] { ended = true; };
  r.write_outputs = [&](ProfileOutcome& o) {
    outputs_called = true;
    EXPECT_TRUE(ended);
    EXPECT_TRUE(o.doc.ok()) << o.doc.status().message();
    return Status::Ok();
  };
  auto out = RunProfile(std::move(r));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->measured.ok()) << out->measured.message();
  EXPECT_TRUE(out->end.closed.ok());
  EXPECT_TRUE(outputs_called);
  EXPECT_EQ(out->run, "cdm1");
  EXPECT_EQ(out->target, "sim:tiny");
  EXPECT_NE(console_.notes.find("ssdlab profile: run 'cdm1', cdm on sim:tiny"), std::string::npos)
      << console_.notes;
  auto store = Store::Open((dir_ / "p.db").string(), Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto run = (*store)->FindRun("cdm1");
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->kind, "profile");
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->config["profile"], "cdm");
  EXPECT_EQ(run->config["args"]["target"], "sim:tiny");
}

TEST_F(UsecaseTest, RunProfileRefusesAPrefillAFillWouldErase) {
  ProfileRequest r;
  r.name = "cdm";
  r.targets = {"sim:tiny"};
  r.db = (dir_ / "p.db").string();
  r.options = {{"--fill", "0,90"}};
  r.prefill = true;
  r.console = &console_;
  auto out = RunProfile(std::move(r));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status().message();
  EXPECT_NE(out.status().message().find("--prefill: --fill purges"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "p.db"));  // refused before the database was created
}

TEST_F(UsecaseTest, TraceStatsReadsTheTraceAndStoresItsDocument) {
  std::ofstream((dir_ / "t.csv").string()) << "0,8,8,1,0\n1,16,8,1,0\n2,24,8,0,0\n";
  TraceStatsRequest r;
  r.trace = (dir_ / "t.csv").string();
  r.run = "ts";
  EXPECT_EQ(TraceStats(r).status().message(), "--run needs --db");  // and nothing was read
  r.db = (dir_ / "t.db").string();
  auto out = TraceStats(r);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->stored.ok()) << out->stored.message();
  EXPECT_EQ(out->stats.records, 3u);
  EXPECT_EQ(out->doc["trace"]["records"], 3);
  EXPECT_EQ(out->doc["suggested_run_flags"], out->suggested_flags);
  EXPECT_EQ(out->run, "ts");
  auto store = Store::Open(r.db, Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto run = (*store)->FindRun("ts");
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->kind, "trace-stats");
  EXPECT_EQ(run->status, "done");
}

TEST_F(UsecaseTest, SimFitNamesABadFlagAfterReadingTheRunsAndWritesNothing) {
  PtsRequest p = ShortIops("short");
  ASSERT_TRUE(RunPts(p).ok());
  FitRequest r;
  r.runs = {"short"};
  r.db = p.db;
  r.out = (dir_ / "twin.toml").string();
  r.holdout = "2";
  r.console = &console_;
  auto out = SimFit(r);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("--holdout '2'"), std::string::npos)
      << out.status().message();
  r.holdout = "";
  r.runs = {"missing"};
  EXPECT_FALSE(SimFit(r).ok());
  EXPECT_FALSE(fs::exists(r.out));
}

TEST(ExitStatusFor, MapsAsTheCliSays) {
  EXPECT_EQ(ExitStatusFor(Status::Invalid("x")), kExitUsage);
  EXPECT_EQ(ExitStatusFor(Status::Refused("x")), kExitUsage);
  EXPECT_EQ(ExitStatusFor(Status::Io("x")), kExitFailed);
  EXPECT_EQ(ExitStatusFor(Status::Error(Code::kInterrupted, "x")), kExitInterrupted);
  RecordingConsole c;
  EXPECT_EQ(c.Fail(Status::NotFound("gone")), kExitUsage);
  EXPECT_EQ(c.LastError(), "gone");
}

TEST(SpreadOwners, TheReviewBatteryIsSharedSoTheWorkersEndTogether) {
  const std::vector<std::string> tests = {"iops", "tp",  "lat",   "lvi", "wsat",
                                          "hir",  "xsr", "dirth", "ecw", "op"};
  // The shares SpreadOwners weighs the tests by (per mille of the battery's time).
  const std::map<std::string, int> share = {
      {"op", 267},   {"hir", 182}, {"wsat", 159}, {"lvi", 135}, {"xsr", 102},
      {"dirth", 65}, {"ecw", 48},  {"iops", 29},  {"tp", 10},   {"lat", 5}};
  const std::vector<int> owners = SpreadOwners(tests, 2);
  ASSERT_EQ(owners.size(), tests.size());
  int load[2] = {0, 0};
  for (size_t i = 0; i < tests.size(); ++i) {
    ASSERT_TRUE(owners[i] == 0 || owners[i] == 1) << tests[i];
    load[owners[i]] += share.at(tests[i]);
  }
  // Test i on rank i mod 2 gives 343 against 659; longest first, 501 and 501.
  EXPECT_LE(std::max(load[0], load[1]), 510) << load[0] << " " << load[1];
  EXPECT_EQ(SpreadOwners({"iops"}, 4), std::vector<int>{0});
  EXPECT_EQ(SpreadOwners({"new1", "new2"}, 2), (std::vector<int>{0, 1}));
}

// `pts` on one simulated drive under mpirun (usecase/pts_mpi.h): the plan RunSpread follows.
PtsRanksRequest SpreadRequest(const PtsRequest& battery, std::vector<std::string>* ran) {
  PtsRanksRequest q;
  q.battery = battery;
  q.battery.given.options["--purge"] = "auto";
  q.targets = {"sim:tiny"};
  q.run = [ran](const std::vector<std::string>& targets, PtsLaunch* launch) {
    EXPECT_NE(launch, nullptr);
    EXPECT_NE(launch->opened, nullptr);  // pass 2's backend
    *ran = targets;
    return kExitOk;
  };
  return q;
}

TEST_F(UsecaseTest, PtsSpreadCommandSpreadsANewBatteryOverTheRanks) {
  std::vector<std::string> ran;
  SpreadCommand c = PtsSpreadCommand(SpreadRequest(ShortIops("spread"), &ran), 4);
  EXPECT_EQ(c.why_not, "");
  EXPECT_EQ(c.note, "ssdlab pts: 1 tests spread over 4 ranks (4 simulated drives)");
  EXPECT_EQ(c.unit, SpreadUnit::kTests);
  EXPECT_EQ(c.tests, std::vector<std::string>{"iops"});
  auto opened = c.open();
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ(c.run(std::move(opened.value())), kExitOk);
  EXPECT_EQ(ran, std::vector<std::string>{"sim:tiny"});
  EXPECT_EQ(console_.notes, "");  // the plan says nothing itself: RunSpread says its note
}

TEST_F(UsecaseTest, PtsSpreadCommandSaysWhyNotOrLeavesBadOptionsToTheBattery) {
  std::vector<std::string> ran;
  PtsRequest resumed = ShortIops("");
  resumed.given.resume = "earlier";
  SpreadCommand c = PtsSpreadCommand(SpreadRequest(resumed, &ran), 3);
  EXPECT_EQ(c.why_not, "--resume continues one run in order");
  EXPECT_EQ(c.note,
            "ssdlab pts: not spread over 3 ranks (--resume continues one run in order); rank 0 "
            "runs it");
  PtsRequest bad = ShortIops("bad");
  bad.given.options["--max-rounds"] = "many";
  c = PtsSpreadCommand(SpreadRequest(bad, &ran), 3);
  EXPECT_EQ(c.why_not, "bad options");
  EXPECT_EQ(c.note, "");  // rank 0's battery says what is wrong, as one process would
  EXPECT_TRUE(c.tests.empty());
}

TEST(OpenFollowerPtsTarget, ATargetSmallerThanRank0sIsRefused) {
  auto ok = OpenFollowerPtsTarget("sim:tiny", 1, "host", 0, false, "");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  const uint64_t size = (*ok)->info().size_bytes;
  EXPECT_TRUE((*ok)->Close().ok());
  auto small = OpenFollowerPtsTarget("sim:tiny", 1, "host", size + 1, false, "");
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().code(), Code::kInvalidArgument);
  EXPECT_NE(small.status().message().find("sim:tiny ("), std::string::npos);
  EXPECT_NE(small.status().message().find("is smaller than rank 0's target"), std::string::npos)
      << small.status().message();
}

TEST(ProfileSpreadCommand, OnlyTheOpAdvisorsPointsAreSpread) {
  ProfileRequest r;
  r.name = "op-advisor";
  r.targets = {"sim:tiny"};
  r.options = {{"--purge", "auto"}};
  bool ran = false;
  auto run = [&ran](std::unique_ptr<Backend> opened) {
    ran = opened != nullptr;
    return kExitOk;
  };
  SpreadCommand c = ProfileSpreadCommand(r, 2, run);
  EXPECT_EQ(c.why_not, "");
  EXPECT_EQ(c.note, "ssdlab profile: op-advisor points spread over 2 ranks");
  EXPECT_EQ(c.unit, SpreadUnit::kPurges);
  auto opened = c.open();
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ(c.run(std::move(opened.value())), kExitOk);
  EXPECT_TRUE(ran);
  r.prefill = true;  // the drive is purged before each point: a prefill would be lost
  c = ProfileSpreadCommand(r, 2, run);
  EXPECT_FALSE(c.open().ok());
  r.name = "cdm";
  c = ProfileSpreadCommand(r, 2, run);
  EXPECT_EQ(c.why_not, "only the op-advisor's points are spread");
  EXPECT_EQ(c.note,
            "ssdlab profile: not spread over 2 ranks (only the op-advisor's points are spread); "
            "rank 0 runs it");
  r.name = "no-such-profile";
  c = ProfileSpreadCommand(r, 2, run);
  EXPECT_EQ(c.why_not, "bad options");
  EXPECT_EQ(c.note, "");
}

TEST_F(UsecaseTest, SimCompareSetsTheRunsFiguresAgainstTheTwins) {
  PtsRequest r = ShortIops("short");
  auto out = RunPts(r);
  ASSERT_TRUE(out.ok() && out->battery.ok()) << out.status().message();
  CompareRequest q{.run = "short", .db = r.db, .target = "sim:tiny"};
  auto fits = SimCompare(q);
  ASSERT_TRUE(fits.ok()) << fits.status().message();
  ASSERT_FALSE(fits->empty());
  for (const twin::FigureFit& f : *fits) EXPECT_GT(f.figure.value, 0) << f.figure.Name();
  q.run = "missing";
  EXPECT_EQ(SimCompare(q).status().code(), Code::kNotFound);
  q.run = "short";
  q.target = "sim:no-such-preset";
  EXPECT_FALSE(SimCompare(q).ok());
}

TEST(CaptureTrace, RefusesABadTimeOrATargetThatIsNoBlockDevice) {
  CaptureRequest r{.device = "/dev/null", .time = "0.5s", .out = "t"};
  auto o = CaptureTrace(r);
  EXPECT_EQ(o.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(o.status().message(), "--time: at least 1s");
  r.time = "2s";
  o = CaptureTrace(r);
  EXPECT_EQ(o.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(o.status().message(), "--device /dev/null is not a block device");
}

TEST(PtsOverRanks, OutsideMpirunBothPathsFailBeforeTheBattery) {
  if (StartedByMpirun()) GTEST_SKIP() << "run under mpirun";
  RecordingConsole console;
  bool ran = false;
  MultiClientPtsRequest q;
  q.battery.console = &console;
  q.targets = {"sim:tiny"};
  q.run = [&ran](const std::vector<std::string>&, PtsLaunch*) {
    ran = true;
    return kExitOk;
  };
  EXPECT_EQ(RunMultiClientPts(q), kExitUsage);
  EXPECT_EQ(RunSpreadPts(q), kExitUsage);
  EXPECT_FALSE(ran);
  EXPECT_EQ(console.errors.size(), 2u);
}

}  // namespace
}  // namespace ssdlab::usecase
