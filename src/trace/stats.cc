#include "trace/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/units.h"

namespace ssdlab::trace {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Kept at sampling level L when the hash's top L bits are zero (rate 2^-L).
bool Sampled(uint64_t h, uint32_t level) { return level == 0 || (h >> (64 - level)) == 0; }

std::string Pct1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

}  // namespace

StatsBuilder::StatsBuilder(const StatsOptions& o) : o_(o) {
  s_.unit_bytes = o.unit_bytes;
  shared_seq_.ends.assign(o.seq_streams, UINT64_MAX);
  Rehash(1024);
}

StatsBuilder::SeqWindow& StatsBuilder::SeqWindowOf(uint64_t device) {
  auto it = seq_windows_.find(device);
  if (it != seq_windows_.end()) return it->second;
  if (seq_windows_.size() >= o_.max_seq_devices) return shared_seq_;
  SeqWindow& w = seq_windows_[device];
  w.ends.assign(o_.seq_streams, UINT64_MAX);
  return w;
}

void StatsBuilder::Rehash(size_t capacity) {
  std::vector<std::pair<uint64_t, uint64_t>> old;
  old.swap(table_);
  table_.assign(capacity, {0, 0});
  used_ = 0;
  for (const auto& [k, c] : old) {
    if (k == 0 || !Sampled(Mix(k - 1), s_.sample_level)) continue;
    size_t i = Mix(k - 1) & (capacity - 1);
    while (table_[i].first != 0) i = (i + 1) & (capacity - 1);
    table_[i] = {k, c};
    ++used_;
  }
}

void StatsBuilder::Touch(uint64_t key) {
  const uint64_t h = Mix(key);
  if (!Sampled(h, s_.sample_level)) return;
  const size_t mask = table_.size() - 1;
  size_t i = h & mask;
  while (table_[i].first != 0) {
    if (table_[i].first == key + 1) {
      ++table_[i].second;
      return;
    }
    i = (i + 1) & mask;
  }
  table_[i] = {key + 1, 1};
  ++used_;
  if (used_ > o_.sample_units) {
    // Too many units for the memory bound: halve the sample.
    ++s_.sample_level;
    s_.working_set_exact = false;
    Rehash(table_.size());
  } else if (used_ * 2 > table_.size()) {
    Rehash(table_.size() * 2);
  }
}

