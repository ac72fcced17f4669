#include "usecase/sim_spread.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <thread>

#include "lab/merge.h"
#include "usecase/mpi_clients.h"
#include "usecase/targets.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

// A run's tests, rounds and phases in memory (pass 1 stores nothing).
class MemJournal : public RunJournal {
 public:
  // A test the rank does not run: "done" already, so the battery skips it.
  void AddDone(int seq, const std::string& name) {
    TestRecord t;
    t.id = static_cast<int64_t>(tests_.size()) + 1;
    t.seq = seq;
    t.name = name;
    t.status = "done";
    tests_.push_back(t);
  }
  Result<int64_t> BeginTest(int64_t, int seq, const std::string& name, const json& p) override {
    for (const TestRecord& t : tests_)
      if (t.name == name) return t.id;
    TestRecord t;
    t.id = static_cast<int64_t>(tests_.size()) + 1;
    t.seq = seq;
    t.name = name;
    t.status = "running";
    t.params = p;
    tests_.push_back(t);
    return t.id;
  }
  Result<std::vector<TestRecord>> ListTests(int64_t) override { return tests_; }
  Status CommitRound(int64_t test, int round, const std::vector<StoredPhase>& phases,
                     const json& tracking) override {
    rounds_[test].push_back({round, tracking});
    for (const StoredPhase& p : phases) phases_[test].push_back(p);
    return Status::Ok();
  }
  Status FinishTest(int64_t test, const json& ss, const json& results) override {
    TestRecord& t = tests_.at(static_cast<size_t>(test - 1));
    t.status = "done";
    t.steady_state = ss;
    t.results = results;
    phases_.erase(test);  // a test reads back only its own phases, before it is done
    return Status::Ok();
  }
  Result<std::vector<StoredRound>> LoadRounds(int64_t test) override { return rounds_[test]; }
  Result<std::vector<StoredPhase>> LoadPhases(int64_t test, int round) override {
    std::vector<StoredPhase> out;
    for (const StoredPhase& p : phases_[test])
      if (round < 0 || p.round == round) out.push_back(p);
    return out;
  }

 private:
  std::vector<TestRecord> tests_;
  std::map<int64_t, std::vector<StoredRound>> rounds_;
  std::map<int64_t, std::vector<StoredPhase>> phases_;
};

json StatusWire(const Status& s) {
  return {{"ok", s.ok()}, {"code", static_cast<int>(s.code())}, {"message", s.message()}};
}
Status StatusFromWire(const json& j) {
  if (j.value("ok", false)) return Status::Ok();
  return Status::Error(static_cast<Code>(j.value("code", static_cast<int>(Code::kInternal))),
                       j.value("message", std::string("(no message)")));
}

// Pass 1's backend: runs the owned segments' calls on the rank's simulator and records them.
class Recorder : public Backend {
 public:
  // owners: kTests, each test's worker (SpreadOwners); kPurges: segment k is rank k mod size.
  Recorder(Backend& local, SpreadUnit unit, int rank, int size, std::vector<int> owners)
      : local_(local), unit_(unit), rank_(rank), size_(size), owners_(std::move(owners)) {}
  // kTests: test `index` of the battery starts.
  void StartSegment(int index) { segment_ = index; }
  int segments() const { return segment_ + 1; }
  json records() const { return records_; }

