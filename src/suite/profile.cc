#include "suite/profile.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/rng.h"
#include "base/units.h"
#include "suite/runner.h"

namespace ssdlab {
namespace {

using nlohmann::json;
using pts::Runner;
using Summary = std::vector<std::pair<std::string, double>>;

constexpr uint64_t kAlign = kMiB;

uint64_t AlignDown(uint64_t v, uint64_t a) { return v / a * a; }
uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Decimal MB/s, as CrystalDiskMark, ATTO and AS SSD print by default.
double MBps(const PhaseResult& r, const DirectionStats& d) { return r.BytesPerS(d) / 1e6; }

struct PhaseItem {
  std::string cell;
  WorkloadSpec spec;
  uint64_t idle_before_ns = 0;
};

// Everything a profile body needs.
struct Ctx {
  Runner& r;
  const ProfileDef& def;
  const ProfileOptions& o;
  int step = 0;
  uint64_t salt = 0;
  std::vector<std::string> notes;

  uint64_t capacity() const { return r.capacity(); }
  uint32_t lbs() const { return std::max<uint32_t>(1, r.env().backend.info().logical_block_bytes); }

  WorkloadSpec Spec(bool seq, double read_pct, std::vector<BlockShare> bs, uint32_t jobs,
                    uint32_t qd, uint64_t begin, uint64_t end, uint64_t runtime_ns,
                    uint64_t io_bytes) {
    WorkloadSpec s = r.Spec(seq, read_pct, bs.front().bytes, jobs, qd, runtime_ns, end, ++salt);
    s.block_sizes = std::move(bs);
    s.range_begin_bytes = begin;
    s.io_bytes = io_bytes;
    return s;
  }

  // One stored step: optionally a purge, then the phases in order (idling before each as
  // asked). Returns the phases (stored ones when resumed on a persistent target).
  Result<std::vector<StoredPhase>> Step(const std::vector<PhaseItem>& items, bool purge = false,
                                        std::string* purge_method = nullptr) {
    std::string method;
    auto body = [&]() -> Result<std::vector<StoredPhase>> {
      if (purge) {
        r.Report({.stage = "purge", .message = "purge (" + o.purge + ")"});
        RunControl control;
        control.stop = r.env().stop;
        SSDLAB_ASSIGN_OR_RETURN(method, r.env().backend.Purge(o.purge, control));
      }
      std::vector<StoredPhase> out;
      for (const PhaseItem& it : items) {
        if (it.idle_before_ns) SSDLAB_RETURN_IF_ERROR(r.Idle(it.idle_before_ns));
        SSDLAB_ASSIGN_OR_RETURN(PhaseResult res, r.Phase(it.spec, it.cell));
        const DirectionStats t = res.Total();
        r.Report({.stage = "phase",
                  .cell = it.cell,
                  .iops = res.Iops(t),
                  .mean_ns = t.latency.Mean(),
                  .p99_ns = t.latency.Percentile(99)});
        out.push_back({0, it.cell,
                       json{{"description", DescribeWorkload(it.spec)}, {"seed", it.spec.seed}},
                       std::move(res)});
      }
      return out;
    };
    auto tracking = [&](const std::vector<StoredPhase>& phases) {
      json t = json::object();
      for (const StoredPhase& p : phases) t[p.cell + " iops"] = p.result.Iops(p.result.Total());
      if (purge) t["purge_method"] = method;
      return t;
    };
    int index = step++;
    auto phases = r.Step(index, body, tracking);
    if (phases.ok() && purge && purge_method) {
      *purge_method = method;
      if (method.empty()) {
        auto rounds = r.env().store.LoadRounds(r.env().test_id);
        if (!rounds.ok()) return Result<std::vector<StoredPhase>>(rounds.status());
        for (const StoredRound& sr : rounds.value()) {
          if (sr.round == index) *purge_method = sr.tracking.value("purge_method", "");
        }
      }
    }
    return phases;
  }

