// The review programs' benchmarks as profiles: CrystalDiskMark, ATTO, AS SSD, the AIDA64-style
// surface test and the plain fill (suite/profile_internal.h).
#include <cmath>
#include <numeric>

#include "suite/profile_internal.h"

namespace ssdlab::profile_internal {
namespace {

struct CdmLoad {
  std::string name;
  bool seq;
  uint64_t bs;
  uint32_t qd, threads;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

// ---- CrystalDiskMark ----
Result<results::CdmResults> Cdm(Ctx& c, uint64_t base, Summary& sum) {
  std::vector<CdmLoad> items = {{"SEQ1M Q8T1", true, kMiB, 8, 1},
                                {"SEQ1M Q1T1", true, kMiB, 1, 1},
                                {"RND4K Q32T1", false, 4 * kKiB, 32, 1},
                                {"RND4K Q1T1", false, 4 * kKiB, 1, 1}};
  if (c.def.kind == "cdm-nvme") {
    items = {{"SEQ1M Q8T1", true, kMiB, 8, 1},
             {"SEQ128K Q32T1", true, 128 * kKiB, 32, 1},
             {"RND4K Q32T16", false, 4 * kKiB, 32, 16},
             {"RND4K Q1T1", false, 4 * kKiB, 1, 1}};
  }
  results::CdmResults out;
  out.test_file_bytes = RoomFor(c, base, kGiB, "the test file");
  out.passes = c.o.passes ? c.o.passes : 5;
  out.pass_ns = c.PhaseNs();
  out.pause_ns = c.o.pause_ns != UINT64_MAX ? c.o.pause_ns : c.Scaled(5 * kNsPerS);
  out.rule = "best of the passes by MB/s (CrystalDiskMark); MB/s = 1,000,000 bytes/s";
  SSDLAB_RETURN_IF_ERROR(NeedRoom(c, base, out.test_file_bytes, "the test file"));
  const uint64_t end = base + out.test_file_bytes;
  // CrystalDiskMark writes its test file before measuring.
  SSDLAB_RETURN_IF_ERROR(c.Step({{"prepare", SeqFill(c, base, end)}}).status());
  for (const CdmLoad& it : items) {
    results::CdmItem row{it.name, it.bs, it.qd, it.threads, {}, {}};
    for (Direction d : {Direction::kRead, Direction::kWrite}) {
      const std::string dn = DirectionName(d);
      results::CdmDirection& dir = d == Direction::kRead ? row.read : row.write;
      // One stored step per pass, only the best pass kept: memory does not grow with the
      // passes, and an interruption keeps every pass measured before it.
      PhaseResult b;
      double best_mb = -1;
      for (uint32_t p = 0; p < out.passes; ++p) {
        WorkloadSpec s = c.Spec(it.seq, d == Direction::kRead ? 100 : 0, {{it.bs, 100}}, it.threads,
                                it.qd, base, end, out.pass_ns, 0);
        SSDLAB_ASSIGN_OR_RETURN(auto stored,
                                c.Step({{it.name + " " + dn + " pass " + std::to_string(p + 1), s,
                                         p ? out.pause_ns : 0}}));
        PhaseResult& r = stored.front().result;
        const double mb = MBps(r, r.dirs[static_cast<int>(d)]);
        dir.passes_mb_s.push_back(mb);
        if (mb > best_mb) best_mb = mb, dir.best_pass = p + 1, b = std::move(r);
      }
      const DirectionStats& ds = b.dirs[static_cast<int>(d)];
      dir.mb_s = best_mb;
      dir.iops = b.Iops(ds);
      dir.mean_us = ds.latency.Mean() / 1e3;
      dir.metrics = c.Metrics(b);
      sum.push_back({it.name + " " + dn + " MB/s", best_mb});
      if (!it.seq) sum.push_back({it.name + " " + dn + " IOPS", b.Iops(ds)});
    }
    out.items.push_back(std::move(row));
  }
  return out;
}

// ---- ATTO ----
Result<results::AttoResults> Atto(Ctx& c, uint64_t base, Summary& sum) {
  const uint64_t lo = c.o.min_bs ? c.o.min_bs : 512;
  const uint64_t hi = c.o.max_bs ? c.o.max_bs : 64 * kMiB;
  results::AttoResults out;
  out.span_bytes = RoomFor(c, base, 256 * kMiB, "the span");
  out.qd = c.o.qd ? c.o.qd : 4;
  const uint64_t span = out.span_bytes;
  SSDLAB_RETURN_IF_ERROR(NeedRoom(c, base, span, "the span"));
  for (uint64_t bs = lo; bs <= hi; bs *= 2) {
    if (bs % c.lbs() || bs > span) {
      out.skipped.push_back({bs, bs > span ? "larger than the span"
                                           : "not a multiple of the target's " +
                                                 std::to_string(c.lbs()) + "-byte logical block"});
      continue;
    }
    uint64_t io = AlignDown(span, bs);
    WorkloadSpec w = c.Spec(true, 0, {{bs, 100}}, 1, out.qd, base, base + span, c.o.time_ns, io);
    WorkloadSpec r = c.Spec(true, 100, {{bs, 100}}, 1, out.qd, base, base + span, c.o.time_ns, io);
    std::string label = pts::BlockLabel(bs);
    SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{label + " write", w}, {label + " read", r}}));
    const PhaseResult& pw = Find(st, label + " write");
    const PhaseResult& pr = Find(st, label + " read");
    results::AttoRow row;
    row.block_bytes = bs;
    row.write_mb_s = MBps(pw, pw.dirs[1]);
    row.read_mb_s = MBps(pr, pr.dirs[0]);
    row.write_iops = pw.Iops(pw.dirs[1]);
    row.read_iops = pr.Iops(pr.dirs[0]);
    row.write = c.Metrics(pw);
    row.read = c.Metrics(pr);
    sum.push_back({label + " write MB/s", row.write_mb_s});
    sum.push_back({label + " read MB/s", row.read_mb_s});
    out.rows.push_back(std::move(row));
  }
  if (out.rows.empty()) {
    std::string why;
    for (const results::AttoSkipped& k : out.skipped)
      why += (why.empty() ? "" : "; ") + FormatBytes(k.block_bytes) + ": " + k.reason;
    return Status::Invalid("atto: no block size from " + FormatBytes(lo) + " to " +
                           FormatBytes(hi) + " can be measured (" + why + ")");
  }
  return out;
}