  const TargetInfo& info() const override { return local_.info(); }
  bool persistent_state() const override { return false; }
  Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl& control) override {
    json rec = {{"op", "phase"}, {"spec", SpecWire(spec)}};
    if (!Owned()) {
      // A point of another rank's: its figures are never used or stored here (rank 0 stores the
      // owner's, replayed), so the stand-in only has to pass the suite's checks, the rule that a
      // phase completed at least one I/O among them.
      PhaseResult stand_in;
      stand_in.measured_ns = std::max<uint64_t>(spec.runtime_ns, 1);
      stand_in.dirs[0].ios = 1;
      return stand_in;
    }
    auto r = local_.RunPhase(spec, control);
    rec["status"] = StatusWire(r.status());
    if (r.ok()) rec["result"] = PhaseWire(r.value());
    Keep(std::move(rec));
    return r;
  }
  Status Idle(uint64_t ns, const RunControl& control) override {
    if (!Owned()) return Status::Ok();
    Status s = local_.Idle(ns, control);
    Keep({{"op", "idle"}, {"ns", ns}, {"status", StatusWire(s)}});
    return s;
  }
  Result<std::string> Purge(const std::string& method, const RunControl& control) override {
    if (unit_ == SpreadUnit::kPurges) ++segment_;
    if (!Owned()) return method;
    auto m = local_.Purge(method, control);
    json rec = {{"op", "purge"}, {"method", method}, {"status", StatusWire(m.status())}};
    if (m.ok()) rec["done"] = m.value();
    Keep(std::move(rec));
    return m;
  }

 private:
  // Calls before the first segment (none in the suites spread today) are every rank's.
  bool Owned() const {
    if (segment_ < 0) return true;
    const size_t k = static_cast<size_t>(segment_);
    return (k < owners_.size() ? owners_[k] : segment_ % size_) == rank_;
  }
  void Keep(json rec) { records_[std::to_string(segment_)].push_back(std::move(rec)); }
  Backend& local_;
  SpreadUnit unit_;
  int rank_, size_;
  std::vector<int> owners_;
  int segment_ = -1;
  json records_ = json::object();  // segment -> its calls, in order
};

// Pass 1's hooks (kTests): tell the recorder which test starts.
class SegmentHooks : public TestHooks {
 public:
  SegmentHooks(Recorder& r, const std::vector<std::string>& tests) : r_(r), tests_(tests) {}
  void OnTestStart(const std::string& test) override {
    for (size_t i = 0; i < tests_.size(); ++i)
      if (tests_[i] == test) r_.StartSegment(static_cast<int>(i));
  }
  json OnTestEnd(const std::string&) override { return nullptr; }

 private:
  Recorder& r_;
  const std::vector<std::string>& tests_;
};

// Pass 2's backend: the recorded calls of every segment, from their owners, in order.
class Replayer : public Backend {
 public:
  struct Call {
    int rank;
    json rec;
  };
  // interrupted: pass 1 was stopped (Ctrl-C), so its records end early: the first call past
  // them ends pass 2 as interrupted, with what was measured.
  Replayer(std::unique_ptr<Backend> local, std::vector<Call> calls,
           std::vector<std::string> rank_status, bool interrupted)
      : local_(std::move(local)),
        calls_(std::move(calls)),
        rank_status_(std::move(rank_status)),
        interrupted_(interrupted) {}

  const TargetInfo& info() const override { return local_->info(); }
  bool persistent_state() const override { return false; }
  Status Close() override { return local_->Close(); }
  Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl&) override {
    SSDLAB_ASSIGN_OR_RETURN(const json* rec, Next("phase", SpecWire(spec)));
    SSDLAB_RETURN_IF_ERROR(StatusFromWire(rec->at("status")));
    return PhaseFromWire(rec->at("result"));
  }
  Status Idle(uint64_t ns, const RunControl&) override {
    SSDLAB_ASSIGN_OR_RETURN(const json* rec, Next("idle", ns));
    return StatusFromWire(rec->at("status"));
  }
  Result<std::string> Purge(const std::string& method, const RunControl&) override {
    SSDLAB_ASSIGN_OR_RETURN(const json* rec, Next("purge", method));
    SSDLAB_RETURN_IF_ERROR(StatusFromWire(rec->at("status")));
    return rec->at("done").get<std::string>();
  }

 private:
  // The next recorded call, which must be this one (`what`: its workload, time or method).
  Result<const json*> Next(const std::string& op, const json& what) {
    const size_t n = next_++;
    if (interrupted_ && (n >= calls_.size() || !IsCall(calls_[n], op, what)))
      return Status::Error(Code::kInterrupted, "interrupted");
    if (n >= calls_.size()) {
      std::string why;
      for (size_t r = 0; r < rank_status_.size(); ++r)
        if (!rank_status_[r].empty()) why += fmt::format("; rank {}: {}", r, rank_status_[r]);
      return Status::Error(
          Code::kInternal,
          fmt::format("spreading over ranks: no recorded result for call {} ({}){}", n + 1, op,
                      why));
    }
    const Call& c = calls_[n];
    if (!IsCall(c, op, what))
      return Status::Error(
          Code::kInternal,
          fmt::format("spreading over ranks: call {} ({}) is not the one rank {} recorded ({}); "
                      "the work was not independent, run it without mpirun",
                      n + 1, op, c.rank, c.rec.value("op", "")));
    return &c.rec;
  }
  static bool IsCall(const Call& c, const std::string& op, const json& what) {
    const char* key = op == "phase" ? "spec" : op == "idle" ? "ns" : "method";
    return c.rec.value("op", "") == op && c.rec.contains(key) && c.rec[key] == what;
  }
  std::unique_ptr<Backend> local_;
  std::vector<Call> calls_;
  std::vector<std::string> rank_status_;
  bool interrupted_;
  size_t next_ = 0;
};

}  // namespace