  json Metrics(const PhaseResult& res) const { return pts::PhaseMetrics(res, o.percentiles); }
};

const PhaseResult& Find(const std::vector<StoredPhase>& phases, const std::string& cell) {
  for (const StoredPhase& p : phases) {
    if (p.cell == cell) return p.result;
  }
  static const PhaseResult kEmpty;
  return kEmpty;
}

// Sequential 1 MiB writes of [begin, end): CDM's and sysbench's "prepare", the fill levels.
WorkloadSpec SeqFill(Ctx& c, uint64_t begin, uint64_t end) {
  uint64_t bs = std::min<uint64_t>(kMiB, AlignDown(end - begin, c.lbs()));
  return c.Spec(true, 0, {{bs, 100}}, 1, 8, begin, end, 0, AlignDown(end - begin, bs));
}

Status NeedRoom(Ctx& c, uint64_t begin, uint64_t bytes, const std::string& what) {
  if (begin + bytes > c.capacity()) {
    return Status::Invalid(c.def.name + ": " + what + " of " + FormatBytes(bytes) +
                           " does not fit in the " +
                           FormatBytes(c.capacity() - std::min(begin, c.capacity())) +
                           " left on the target after the fill; give a smaller --size");
  }
  return Status::Ok();
}

constexpr uint64_t kMinRoom = 16 * kMiB;  // smallest default test file after shrinking

// The size of a test file or span: the user's (checked by NeedRoom), else the default, shrunk
// (whole MiB, with a note) to what the fill left when that is less (a scaled simulated drive
// at 90% full has less room than the full drive's default file).
uint64_t RoomFor(Ctx& c, uint64_t begin, uint64_t default_bytes, const std::string& what) {
  if (c.o.size_bytes) return c.o.size_bytes;
  const uint64_t left = c.capacity() - std::min(begin, c.capacity());
  if (default_bytes <= left || left < kMinRoom) return default_bytes;
  const uint64_t size = left / kMiB * kMiB;
  c.notes.push_back(what + " shrunk from " + FormatBytes(default_bytes) + " to " +
                    FormatBytes(size) + ", the room left after the fill");
  return size;
}

// ---- CrystalDiskMark ----
struct CdmItem {
  std::string name;
  bool seq;
  uint64_t bs;
  uint32_t qd, threads;
};

Result<json> Cdm(Ctx& c, uint64_t base, Summary& sum) {
  std::vector<CdmItem> items = {{"SEQ1M Q8T1", true, kMiB, 8, 1},
                                {"SEQ1M Q1T1", true, kMiB, 1, 1},
                                {"RND4K Q32T1", false, 4 * kKiB, 32, 1},
                                {"RND4K Q1T1", false, 4 * kKiB, 1, 1}};
  if (c.def.kind == "cdm-nvme") {
    items = {{"SEQ1M Q8T1", true, kMiB, 8, 1},
             {"SEQ128K Q32T1", true, 128 * kKiB, 32, 1},
             {"RND4K Q32T16", false, 4 * kKiB, 32, 16},
             {"RND4K Q1T1", false, 4 * kKiB, 1, 1}};
  }
  const uint64_t size = RoomFor(c, base, kGiB, "the test file");
  const uint32_t passes = c.o.passes ? c.o.passes : 5;
  const uint64_t pass_ns = c.o.time_ns ? c.o.time_ns : 5 * kNsPerS;
  const uint64_t pause_ns = c.o.pause_ns != UINT64_MAX ? c.o.pause_ns : 5 * kNsPerS;
  SSDLAB_RETURN_IF_ERROR(NeedRoom(c, base, size, "the test file"));
  const uint64_t end = base + size;
  // CrystalDiskMark writes its test file before measuring.
  SSDLAB_RETURN_IF_ERROR(c.Step({{"prepare", SeqFill(c, base, end)}}).status());
  json out = json::array();
  for (const CdmItem& it : items) {
    json row = {{"name", it.name}, {"block_bytes", it.bs}, {"qd", it.qd}, {"threads", it.threads}};
    for (Direction d : {Direction::kRead, Direction::kWrite}) {
      std::vector<PhaseItem> phases;
      const std::string dn = DirectionName(d);
      for (uint32_t p = 0; p < passes; ++p) {
        WorkloadSpec s = c.Spec(it.seq, d == Direction::kRead ? 100 : 0, {{it.bs, 100}}, it.threads,
                                it.qd, base, end, pass_ns, 0);
        phases.push_back(
            {it.name + " " + dn + " pass " + std::to_string(p + 1), s, p ? pause_ns : 0});
      }
      SSDLAB_ASSIGN_OR_RETURN(auto stored, c.Step(phases));
      json pass_mb = json::array();
      size_t best = 0;
      double best_mb = -1;
      for (size_t i = 0; i < stored.size(); ++i) {
        const PhaseResult& r = stored[i].result;
        double mb = MBps(r, r.dirs[static_cast<int>(d)]);
        pass_mb.push_back(mb);
        if (mb > best_mb) best_mb = mb, best = i;
      }
      const PhaseResult& b = stored[best].result;
      const DirectionStats& ds = b.dirs[static_cast<int>(d)];
      row[dn] = {
          {"mb_s", best_mb},       {"iops", b.Iops(ds)},     {"mean_us", ds.latency.Mean() / 1e3},
          {"best_pass", best + 1}, {"passes_mb_s", pass_mb}, {"metrics", c.Metrics(b)}};
      sum.emplace_back(it.name + " " + dn + " MB/s", best_mb);
      if (!it.seq) sum.emplace_back(it.name + " " + dn + " IOPS", b.Iops(ds));
    }
    out.push_back(row);
  }
  return json{{"items", out},
              {"test_file_bytes", size},
              {"passes", passes},
              {"pass_ns", pass_ns},
              {"pause_ns", pause_ns},
              {"rule", "best of the passes by MB/s (CrystalDiskMark); MB/s = 1,000,000 bytes/s"}};
}

// ---- ATTO ----
Result<json> Atto(Ctx& c, uint64_t base, Summary& sum) {
  const uint64_t lo = c.o.min_bs ? c.o.min_bs : 512;
  const uint64_t hi = c.o.max_bs ? c.o.max_bs : 64 * kMiB;
  const uint64_t span = RoomFor(c, base, 256 * kMiB, "the span");
  const uint32_t qd = c.o.qd ? c.o.qd : 4;
  SSDLAB_RETURN_IF_ERROR(NeedRoom(c, base, span, "the span"));
  json rows = json::array(), skipped = json::array();
  for (uint64_t bs = lo; bs <= hi; bs *= 2) {
    if (bs % c.lbs() || bs > span) {
      skipped.push_back(
          {{"block_bytes", bs},
           {"reason", bs > span ? "larger than the span"
                                : "not a multiple of the target's " + std::to_string(c.lbs()) +
                                      "-byte logical block"}});
      continue;
    }
    uint64_t io = AlignDown(span, bs);
    WorkloadSpec w = c.Spec(true, 0, {{bs, 100}}, 1, qd, base, base + span, c.o.time_ns, io);
    WorkloadSpec r = c.Spec(true, 100, {{bs, 100}}, 1, qd, base, base + span, c.o.time_ns, io);
    std::string label = pts::BlockLabel(bs);
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{label + " write", w}, {label + " read", r}}));
    const PhaseResult& pw = Find(st, label + " write");
    const PhaseResult& pr = Find(st, label + " read");
    double wmb = MBps(pw, pw.dirs[1]), rmb = MBps(pr, pr.dirs[0]);
    rows.push_back({{"block_bytes", bs},
                    {"write_mb_s", wmb},
                    {"read_mb_s", rmb},
                    {"write_iops", pw.Iops(pw.dirs[1])},
                    {"read_iops", pr.Iops(pr.dirs[0])},
                    {"write", c.Metrics(pw)},
                    {"read", c.Metrics(pr)}});
    sum.emplace_back(label + " write MB/s", wmb);
    sum.emplace_back(label + " read MB/s", rmb);
  }
  return json{{"rows", rows}, {"skipped", skipped}, {"span_bytes", span}, {"qd", qd}};
}

