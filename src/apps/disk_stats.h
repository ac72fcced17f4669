// What the drive under an application test did meanwhile: the block layer's counters of the
// device backing the data directory (/sys/dev/block/MAJ:MIN/stat, Documentation/block/stat.rst)
// sampled once a second into IOPS, MB/s, mean service time and utilisation, with the drive's
// temperature beside them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "device/health.h"
#include "results/app.h"

namespace ssdlab {

// The cumulative counters of one stat file.
struct BlockStat {
  uint64_t read_ios = 0, read_sectors = 0, read_ticks_ms = 0;
  uint64_t write_ios = 0, write_sectors = 0, write_ticks_ms = 0;
  uint64_t io_ticks_ms = 0;
  uint64_t discard_ios = 0, flush_ios = 0;  // 0 on kernels that do not report them
};
// Invalid when the text has fewer than the 11 classic fields.
Result<BlockStat> ParseBlockStat(const std::string& text);

// One second of the counters, as stored (results/app.h).
using DiskSecond = results::DeviceSecond;
// The interval from `a` to `b`, `dt_s` seconds long, ending at `t_s`.
DiskSecond DiffBlockStat(const BlockStat& a, const BlockStat& b, double dt_s, double t_s);

// Samples `stat_path` every `interval_ns` on its own thread between Start() and Stop(); with
// a health sampler, the temperature too.
class DiskSampler {
 public:
  DiskSampler(std::string stat_path, std::optional<HealthSampler> health, uint64_t interval_ns)
      : path_(std::move(stat_path)), health_(std::move(health)), interval_ns_(interval_ns) {}
  ~DiskSampler() { Stop(); }
  // IoError when its thread cannot start (base/thread.h).
  Status Start();
  void Stop();
  // Valid after Stop().
  const std::vector<DiskSecond>& seconds() const { return seconds_; }
  // {"stat_path", "per_second": [...], "summary": {means and peaks}, "temperature": {...}}.
  // The seconds, their means and the temperature, as stored.
  results::AppDevice Record() const;

 private:
  void Loop();
  std::string path_;
  std::optional<HealthSampler> health_;
  uint64_t interval_ns_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<DiskSecond> seconds_;
  TemperatureSummary temps_;
};

}  // namespace ssdlab
