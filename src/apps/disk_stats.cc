#include "apps/disk_stats.h"

#include <fstream>
#include <sstream>

#include "base/clock.h"
#include "base/thread.h"

namespace ssdlab {

Result<BlockStat> ParseBlockStat(const std::string& text) {
  std::istringstream in(text);
  std::vector<uint64_t> f;
  for (uint64_t v; in >> v;) f.push_back(v);
  if (f.size() < 11)
    return Status::Invalid("block stat has " + std::to_string(f.size()) + " fields, expected 11+");
  BlockStat s;
  s.read_ios = f[0];
  s.read_sectors = f[2];
  s.read_ticks_ms = f[3];
  s.write_ios = f[4];
  s.write_sectors = f[6];
  s.write_ticks_ms = f[7];
  s.io_ticks_ms = f[9];
  if (f.size() >= 15) s.discard_ios = f[11];
  if (f.size() >= 17) s.flush_ios = f[15];
  return s;
}

DiskSecond DiffBlockStat(const BlockStat& a, const BlockStat& b, double dt_s, double t_s) {
  auto d = [](uint64_t x, uint64_t y) { return static_cast<double>(y >= x ? y - x : 0); };
  DiskSecond s;
  s.t_s = t_s;
  if (dt_s <= 0) return s;
  double r = d(a.read_ios, b.read_ios), w = d(a.write_ios, b.write_ios);
  s.read_iops = r / dt_s;
  s.write_iops = w / dt_s;
  s.read_mb_s = d(a.read_sectors, b.read_sectors) * 512 / 1e6 / dt_s;
  s.write_mb_s = d(a.write_sectors, b.write_sectors) * 512 / 1e6 / dt_s;
  s.read_lat_ms = r > 0 ? d(a.read_ticks_ms, b.read_ticks_ms) / r : 0;
  s.write_lat_ms = w > 0 ? d(a.write_ticks_ms, b.write_ticks_ms) / w : 0;
  s.util_pct = std::min(100.0, d(a.io_ticks_ms, b.io_ticks_ms) / (dt_s * 1000) * 100);
  s.flush_per_s = d(a.flush_ios, b.flush_ios) / dt_s;
  return s;
}

namespace {

std::optional<BlockStat> ReadStat(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto s = ParseBlockStat(ss.str());
  if (!s.ok()) return std::nullopt;
  return s.value();
}

}  // namespace

Status DiskSampler::Start() {
  stop_ = false;
  SSDLAB_ASSIGN_OR_RETURN(thread_, StartThread([this] { Loop(); }, "the device sampler's thread"));
  return Status::Ok();
}

void DiskSampler::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DiskSampler::Loop() {
  const uint64_t start = MonotonicNs();
  std::optional<BlockStat> prev = ReadStat(path_);
  uint64_t prev_ns = start;
  if (health_) temps_.Add(health_->Sample());  // idle temperature, before the load
  std::unique_lock<std::mutex> l(mu_);
  for (uint64_t tick = 1;; ++tick) {
    const uint64_t due = start + tick * interval_ns_;
    const uint64_t now = MonotonicNs();
    if (due > now && cv_.wait_for(l, std::chrono::nanoseconds(due - now), [this] { return stop_; }))
      return;
    l.unlock();
    const uint64_t t = MonotonicNs();
    std::optional<BlockStat> cur = ReadStat(path_);
    DiskSecond s;
    if (prev && cur) {
      s = DiffBlockStat(*prev, *cur, static_cast<double>(t - prev_ns) / 1e9,
                        static_cast<double>(t - start) / 1e9);
    } else {
      s.t_s = static_cast<double>(t - start) / 1e9;
    }
    if (health_) {
      HealthSample h = health_->Sample();
      temps_.Add(h);
      s.temperature_c = h.temperature_c;
    }
    prev = cur;
    prev_ns = t;
    l.lock();
    seconds_.push_back(s);
  }
}

results::AppDevice DiskSampler::Record() const {
  results::AppDevice out;
  out.stat_path = path_;
  out.per_second = seconds_;
  double sum_r = 0, sum_w = 0, sum_rmb = 0, sum_wmb = 0, peak_util = 0, r_lat = 0, w_lat = 0;
  double sum_util = 0;
  for (const DiskSecond& s : seconds_) {
    sum_r += s.read_iops;
    sum_w += s.write_iops;
    sum_rmb += s.read_mb_s;
    sum_wmb += s.write_mb_s;
    sum_util += s.util_pct;
    r_lat += s.read_lat_ms * s.read_iops;
    w_lat += s.write_lat_ms * s.write_iops;
    peak_util = std::max(peak_util, s.util_pct);
  }
  double n = seconds_.empty() ? 1 : static_cast<double>(seconds_.size());
  out.summary = {seconds_.size(),
                 sum_r / n,
                 sum_w / n,
                 sum_rmb / n,
                 sum_wmb / n,
                 sum_r > 0 ? r_lat / sum_r : 0,
                 sum_w > 0 ? w_lat / sum_w : 0,
                 sum_util / n,
                 peak_util};
  out.temperature = {health_ ? health_->source() : "none",
                     health_ && !health_->available() ? health_->reason() : "", temps_.idle_c(),
                     temps_.peak_c(), temps_.mean_c()};
  return out;
}

}  // namespace ssdlab