// ---- AS SSD ----
// Score weights as published by Tom's Hardware ("Three PCI Express-Based SSDs", 2011, page
// "New AS SSD Benchmark") and ssd-tester.com: the program's author has not published them, so
// this is the third-party formula, applied to our MB/s figures.
Result<json> AsSsd(Ctx& c, uint64_t base, Summary& sum) {
  const uint64_t size = RoomFor(c, base, kGiB, "the test file");
  const uint64_t t = c.o.time_ns ? c.o.time_ns : 5 * kNsPerS;
  SSDLAB_RETURN_IF_ERROR(NeedRoom(c, base, size, "the test file"));
  const uint64_t end = base + size;
  const uint64_t seq_bs = std::min<uint64_t>(16 * kMiB, AlignDown(size, c.lbs()));
  const uint64_t k4 = 4 * kKiB;
  const uint64_t small = std::max<uint64_t>(512, c.lbs());
  SSDLAB_ASSIGN_OR_RETURN(
      auto seq, c.Step({{"Seq write", c.Spec(true, 0, {{seq_bs, 100}}, 1, 1, base, end, 0,
                                             AlignDown(size, seq_bs))},
                        {"Seq read", c.Spec(true, 100, {{seq_bs, 100}}, 1, 1, base, end, 0,
                                            AlignDown(size, seq_bs))}}));
  SSDLAB_ASSIGN_OR_RETURN(
      auto k, c.Step({{"4K read", c.Spec(false, 100, {{k4, 100}}, 1, 1, base, end, t, 0)},
                      {"4K write", c.Spec(false, 0, {{k4, 100}}, 1, 1, base, end, t, 0)}}));
  SSDLAB_ASSIGN_OR_RETURN(
      auto k64,
      c.Step({{"4K-64Thrd read", c.Spec(false, 100, {{k4, 100}}, 64, 1, base, end, t, 0)},
              {"4K-64Thrd write", c.Spec(false, 0, {{k4, 100}}, 64, 1, base, end, t, 0)}}));
  // Access time: writes of 512 B (or the logical block) in the test file, reads of 4 KiB over
  // the whole target (full stroke), one at a time.
  SSDLAB_ASSIGN_OR_RETURN(
      auto acc, c.Step({{"Acc.time write", c.Spec(false, 0, {{small, 100}}, 1, 1, base, end, t, 0)},
                        {"Acc.time read", c.Spec(false, 100, {{k4, 100}}, 1, 1, 0,
                                                 AlignDown(c.capacity(), k4), t, 0)}}));
  auto mb = [](const std::vector<StoredPhase>& st, const std::string& cell, int d) {
    const PhaseResult& r = Find(st, cell);
    return MBps(r, r.dirs[d]);
  };
  double sr = mb(seq, "Seq read", 0), sw = mb(seq, "Seq write", 1);
  double kr = mb(k, "4K read", 0), kw = mb(k, "4K write", 1);
  double tr = mb(k64, "4K-64Thrd read", 0), tw = mb(k64, "4K-64Thrd write", 1);
  double acc_r = Find(acc, "Acc.time read").dirs[0].latency.Mean() / 1e6;
  double acc_w = Find(acc, "Acc.time write").dirs[1].latency.Mean() / 1e6;
  double read_score = 0.1 * sr + kr + tr;
  double write_score = 0.1 * sw + kw + tw;
  double total = 0.1 * sr + 0.15 * sw + 2 * kr + kw + 1.5 * tr + tw;
  sum.insert(sum.end(), {{"Seq read MB/s", sr},
                         {"Seq write MB/s", sw},
                         {"4K read MB/s", kr},
                         {"4K write MB/s", kw},
                         {"4K-64Thrd read MB/s", tr},
                         {"4K-64Thrd write MB/s", tw},
                         {"Acc.time read ms", acc_r},
                         {"Acc.time write ms", acc_w},
                         {"score read", read_score},
                         {"score write", write_score},
                         {"score total", total}});
  return json{{"seq", {{"read_mb_s", sr}, {"write_mb_s", sw}, {"block_bytes", seq_bs}}},
              {"4k", {{"read_mb_s", kr}, {"write_mb_s", kw}}},
              {"4k_64thrd", {{"read_mb_s", tr}, {"write_mb_s", tw}}},
              {"access_time_ms", {{"read", acc_r}, {"write", acc_w}, {"write_block_bytes", small}}},
              {"score",
               {{"read", std::round(read_score)},
                {"write", std::round(write_score)},
                {"total", std::round(total)}}},
              {"score_formula",
               "read = 0.1*SeqR + 4KR + 4K64R; write = 0.1*SeqW + 4KW + 4K64W; total = 0.1*SeqR + "
               "0.15*SeqW + 2*4KR + 4KW + "
               "1.5*4K64R + 4K64W (MB/s). Source: Tom's Hardware 2011 'New AS SSD Benchmark' and "
               "ssd-tester.com; not "
               "published by AS SSD's author, so an approximation of the program's score"},
              {"test_file_bytes", size},
              {"time_ns", t}};
}

// ---- Surface (AIDA64 linear write / read) ----
double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