// ---- AS SSD ----
// Score weights as published by Tom's Hardware ("Three PCI Express-Based SSDs", 2011, page
// "New AS SSD Benchmark") and ssd-tester.com: the program's author has not published them, so
// this is the third-party formula, applied to our MB/s figures.
Result<results::AsSsdResults> AsSsd(Ctx& c, uint64_t base, Summary& sum) {
  const uint64_t size = RoomFor(c, base, kGiB, "the test file");
  const uint64_t t = c.PhaseNs();
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
  results::AsSsdResults out;
  out.seq = {mb(seq, "Seq read", 0), mb(seq, "Seq write", 1)};
  out.k4 = {mb(k, "4K read", 0), mb(k, "4K write", 1)};
  out.k4_64thrd = {mb(k64, "4K-64Thrd read", 0), mb(k64, "4K-64Thrd write", 1)};
  out.seq_block_bytes = seq_bs;
  out.access_read_ms = Find(acc, "Acc.time read").dirs[0].latency.Mean() / 1e6;
  out.access_write_ms = Find(acc, "Acc.time write").dirs[1].latency.Mean() / 1e6;
  out.access_write_block_bytes = small;
  const double sr = out.seq.read_mb_s, sw = out.seq.write_mb_s, kr = out.k4.read_mb_s,
               kw = out.k4.write_mb_s, tr = out.k4_64thrd.read_mb_s, tw = out.k4_64thrd.write_mb_s;
  const double read_score = 0.1 * sr + kr + tr;
  const double write_score = 0.1 * sw + kw + tw;
  const double total = 0.1 * sr + 0.15 * sw + 2 * kr + kw + 1.5 * tr + tw;
  out.score_read = std::round(read_score);
  out.score_write = std::round(write_score);
  out.score_total = std::round(total);
  out.score_formula =
      "read = 0.1*SeqR + 4KR + 4K64R; write = 0.1*SeqW + 4KW + 4K64W; total = 0.1*SeqR + "
      "0.15*SeqW + 2*4KR + 4KW + 1.5*4K64R + 4K64W (MB/s). Source: Tom's Hardware 2011 'New AS "
      "SSD Benchmark' and ssd-tester.com; not published by AS SSD's author, so an approximation "
      "of the program's score";
  out.test_file_bytes = size;
  out.time_ns = t;
  sum.insert(sum.end(), {{"Seq read MB/s", sr},
                         {"Seq write MB/s", sw},
                         {"4K read MB/s", kr},
                         {"4K write MB/s", kw},
                         {"4K-64Thrd read MB/s", tr},
                         {"4K-64Thrd write MB/s", tw},
                         {"Acc.time read ms", out.access_read_ms},
                         {"Acc.time write ms", out.access_write_ms},
                         {"score read", read_score},
                         {"score write", write_score},
                         {"score total", total}});
  return out;
}