void StatsBuilder::Add(const TraceRecord& r) {
  const size_t d = static_cast<size_t>(r.dir);
  if (s_.records == 0) s_.first_ns = r.time_ns;
  ++s_.records;
  ++s_.ios[d];
  s_.bytes[d] += r.bytes;
  s_.max_end_bytes = std::max(s_.max_end_bytes, r.offset_bytes + r.bytes);
  if (r.response_ns >= 0) s_.recorded[d].Record(static_cast<uint64_t>(r.response_ns));

  // Block sizes, bounded.
  bool found = false;
  for (auto& [b, n] : sizes_) {
    if (b == r.bytes) {
      ++n;
      found = true;
      break;
    }
  }
  if (!found) {
    if (sizes_.size() < o_.max_block_sizes) {
      sizes_.emplace_back(r.bytes, 1);
    } else {
      ++s_.block_sizes_other;
    }
  }
  // Keep the common sizes at the front: the linear search above stays short.
  if (sizes_.size() > 1) {
    for (size_t i = 1; i < sizes_.size() && i < 8; ++i) {
      if (sizes_[i].second > sizes_[i - 1].second) std::swap(sizes_[i], sizes_[i - 1]);
    }
  }

  // Sequentiality: starts where one of the last N I/Os of the same device ended (each device
  // its own window: another device's I/Os never push this one's out).
  const uint64_t dev_salt = r.device * 0x9e3779b97f4a7c15ULL;
  const uint64_t start_key = r.offset_bytes ^ dev_salt;
  SeqWindow& w = SeqWindowOf(r.device);
  if (!w.ends.empty()) {
    for (uint64_t e : w.ends) {
      if (e == start_key) {
        ++s_.sequential;
        break;
      }
    }
    w.ends[w.pos] = (r.offset_bytes + r.bytes) ^ dev_salt;
    w.pos = (w.pos + 1) % w.ends.size();
  }

  // Arrivals and bursts.
  if (have_prev_) {
    uint64_t gap = 0;
    if (r.time_ns >= prev_t_) {
      gap = r.time_ns - prev_t_;
    } else {
      ++s_.out_of_order;
    }
    s_.interarrival.Record(gap);
    if (gap <= o_.burst_gap_ns) {
      ++burst_len_;
    } else {
      ++s_.bursts;
      burst_sum_ += burst_len_;
      s_.burst_max_ios = std::max(s_.burst_max_ios, burst_len_);
      burst_len_ = 1;
    }
  } else {
    burst_len_ = 1;
  }
  if (!have_prev_ || r.time_ns >= prev_t_) prev_t_ = r.time_ns;
  have_prev_ = true;
  s_.last_ns = std::max(s_.last_ns, r.time_ns);

  // I/Os per second of trace time.
  const uint64_t sec = r.time_ns >= s_.first_ns ? (r.time_ns - s_.first_ns) / kNsPerS : 0;
  if (sec > sec_index_) {
    s_.iops_per_s.Record(sec_count_);
    s_.peak_iops_1s = std::max(s_.peak_iops_1s, sec_count_);
    // Idle seconds count as 0 I/Os, all of them, at once (a gap of years costs nothing).
    s_.iops_per_s.RecordN(0, sec - sec_index_ - 1);
    sec_index_ = sec;
    sec_count_ = 0;
  }
  ++sec_count_;

  // Devices.
  if (devices_.size() < 1024 &&
      std::find(devices_.begin(), devices_.end(), r.device) == devices_.end()) {
    devices_.push_back(r.device);
  }

  // Working set and skew: every unit the I/O covers.
  if (r.bytes > 0) {
    const uint64_t first = r.offset_bytes / o_.unit_bytes;
    const uint64_t last = (r.offset_bytes + r.bytes - 1) / o_.unit_bytes;
    for (uint64_t u = first; u <= last; ++u) Touch(u ^ (dev_salt & 0xfff0000000000000ULL));
  }
}

TraceStats StatsBuilder::Finish() {
  if (s_.records > 0) {
    ++s_.bursts;
    burst_sum_ += burst_len_;
    s_.burst_max_ios = std::max(s_.burst_max_ios, burst_len_);
    s_.burst_mean_ios = static_cast<double>(burst_sum_) / static_cast<double>(s_.bursts);
    s_.iops_per_s.Record(sec_count_);
    s_.peak_iops_1s = std::max(s_.peak_iops_1s, sec_count_);
  }
  s_.duration_ns = s_.last_ns - s_.first_ns;
  s_.devices = devices_.size();
  s_.block_sizes = sizes_;
  std::sort(s_.block_sizes.begin(), s_.block_sizes.end());
  std::vector<uint64_t> counts;
  counts.reserve(used_);
  uint64_t total = 0;
  for (const auto& [k, c] : table_) {
    if (k == 0) continue;
    counts.push_back(c);
    total += c;
  }
  s_.working_set_units = static_cast<uint64_t>(counts.size()) << s_.sample_level;
  std::sort(counts.begin(), counts.end(), std::greater<uint64_t>());
  auto share = [&](double frac) {
    if (counts.empty() || total == 0) return 0.0;
    size_t k = static_cast<size_t>(std::ceil(frac * static_cast<double>(counts.size())));
    k = std::max<size_t>(1, std::min(k, counts.size()));
    uint64_t sum = 0;
    for (size_t i = 0; i < k; ++i) sum += counts[i];
    return 100.0 * static_cast<double>(sum) / static_cast<double>(total);
  };
  s_.hot_1pct = share(0.01);
  s_.hot_10pct = share(0.10);
  s_.hot_20pct = share(0.20);
  return s_;
}