Result<json> Surface(Ctx& c, Summary& sum) {
  const uint64_t cap = c.capacity();
  const uint64_t bs = c.o.bs ? c.o.bs : kMiB;
  const uint32_t qd = c.o.qd ? c.o.qd : 4;
  uint32_t segments = c.o.segments ? c.o.segments : 100;
  if (bs % c.lbs())
    return Status::Invalid("surface: --bs " + std::to_string(bs) +
                           " is not a multiple of the target's logical block");
  uint64_t seg = AlignDown(cap / segments, bs);
  if (seg == 0) return Status::Invalid("surface: the target is smaller than --segments x --bs");
  std::vector<PhaseItem> writes, reads;
  for (uint32_t i = 0; i < segments; ++i) {
    uint64_t b = i * seg;
    writes.push_back(
        {"write " + std::to_string(i), c.Spec(true, 0, {{bs, 100}}, 1, qd, b, b + seg, 0, seg)});
  }
  for (uint32_t i = 0; i < segments; ++i) {
    uint64_t b = i * seg;
    reads.push_back(
        {"read " + std::to_string(i), c.Spec(true, 100, {{bs, 100}}, 1, qd, b, b + seg, 0, seg)});
  }
  c.r.Report({.stage = "phase",
              .message = "linear write of " + FormatBytes(seg * segments) + " in " +
                         std::to_string(segments) + " segments"});
  SSDLAB_ASSIGN_OR_RETURN(auto ws, c.Step(writes));
  c.r.Report({.stage = "phase", .message = "linear read"});
  SSDLAB_ASSIGN_OR_RETURN(auto rs, c.Step(reads));
  json points = json::array();
  std::vector<double> w, r;
  for (uint32_t i = 0; i < segments; ++i) {
    const PhaseResult& pw = ws[i].result;
    const PhaseResult& pr = rs[i].result;
    w.push_back(MBps(pw, pw.dirs[1]));
    r.push_back(MBps(pr, pr.dirs[0]));
    points.push_back(
        {{"segment", i},
         {"position_bytes", i * seg},
         {"position_pct", 100.0 * static_cast<double>(i * seg) / static_cast<double>(cap)},
         {"write_mb_s", w.back()},
         {"read_mb_s", r.back()}});
  }
  // The cliff: the first segment below cliff_ratio x the median of the segments before it,
  // with the rest of the surface also below that level on average.
  json cliff = {{"found", false},    {"segment", -1},    {"position_bytes", 0},
                {"position_pct", 0}, {"before_mb_s", 0}, {"after_mb_s", 0}};
  for (uint32_t i = 1; i < segments; ++i) {
    double before = Median(std::vector<double>(w.begin(), w.begin() + i));
    double rest = std::accumulate(w.begin() + i, w.end(), 0.0) / static_cast<double>(segments - i);
    if (w[i] < c.o.cliff_ratio * before && rest < c.o.cliff_ratio * before) {
      cliff = {{"found", true},
               {"segment", i},
               {"position_bytes", i * seg},
               {"position_pct", 100.0 * static_cast<double>(i * seg) / static_cast<double>(cap)},
               {"before_mb_s", before},
               {"after_mb_s", rest}};
      break;
    }
  }
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  sum.insert(sum.end(), {{"write mean MB/s", mean(w)},
                         {"write min MB/s", *std::min_element(w.begin(), w.end())},
                         {"read mean MB/s", mean(r)},
                         {"read min MB/s", *std::min_element(r.begin(), r.end())}});
  if (cliff["found"])
    sum.emplace_back("write cliff position %", cliff["position_pct"].get<double>());
  return json{{"points", points},
              {"segment_bytes", seg},
              {"block_bytes", bs},
              {"qd", qd},
              {"cliff", cliff},
              {"cliff_ratio", c.o.cliff_ratio},
              {"write_mean_mb_s", mean(w)},
              {"read_mean_mb_s", mean(r)}};
}

// ---- vdbench-style curves ----
uint32_t JobsFor(uint32_t threads, uint32_t max_jobs) {
  for (uint32_t j = std::min(threads, std::max<uint32_t>(max_jobs, 1)); j > 1; --j) {
    if (threads % j == 0) return j;
  }
  return 1;
}

json PointJson(const PhaseResult& r, double target_pct, double rate,
               const std::vector<double>& pcts) {
  const DirectionStats t = r.Total();
  return {{"target_pct", target_pct},
          {"rate_iops", rate},
          {"iops", r.Iops(t)},
          {"mb_s", MBps(r, t)},
          {"read_iops", r.Iops(r.dirs[0])},
          {"write_iops", r.Iops(r.dirs[1])},
          {"mean_ns", t.latency.Mean()},
          {"p99_ns", t.latency.Percentile(99)},
          {"metrics", pts::PhaseMetrics(r, pcts)}};
}