// ---- Surface (AIDA64 linear write / read) ----
Result<results::SurfaceResults> Surface(Ctx& c, Summary& sum) {
  const uint64_t cap = c.capacity();
  results::SurfaceResults out;
  out.block_bytes = c.o.bs ? c.o.bs : kMiB;
  out.qd = c.o.qd ? c.o.qd : 4;
  out.cliff_ratio = c.o.cliff_ratio;
  const uint64_t bs = out.block_bytes;
  uint32_t segments = c.o.segments ? c.o.segments : 100;
  if (bs % c.lbs())
    return Status::Invalid("surface: --bs " + std::to_string(bs) +
                           " is not a multiple of the target's logical block");
  const uint64_t seg = out.segment_bytes = AlignDown(cap / segments, bs);
  if (seg == 0) return Status::Invalid("surface: the target is smaller than --segments x --bs");
  std::vector<PhaseItem> writes, reads;
  for (uint32_t i = 0; i < segments; ++i) {
    uint64_t b = i * seg;
    writes.push_back({"write " + std::to_string(i),
                      c.Spec(true, 0, {{bs, 100}}, 1, out.qd, b, b + seg, 0, seg)});
  }
  for (uint32_t i = 0; i < segments; ++i) {
    uint64_t b = i * seg;
    reads.push_back({"read " + std::to_string(i),
                     c.Spec(true, 100, {{bs, 100}}, 1, out.qd, b, b + seg, 0, seg)});
  }
  c.r.Report({.stage = "phase",
              .message = "linear write of " + FormatBytes(seg * segments) + " in " +
                         std::to_string(segments) + " segments"});
  SSDLAB_ASSIGN_OR_RETURN(auto ws, c.Step(writes));
  c.r.Report({.stage = "phase", .message = "linear read"});
  SSDLAB_ASSIGN_OR_RETURN(auto rs, c.Step(reads));
  std::vector<double> w, r;
  auto pct_of = [&](uint64_t pos) {
    return 100.0 * static_cast<double>(pos) / static_cast<double>(cap);
  };
  for (uint32_t i = 0; i < segments; ++i) {
    const PhaseResult& pw = ws[i].result;
    const PhaseResult& pr = rs[i].result;
    w.push_back(MBps(pw, pw.dirs[1]));
    r.push_back(MBps(pr, pr.dirs[0]));
    out.points.push_back({i, i * seg, pct_of(i * seg), w.back(), r.back()});
  }
  // The cliff: the first segment below cliff_ratio x the median of the segments before it,
  // with the rest of the surface also below that level on average.
  for (uint32_t i = 1; i < segments; ++i) {
    double before = Median(std::vector<double>(w.begin(), w.begin() + i));
    double rest = std::accumulate(w.begin() + i, w.end(), 0.0) / static_cast<double>(segments - i);
    if (w[i] < c.o.cliff_ratio * before && rest < c.o.cliff_ratio * before) {
      out.cliff = {true, i, i * seg, pct_of(i * seg), before, rest};
      break;
    }
  }
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  out.write_mean_mb_s = mean(w);
  out.read_mean_mb_s = mean(r);
  sum.insert(sum.end(), {{"write mean MB/s", mean(w)},
                         {"write min MB/s", *std::min_element(w.begin(), w.end())},
                         {"read mean MB/s", mean(r)},
                         {"read min MB/s", *std::min_element(r.begin(), r.end())}});
  if (out.cliff.found) sum.push_back({"write cliff position %", out.cliff.position_pct});
  return out;
}

// ---- fill ----
Result<results::FillResults> Fill(Ctx& c, Summary& sum) {
  results::FillResults out;
  uint64_t end = AlignDown(
      static_cast<uint64_t>(static_cast<double>(c.capacity()) * c.o.fill_percent / 100), kAlign);
  if (end == 0) return out;
  WorkloadSpec s = SeqFill(c, 0, end);
  s.interval_ns = kNsPerS;
  SSDLAB_ASSIGN_OR_RETURN(auto st, c.Step({{"fill", s}}));
  const PhaseResult& r = st[0].result;
  out.filled_bytes = end;
  out.percent = c.o.fill_percent;
  out.mb_s = MBps(r, r.dirs[1]);
  out.metrics = c.Metrics(r);
  sum.push_back({"fill MB/s", out.mb_s});
  return out;
}

}  // namespace ssdlab::profile_internal