std::string SuggestRunFlags(const TraceStats& s) {
  const uint64_t rw_ios = s.ios[0] + s.ios[1];
  if (rw_ios == 0) return "";
  const double read_pct = 100.0 * static_cast<double>(s.ios[0]) / static_cast<double>(rw_ios);
  const bool seq = s.records && s.sequential * 2 > s.records;
  std::string rw;
  if (s.ios[1] == 0) {
    rw = seq ? "read" : "randread";
  } else if (s.ios[0] == 0) {
    rw = seq ? "write" : "randwrite";
  } else {
    rw = seq ? "rw" : "randrw";
  }
  std::string out = "--rw " + rw;
  if (s.ios[0] && s.ios[1]) out += " --rwmix-read " + std::to_string(std::lround(read_pct));
  // Block sizes covering 95% of I/Os, at most 6, shares summing to 100.
  std::vector<std::pair<uint32_t, uint64_t>> by_count = s.block_sizes;
  std::sort(by_count.begin(), by_count.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  uint64_t all = 0;
  for (const auto& b : by_count) all += b.second;
  std::vector<std::pair<uint32_t, uint64_t>> pick;
  uint64_t covered = 0;
  for (const auto& b : by_count) {
    if (pick.size() == 6 || (all && covered * 100 >= all * 95)) break;
    if (b.first == 0) continue;
    pick.push_back(b);
    covered += b.second;
  }
  if (pick.size() == 1 || covered == 0) {
    out += " --bs " + CompactBytes(pick.empty() ? 4096 : pick[0].first);
  } else {
    std::sort(pick.begin(), pick.end());
    std::vector<long> pct;
    long sum = 0;
    for (const auto& b : pick) {
      long p = std::max(1L, std::lround(100.0 * static_cast<double>(b.second) / covered));
      pct.push_back(p);
      sum += p;
    }
    // Absorb rounding in the largest share.
    size_t big = std::max_element(pct.begin(), pct.end()) - pct.begin();
    pct[big] += 100 - sum;
    out += " --bs ";
    for (size_t i = 0; i < pick.size(); ++i) {
      if (i) out += ",";
      out += CompactBytes(pick[i].first) + ":" + std::to_string(pct[i]);
    }
  }
  if (!seq && s.working_set_units > 10) {
    // Zones: hottest 1%, the next 9%, the next 10%, the rest, as access%/range%.
    double a1 = std::round(s.hot_1pct * 10) / 10;
    double a10 = std::max(0.0, std::round((s.hot_10pct - s.hot_1pct) * 10) / 10);
    double a20 = std::max(0.0, std::round((s.hot_20pct - s.hot_10pct) * 10) / 10);
    double rest = std::round((100.0 - a1 - a10 - a20) * 10) / 10;
    if (rest < 0) rest = 0;
    const bool uniformish = s.hot_20pct < 25;
    if (!uniformish) {
      out += " --dist zoned:" + Pct1(a1) + "/1:" + Pct1(a10) + "/9:" + Pct1(a20) +
             "/10:" + Pct1(rest) + "/80";
    }
    uint64_t ws = s.working_set_units * s.unit_bytes;
    ws = (ws + kMiB - 1) / kMiB * kMiB;
    out += " --range 0-" + CompactBytes(ws);
  }
  if (s.duration_ns > 0 && s.records > 1) {
    const double iops =
        static_cast<double>(s.records - 1) * 1e9 / static_cast<double>(s.duration_ns);
    out += " --rate-iops " + std::to_string(std::max(1L, std::lround(iops)));
    uint64_t resp_sum = 0;
    for (const auto& h : s.recorded) resp_sum += h.sum();
    if (resp_sum > 0) {
      const double qd = static_cast<double>(resp_sum) / static_cast<double>(s.duration_ns);
      out += " --qd " + std::to_string(std::max(1L, std::lround(std::ceil(qd))));
    }
  }
  return out;
}

}  // namespace ssdlab::trace