Result<json> Curve(Ctx& c, bool filled, Summary& sum) {
  const CurveMix& m = c.def.curve;
  const uint64_t cap = c.capacity();
  for (const BlockShare& b : m.block_sizes) {
    if (b.bytes % c.lbs())
      return Status::Invalid(c.def.name + ": block size " + std::to_string(b.bytes) +
                             " is not a multiple of the target's logical block");
  }
  const uint64_t section = std::max(AlignDown(static_cast<uint64_t>(static_cast<double>(cap) * c.o.section_pct / 100), kAlign),
                                    AlignUp(m.block_sizes.empty() ? 4096 : [&] { uint64_t x = 0; for (auto& b : m.block_sizes) x = std::max(x, b.bytes); return x; }(), kAlign));
  json prep = nullptr;
  if (!filled && c.o.curve_fill_pct > 0) {
    uint64_t fill = AlignDown(
        static_cast<uint64_t>(static_cast<double>(cap) * c.o.curve_fill_pct / 100), kAlign);
    c.r.Report(
        {.stage = "fill",
         .message = "filling " + FormatBytes(fill) + " before the curve (the DC450R review)"});
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{"fill", SeqFill(c, 0, fill)}}));
    prep = {{"filled_bytes", fill}, {"mb_s", MBps(st[0].result, st[0].result.dirs[1])}};
  }
  const uint32_t threads = c.o.threads ? c.o.threads : m.threads;
  const uint32_t jobs = JobsFor(threads, c.o.max_jobs);
  const uint32_t qd = (threads + jobs - 1) / jobs;
  const uint64_t t = c.o.time_ns ? c.o.time_ns : 60 * kNsPerS;
  const uint64_t ramp = c.o.ramp_ns != UINT64_MAX ? c.o.ramp_ns : 10 * kNsPerS;
  std::vector<double> pcts = c.o.curve_pcts;
  if (pcts.empty()) pcts = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
  auto spec = [&](double rate) {
    WorkloadSpec s = c.Spec(m.sequential, m.read_pct, m.block_sizes, jobs, qd, 0, section, t, 0);
    s.dist = m.dist;
    s.ramp_ns = ramp;
    s.rate_iops = rate;
    return s;
  };
  SSDLAB_ASSIGN_OR_RETURN(auto mx, c.Step({{"max", spec(0)}}));
  const PhaseResult& top = mx[0].result;
  const double max_iops = top.Iops(top.Total());
  if (max_iops <= 0) return Status::Io(c.def.name + ": the uncapped run completed no I/O");
  json points = json::array();
  for (double p : pcts) {
    double rate = max_iops * p / 100;
    char cell[48];
    std::snprintf(cell, sizeof cell, "iorate %g%%", p);
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{cell, spec(rate)}}));
    points.push_back(PointJson(st[0].result, p, rate, c.o.percentiles));
  }
  json maxj = PointJson(top, 0, 0, c.o.percentiles);
  sum.insert(sum.end(), {{"max IOPS", max_iops},
                         {"max MB/s", MBps(top, top.Total())},
                         {"max mean latency ms", top.Total().latency.Mean() / 1e6},
                         {"max p99 latency ms", top.Total().latency.Percentile(99) / 1e6}});
  return json{{"mix", CurveMixJson(m)},
              {"section_bytes", section},
              {"section_pct", c.o.section_pct},
              {"preparation", prep},
              {"threads", threads},
              {"jobs", jobs},
              {"qd", qd},
              {"time_ns", t},
              {"ramp_ns", ramp},
              {"max", maxj},
              {"points", points},
              {"rule",
               "one uncapped run for the maximum, then runs paced at each percentage of it (open "
               "loop: latency from the scheduled time)"}};
}

// ---- OP advisor (the DC500M over-provisioning study) ----
Result<json> OpAdvisor(Ctx& c, Summary& sum) {
  std::vector<double> ops = c.o.op_pcts;
  if (ops.empty()) ops = {0, 5, 10, 15, 20, 25, 30};
  const uint32_t jobs = c.o.threads ? c.o.threads : 4;
  const uint32_t qd = c.o.qd ? c.o.qd : 32;
  const uint64_t t = c.o.time_ns ? c.o.time_ns : 600 * kNsPerS;
  const uint64_t interval = c.o.interval_ns ? c.o.interval_ns : kNsPerS;
  const uint64_t cap = c.capacity();
  json points = json::array();
  struct Pt {
    double op, sustained;
  };
  std::vector<Pt> pts;
  // The range an OP leaves (whole MiB) and the capacity it gives up: OP 0 gives up nothing
  // (the range's rounding to whole MiB is not over-provisioning).
  auto range_of = [&](double op) {
    return AlignDown(static_cast<uint64_t>(static_cast<double>(cap) * (100 - op) / 100), kAlign);
  };
  auto cost_of = [&](double op) { return op > 0 ? cap - range_of(op) : 0; };
  for (double op : ops) {
    const uint64_t range = range_of(op);
    WorkloadSpec s = c.Spec(false, 0, {{4 * kKiB, 100}}, jobs, qd, 0, range, t, 0);
    s.interval_ns = interval;
    char cell[48];
    std::snprintf(cell, sizeof cell, "op %g%%", op);
    std::string method;
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{cell, s}}, true, &method));
    const PhaseResult& r = st[0].result;
    json series = json::array();
    std::vector<double> iops;
    for (const IntervalSample& iv : r.intervals) {
      double dt = static_cast<double>(iv.t_end_ns - iv.t_begin_ns);
      uint64_t ios = iv.dirs[1].ios;
      double v = dt > 0 ? static_cast<double>(ios) * 1e9 / dt : 0;
      iops.push_back(v);
      series.push_back(
          {{"t_s", static_cast<double>(iv.t_end_ns) / 1e9},
           {"iops", v},
           {"mean_ns",
            ios ? static_cast<double>(iv.dirs[1].lat_sum_ns) / static_cast<double>(ios) : 0}});
    }
    // Initial: the first tenth of the run; sustained: its last third.
    size_t n = iops.size();
    size_t first = std::max<size_t>(1, n / 10), last = std::max<size_t>(1, n / 3);
    double initial = n ? std::accumulate(iops.begin(), iops.begin() + std::min(first, n), 0.0) /
                             static_cast<double>(std::min(first, n))
                       : 0;
    double sustained = n ? std::accumulate(iops.end() - std::min(last, n), iops.end(), 0.0) /
                               static_cast<double>(std::min(last, n))
                         : r.Iops(r.dirs[1]);
    // When the IOPS first falls below the midpoint between the initial and sustained level.
    double drop_s = -1;
    if (initial > sustained * 1.1) {
      for (size_t i = 0; i < n; ++i) {
        if (iops[i] < (initial + sustained) / 2) {
          drop_s = series[i]["t_s"].get<double>();
          break;
        }
      }
    }
    pts.push_back({op, sustained});
    points.push_back({{"op_pct", op},
                      {"range_bytes", range},
                      {"capacity_cost_bytes", cost_of(op)},
                      {"purge_method", method},
                      {"initial_iops", initial},
                      {"sustained_iops", sustained},
                      {"drop_at_s", drop_s},
                      {"mean_iops", r.Iops(r.dirs[1])},
                      {"series", series},
                      {"metrics", c.Metrics(r)}});
    sum.emplace_back(std::string(cell) + " sustained IOPS", sustained);
  }
  // The best sustained IOPS; within 1% of it, the smaller OP (less capacity given up).
  double best_v = 0;
  for (const Pt& p : pts) best_v = std::max(best_v, p.sustained);
  const Pt* rec = nullptr;
  for (const Pt& p : pts) {
    if (p.sustained >= best_v * 0.99 && (!rec || p.op < rec->op)) rec = &p;
  }
  const Pt* base = &pts.front();
  for (const Pt& p : pts) {
    if (p.op < base->op) base = &p;
  }
  double gain = base->sustained > 0 ? (rec->sustained / base->sustained - 1) * 100 : 0;
  const uint64_t cost = cost_of(rec->op);
  json recj = {{"op_pct", rec->op},
               {"sustained_iops", rec->sustained},
               {"baseline_op_pct", base->op},
               {"baseline_sustained_iops", base->sustained},
               {"gain_pct", gain},
               {"capacity_cost_bytes", cost},
               {"capacity_cost_pct", rec->op},
               {"rule",
                "the OP with the best sustained IOPS (mean of the last third of the run); within "
                "1% of the best, the smaller OP"}};
  sum.emplace_back("recommended OP %", rec->op);
  sum.emplace_back("gain over baseline %", gain);
  return json{{"points", points}, {"recommendation", recj}, {"threads", jobs},
              {"qd", qd},         {"time_ns", t},           {"interval_ns", interval}};
}