std::string WhyNotSpread(const std::string& target, const std::string& purge, bool resume) {
  if (!IsSimTarget(target)) return "the target is not a simulated drive";
  if (purge == "none") return "--purge none: the tests do not start from a fresh drive";
  if (target.find("state=") != std::string::npos)
    return "state=: the drive's state carries from one test to the next";
  if (resume) return "--resume continues one run in order";
  return "";
}

std::vector<int> SpreadOwners(const std::vector<std::string>& tests, int workers) {
  // Shares of the review battery's time on sim:dc-sata-read-intensive at --time-scale 32
  // (per mille, measured); tests not listed weigh as the median.
  static const std::map<std::string, int> kWeight = {
      {"op", 267},   {"hir", 182}, {"wsat", 159}, {"lvi", 135}, {"xsr", 102},
      {"dirth", 65}, {"ecw", 48},  {"iops", 29},  {"tp", 10},   {"lat", 5}};
  auto weight = [](const std::string& t) {
    auto it = kWeight.find(t);
    return it == kWeight.end() ? 65 : it->second;
  };
  std::vector<size_t> order(tests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return weight(tests[a]) > weight(tests[b]); });
  std::vector<int> owners(tests.size(), 0);
  std::vector<int64_t> load(static_cast<size_t>(std::max(workers, 1)), 0);
  for (size_t i : order) {
    const auto least = std::min_element(load.begin(), load.end());
    owners[i] = static_cast<int>(least - load.begin());
    *least += weight(tests[i]);
  }
  return owners;
}

namespace {

// Pass 1 on worker `rank` of `size`: what it recorded, as SpreadOverRanks gathers it.
json RecordSegments(Backend& local, SpreadUnit unit, const std::vector<std::string>& tests,
                    int rank, int size, const SpreadPass& pass) {
  MemJournal journal;
  std::vector<int> owners;
  if (unit == SpreadUnit::kTests) {
    owners = SpreadOwners(tests, size);
    for (size_t i = 0; i < tests.size(); ++i)
      if (owners[i] != rank) journal.AddDone(static_cast<int>(i), tests[i]);
  }
  Recorder rec(local, unit, rank, size, owners);
  SegmentHooks hooks(rec, tests);
  Status st = pass(rec, journal, unit == SpreadUnit::kTests ? &hooks : nullptr);
  return {
      {"status", st.ok() ? "" : st.message()},
      {"segments", unit == SpreadUnit::kTests ? static_cast<int>(tests.size()) : rec.segments()},
      {"records", rec.records()}};
}

// Pass 2's backend over `local` from every worker's record, in worker order.
std::unique_ptr<Backend> ReplayerOf(std::unique_ptr<Backend> local, const std::vector<json>& ranks,
                                    bool interrupted) {
  const int size = static_cast<int>(ranks.size());
  std::vector<std::string> rank_status;
  int segments = 0;
  for (const json& r : ranks) {
    rank_status.push_back(r["status"].get<std::string>());
    segments = std::max(segments, r["segments"].get<int>());
  }
  std::vector<Replayer::Call> calls;
  // A segment's calls are in its owner's records alone (segment -1, before the first, in every
  // rank's: rank 0's are taken).
  auto add = [&](int seg) {
    for (int owner = 0; owner < size; ++owner) {
      const json& recs = ranks[static_cast<size_t>(owner)]["records"];
      auto it = recs.find(std::to_string(seg));
      if (it == recs.end()) continue;
      for (const json& r : *it) calls.push_back({owner, r});
      return;
    }
  };
  for (int k = -1; k < segments; ++k) add(k);
  return std::make_unique<Replayer>(std::move(local), std::move(calls), std::move(rank_status),
                                    interrupted);
}

}  // namespace