// ---- fill ----
Result<json> Fill(Ctx& c, Summary& sum) {
  uint64_t end = AlignDown(
      static_cast<uint64_t>(static_cast<double>(c.capacity()) * c.o.fill_percent / 100), kAlign);
  if (end == 0) return json{{"filled_bytes", 0}, {"mb_s", 0}};
  WorkloadSpec s = SeqFill(c, 0, end);
  s.interval_ns = kNsPerS;
  SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{"fill", s}}));
  const PhaseResult& r = st[0].result;
  sum.emplace_back("fill MB/s", MBps(r, r.dirs[1]));
  return json{{"filled_bytes", end},
              {"percent", c.o.fill_percent},
              {"mb_s", MBps(r, r.dirs[1])},
              {"metrics", c.Metrics(r)}};
}

// ---- sysbench fileio ----
Result<json> FileIo(Ctx& c, uint64_t base, Summary& sum) {
  std::vector<std::string> modes = c.o.fileio_modes;
  if (modes.empty()) modes = {"rndrd", "rndwr", "rndrw"};
  const uint32_t threads = c.o.threads ? c.o.threads : 192;
  const uint64_t t = c.o.time_ns ? c.o.time_ns : 120 * kNsPerS;
  const uint64_t ramp = c.o.ramp_ns != UINT64_MAX ? c.o.ramp_ns : 0;
  const uint64_t bs = c.o.bs ? c.o.bs : 4 * kKiB;
  const uint64_t end = c.capacity();
  if (base + bs > end) return Status::Invalid("fileio: no room left after the fill");
  // sysbench's prepare writes every file.
  SSDLAB_RETURN_IF_ERROR(c.Step({{"prepare", SeqFill(c, base, end)}}).status());
  json out = json::array();
  for (const std::string& mode : modes) {
    bool seq = mode.rfind("seq", 0) == 0;
    double read = mode == "rndrd" || mode == "seqrd" ? 100
                  : mode == "rndrw" ? 100 * c.o.fileio_rw_ratio / (1 + c.o.fileio_rw_ratio)
                                    : 0;
    WorkloadSpec s = c.Spec(seq, read, {{bs, 100}}, threads, 1, base, end, t, 0);
    s.ramp_ns = ramp;
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{mode, s}}));
    const PhaseResult& r = st[0].result;
    const DirectionStats tot = r.Total();
    out.push_back({{"mode", mode},
                   {"read_iops", r.Iops(r.dirs[0])},
                   {"write_iops", r.Iops(r.dirs[1])},
                   {"read_mib_s", r.BytesPerS(r.dirs[0]) / kMiB},
                   {"write_mib_s", r.BytesPerS(r.dirs[1]) / kMiB},
                   {"lat_ns",
                    {{"min", tot.latency.min()},
                     {"mean", tot.latency.Mean()},
                     {"p95", tot.latency.Percentile(95)},
                     {"p99", tot.latency.Percentile(99)},
                     {"max", tot.latency.max()}}},
                   {"metrics", c.Metrics(r)}});
    if (read > 0) sum.emplace_back(mode + " read IOPS", r.Iops(r.dirs[0]));
    if (read < 100) sum.emplace_back(mode + " write IOPS", r.Iops(r.dirs[1]));
  }
  return json{
      {"modes", out}, {"threads", threads},        {"block_bytes", bs},
      {"time_ns", t}, {"range_bytes", end - base}, {"rndrw_reads_per_write", c.o.fileio_rw_ratio}};
}

// ---- user profiles ----
Result<json> User(Ctx& c, Summary& sum) {
  json out = json::array();
  for (const UserPhase& p : c.def.phases) {
    auto spec = ResolveWorkload(p.args, c.capacity(), c.lbs());
    if (!spec.ok()) return spec.status().WithContext(c.def.name + " phase '" + p.name + "'");
    WorkloadSpec s = spec.value();
    s.seed = Mix64(c.o.seed ^ Mix64(p.args.seed * 0x9e37 + (++c.salt)));
    std::vector<PhaseItem> items = {{p.name, s}};
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step(items));
    if (p.idle_after_ns) SSDLAB_RETURN_IF_ERROR(c.r.Idle(p.idle_after_ns));
    const PhaseResult& r = st[0].result;
    json m = c.Metrics(r);
    out.push_back({{"name", p.name},
                   {"workload", DescribeWorkload(s)},
                   {"idle_after_ns", p.idle_after_ns},
                   {"metrics", m},
                   {"iops", r.Iops(r.Total())},
                   {"mb_s", MBps(r, r.Total())},
                   {"mean_ns", r.Total().latency.Mean()},
                   {"p99_ns", r.Total().latency.Percentile(99)}});
    sum.emplace_back(p.name + " IOPS", r.Iops(r.Total()));
    sum.emplace_back(p.name + " MB/s", MBps(r, r.Total()));
  }
  return json{{"phases", out}};
}

std::string PctText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool UsesFreeSpace(const std::string& kind) {
  return kind == "cdm" || kind == "cdm-nvme" || kind == "atto" || kind == "as-ssd" ||
         kind == "fileio";
}

Result<json> RunKind(Ctx& c, uint64_t base, bool filled, Summary& sum) {
  const std::string& k = c.def.kind;
  if (k == "cdm" || k == "cdm-nvme") return Cdm(c, base, sum);
  if (k == "atto") return Atto(c, base, sum);
  if (k == "as-ssd") return AsSsd(c, base, sum);
  if (k == "surface") return Surface(c, sum);
  if (k == "curve") return Curve(c, filled, sum);
  if (k == "op-advisor") return OpAdvisor(c, sum);
  if (k == "fill") return Fill(c, sum);
  if (k == "fileio") return FileIo(c, base, sum);
  if (k == "user") return User(c, sum);
  return Status::Invalid("unknown profile kind '" + k + "'");
}

}  // namespace

const std::vector<std::string>& ProfileNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v = {"cdm",     "cdm-nvme", "atto", "as-ssd",
                                  "surface", "fileio",   "fill", "op-advisor"};
    for (const CurveMix& m : BuiltinCurveMixes()) v.push_back(m.name);
    return v;
  }();
  return kNames;
}