Result<std::unique_ptr<Backend>> SpreadOverRanks(MpiWorld& w, std::unique_ptr<Backend> local,
                                                 SpreadUnit unit,
                                                 const std::vector<std::string>& tests,
                                                 const SpreadPass& pass) {
  json mine = RecordSegments(*local, unit, tests, w.rank(), w.size(), pass);
  std::vector<std::string> all = w.Gather(mine.dump());
  if (w.rank() != 0) return std::unique_ptr<Backend>();
  std::vector<json> ranks;
  ranks.reserve(all.size());
  for (const std::string& s : all) ranks.push_back(json::parse(s));
  return ReplayerOf(std::move(local), ranks, false);
}

std::unique_ptr<Backend> SpreadOverThreads(std::unique_ptr<Backend> local,
                                           std::vector<std::unique_ptr<Backend>> others,
                                           SpreadUnit unit, const std::vector<std::string>& tests,
                                           const SpreadPass& pass, const std::atomic<bool>* stop) {
  const int size = static_cast<int>(others.size()) + 1;
  std::vector<json> ranks(static_cast<size_t>(size));
  std::vector<std::thread> workers;
  for (int k = 1; k < size; ++k)
    workers.emplace_back([&, k] {
      ranks[static_cast<size_t>(k)] =
          RecordSegments(*others[static_cast<size_t>(k - 1)], unit, tests, k, size, pass);
    });
  ranks[0] = RecordSegments(*local, unit, tests, 0, size, pass);
  for (std::thread& t : workers) t.join();
  return ReplayerOf(std::move(local), ranks, stop && stop->load());
}

int SpreadThreadsFor(uint64_t drive_bytes, size_t segments) {
  // The simulator keeps about 11 bytes per 4 KiB of the (scaled) drive (mapping, reverse
  // mapping, validity, per-block records); 12 leaves room for the rest.
  const uint64_t per_copy = drive_bytes / 4096 * 12 + (64ull << 20);
  const uint64_t avail = static_cast<uint64_t>(sysconf(_SC_AVPHYS_PAGES)) *
                         static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t by_memory = std::max<uint64_t>(1, avail / 2 / per_copy);
  const uint64_t cpus = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(
      std::max<uint64_t>(1, std::min({cpus, static_cast<uint64_t>(segments), by_memory})));
}

int RunSpread(MpiWorld& w, const SpreadCommand& c, Console& console) {
  int code = kExitOk;
  auto result = [&] { return std::stoi(w.Broadcast(std::to_string(code))); };
  if (!c.why_not.empty()) {
    if (w.rank() == 0) {
      if (!c.note.empty()) console.Note(c.note);
      code = c.run(nullptr);
    }
    return result();
  }
  auto local = c.open();
  if (Status all = w.Agree(local.status()); !all.ok()) {
    if (w.rank() == 0) code = c.run(nullptr);
    return result();
  }
  if (w.rank() == 0) console.Note(c.note);
  auto replay = SpreadOverRanks(w, std::move(local.value()), c.unit, c.tests, c.pass);
  if (w.rank() == 0)
    code = replay.ok() ? c.run(std::move(replay.value())) : console.Fail(replay.status());
  return result();
}

}  // namespace ssdlab::usecase