Result<ProfileDef> BuiltinProfile(const std::string& name) {
  ProfileDef d;
  d.name = name;
  for (const CurveMix& m : BuiltinCurveMixes()) {
    if (m.name == name) {
      d.kind = "curve";
      d.curve = m;
      d.description = "vdbench-style curve (the DC450R review): " + m.source;
      return d;
    }
  }
  static const std::vector<std::pair<std::string, std::string>> kOthers = {
      {"cdm",
       "CrystalDiskMark-style: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1; best of 5 passes"},
      {"cdm-nvme", "CrystalDiskMark NVMe set: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1"},
      {"atto",
       "ATTO-style: sequential read and write, 512 B .. 64 MiB doubling, QD 4, 256 MiB span"},
      {"as-ssd", "AS SSD-style: Seq 16 MiB over 1 GiB, 4K QD1, 4K 64 threads, access time, score"},
      {"surface", "AIDA64-style full-surface linear write then read, MB/s against position"},
      {"fileio",
       "sysbench fileio-style: files on a filesystem, O_DIRECT, rndrd/rndwr/rndrw, 192 threads"},
      {"fill", "sequential fill of the first --percent of the target"},
      {"op-advisor",
       "over-provisioning advisor (the DC500M over-provisioning study): sustained 4 KiB random "
       "write per OP, "
       "recommendation"}};
  for (const auto& [n, desc] : kOthers) {
    if (n == name) {
      d.kind = n;
      d.description = desc;
      return d;
    }
  }
  std::string known;
  for (const std::string& n : ProfileNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::Invalid("unknown profile '" + name + "' (" + known +
                         ", or a profile file ./NAME.toml)");
}

Status ValidateProfileOptions(const ProfileDef& def, const ProfileOptions& o) {
  for (double f : o.fill_pcts) {
    if (f < 0 || f >= 100) return Status::Invalid("--fill: " + PctText(f) + "% is outside 0..99%");
  }
  if (!o.fill_pcts.empty() && (def.kind == "op-advisor" || def.kind == "fill")) {
    return Status::Invalid(
        "--fill does not apply to " + def.kind +
        (def.kind == "fill" ? " (use --percent)" : " (it purges before each OP point)"));
  }
  for (double op : o.op_pcts) {
    if (op < 0 || op > 90) return Status::Invalid("--op: " + PctText(op) + "% is outside 0..90%");
  }
  if (o.fill_percent <= 0 || o.fill_percent > 100)
    return Status::Invalid("--percent must lie in (0, 100]");
  if (o.section_pct <= 0 || o.section_pct > 100)
    return Status::Invalid("--section must lie in (0, 100]");
  if (o.curve_fill_pct < 0 || o.curve_fill_pct > 100)
    return Status::Invalid("--curve-fill must lie in 0..100");
  for (double p : o.curve_pcts) {
    if (p <= 0 || p > 1000)
      return Status::Invalid("--points: " + PctText(p) + "% is outside (0, 1000]");
  }
  if (o.min_bs && o.max_bs && o.min_bs > o.max_bs)
    return Status::Invalid("--min-bs is larger than --max-bs");
  if (o.cliff_ratio <= 0 || o.cliff_ratio >= 1)
    return Status::Invalid("--cliff-ratio must lie in (0, 1)");
  for (const std::string& m : o.fileio_modes) {
    if (m != "rndrd" && m != "rndwr" && m != "rndrw" && m != "seqrd" && m != "seqwr") {
      return Status::Invalid("--mode: unknown mode '" + m +
                             "' (rndrd, rndwr, rndrw, seqrd, seqwr)");
    }
  }
  return Status::Ok();
}

Status CheckProfileTarget(const ProfileDef& def, const ProfileOptions& o,
                          const TargetInfo& target) {
  const uint64_t cap = target.size_bytes;
  double top = 0;
  for (double f : o.fill_pcts) top = std::max(top, f);
  const uint64_t base =
      UsesFreeSpace(def.kind)
          ? AlignDown(static_cast<uint64_t>(static_cast<double>(cap) * top / 100), kAlign)
          : 0;
  uint64_t need = 0;
  std::string what = "the test file";
  // Without --size the default file shrinks to the room left (RoomFor), down to kMinRoom.
  if (def.kind == "cdm" || def.kind == "cdm-nvme" || def.kind == "as-ssd")
    need = o.size_bytes ? o.size_bytes : std::min(kGiB, kMinRoom);
  if (def.kind == "atto")
    need = o.size_bytes ? o.size_bytes : std::min(256 * kMiB, kMinRoom), what = "the span";
  if (need && base + need > cap) {
    return Status::Invalid(def.name + ": " + what + " of " + FormatBytes(need) +
                           " does not fit in the " + FormatBytes(cap - std::min(base, cap)) +
                           " of " + target.path + (top > 0 ? " left after the fill" : "") +
                           "; give a smaller --size");
  }
  if (def.kind == "surface") {
    uint64_t bs = o.bs ? o.bs : kMiB;
    uint32_t segments = o.segments ? o.segments : 100;
    if (cap / segments < bs)
      return Status::Invalid("surface: " + target.path + " is smaller than --segments x --bs (" +
                             std::to_string(segments) + " x " + FormatBytes(bs) + ")");
  }
  if (def.kind == "fileio" && base >= cap)
    return Status::Invalid("fileio: no room left after the fill");
  return Status::Ok();
}

json ProfileOptionsJson(const ProfileOptions& o) {
  auto opt = [](uint64_t v) { return v == UINT64_MAX ? json(nullptr) : json(v); };
  return {{"fill_pcts", o.fill_pcts},
          {"purge", o.purge},
          {"seed", o.seed},
          {"percentiles", o.percentiles},
          {"size_bytes", o.size_bytes},
          {"time_ns", o.time_ns},
          {"ramp_ns", opt(o.ramp_ns)},
          {"passes", o.passes},
          {"pause_ns", opt(o.pause_ns)},
          {"qd", o.qd},
          {"threads", o.threads},
          {"min_bs", o.min_bs},
          {"max_bs", o.max_bs},
          {"bs", o.bs},
          {"segments", o.segments},
          {"cliff_ratio", o.cliff_ratio},
          {"section_pct", o.section_pct},
          {"curve_fill_pct", o.curve_fill_pct},
          {"curve_pcts", o.curve_pcts},
          {"max_jobs", o.max_jobs},
          {"op_pcts", o.op_pcts},
          {"interval_ns", o.interval_ns},
          {"fill_percent", o.fill_percent},
          {"fileio_modes", o.fileio_modes},
          {"fileio_rw_ratio", o.fileio_rw_ratio}};
}

Status RunProfile(Backend& backend, RunJournal& store, int64_t run_id, int seq,
                  const ProfileDef& def, const ProfileOptions& o, ProgressSink* progress,
                  const std::atomic<bool>* stop, TestHooks* hooks) {
  SSDLAB_RETURN_IF_ERROR(ValidateProfileOptions(def, o));
  json params = {{"profile", def.name},
                 {"kind", def.kind},
                 {"description", def.description},
                 {"file", def.file}};
  if (def.kind == "curve") params["mix"] = CurveMixJson(def.curve);
  SSDLAB_ASSIGN_OR_RETURN(int64_t test_id, store.BeginTest(run_id, seq, def.name, params));
  PtsOptions po;
  po.seed = o.seed;
  po.purge = o.purge;
  po.percentiles = o.percentiles;
  pts::TestEnv env{backend, store, po, progress, stop, seq, def.name, test_id};
  Runner runner(env);
  Ctx c{runner, def, o};
  if (hooks) hooks->OnTestStart(def.name);
  std::vector<double> levels = o.fill_pcts;
  if (levels.empty()) levels = {-1};
  json out_levels = json::array();
  std::vector<Summary> sums;
  Status failed;
  for (double level : levels) {
    json prep = nullptr;
    uint64_t base = 0;
    if (level >= 0) {
      uint64_t fill =
          AlignDown(static_cast<uint64_t>(static_cast<double>(c.capacity()) * level / 100), kAlign);
      runner.Report({.stage = "fill",
                     .message = "fill level " + FormatBytes(fill) + " (" +
                                std::to_string(static_cast<int>(level)) + "%)"});
      std::vector<PhaseItem> items;
      if (fill) items.push_back({"fill", SeqFill(c, 0, fill)});
      std::string method;
      auto st = c.Step(items, true, &method);
      if (!st.ok()) {
        failed = st.status();
        break;
      }
      prep = {{"purge_method", method},
              {"filled_bytes", fill},
              {"mb_s", fill ? MBps(st->at(0).result, st->at(0).result.dirs[1]) : 0.0}};
      base = UsesFreeSpace(def.kind) ? fill : 0;
    }
    Summary sum;
    c.notes.clear();
    auto res = RunKind(c, base, level >= 0, sum);
    if (!res.ok()) {
      failed = res.status();
      break;
    }
    json sj = json::array();
    for (const auto& [k, v] : sum) sj.push_back({{"metric", k}, {"value", v}});
    out_levels.push_back({{"fill_pct", level >= 0 ? json(level) : json(nullptr)},
                          {"preparation", prep},
                          {"workspace_begin_bytes", base},
                          {"summary", sj},
                          {"notes", c.notes},
                          {"results", res.value()}});
    sums.push_back(std::move(sum));
  }
  json health = hooks ? hooks->OnTestEnd(def.name) : json(nullptr);
  if (!failed.ok()) return failed;
  // Differences between fill levels, relative to the first level.
  json diffs = json::array();
  if (sums.size() >= 2) {
    for (const auto& [k, v0] : sums.front()) {
      json values = json::array();
      double last = v0;
      bool all = true;
      for (const Summary& s : sums) {
        auto it = std::find_if(s.begin(), s.end(), [&](const auto& p) { return p.first == k; });
        if (it == s.end()) {
          all = false;
          break;
        }
        values.push_back(it->second);
        last = it->second;
      }
      if (!all) continue;
      diffs.push_back({{"metric", k},
                       {"values", values},
                       {"change_pct", v0 != 0 ? (last / v0 - 1) * 100 : 0.0}});
    }
  }
  json results = {{"profile", def.name},
                  {"kind", def.kind},
                  {"description", def.description},
                  {"fill_levels", o.fill_pcts},
                  {"levels", out_levels},
                  {"differences", diffs},
                  {"health", health}};
  return store.FinishTest(test_id, json::object(), results);
}

}  // namespace ssdlab
