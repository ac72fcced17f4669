// Temperature and health during runs: a cheap per-interval sample (temperature, thermal
// throttling where the drive says so) and full SMART snapshots before and after a test with
// their deltas. Targets that cannot report (files on virtual disks, loop devices) say so;
// the simulator says "simulated". No figure is ever invented.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "device/identify.h"
#include "device/smart.h"

namespace ssdlab {

struct HealthSample {
  std::string source;                   // "hwmon", "smartctl", "simulated", "none"
  std::optional<double> temperature_c;  // the simulator reports 0 (modelled, not measured)
  // NVMe only, read through smartctl: critical warning bit 1 (temperature above a threshold)
  // and the minutes spent above the warning / critical composite temperature.
  std::optional<bool> thermal_warning;
  std::optional<uint64_t> warning_temp_time_min;
  std::optional<uint64_t> critical_temp_time_min;
};

struct HealthSamplerOptions {
  std::string sys_root = "/sys";
  // Fall back to smartctl when the drive has no hwmon sensor (tens of ms a call; fine once a
  // second). For NVMe drives smartctl also gives the throttling indicators.
  bool allow_smartctl = true;
  uint64_t smartctl_timeout_s = 10;
};

// Thread-compatible: one thread calls Sample()/Snapshot() at a time.
class HealthSampler {
 public:
  // Chooses the source once: an hwmon sensor (nvme, or drivetemp for SATA) when present, else
  // smartctl when installed and the transport has SMART (sata, sas, scsi, usb, nvme), else
  // none with a reason. Never fails.
  static HealthSampler ForTarget(const DeviceIdentity& id,
                                 const HealthSamplerOptions& options = {});
  // The simulator's sampler: temperature 0, source "simulated".
  static HealthSampler Simulated();

  // False for targets without a sensor and for the simulator, which models no temperature:
  // nothing is sampled then, so simulated results hold no invented readings or wall times.
  bool available() const { return source_ != "none" && source_ != "simulated"; }
  const std::string& source() const { return source_; }
  // Why nothing is available, e.g. "loop device /dev/loop3 has no temperature sensor or SMART".
  const std::string& reason() const { return reason_; }

  // One sample. With source "none" the sample carries no figures.
  HealthSample Sample();
  // Full SMART of the disk (smartctl). kUnsupported with reason() when there is none (and for
  // the simulator), or naming smartmontools when smartctl is not installed.
  Result<SmartHealth> Snapshot();

 private:
  std::string source_ = "none";
  std::string reason_;
  std::string hwmon_input_;  // ".../temp1_input" for source "hwmon"
  std::string device_path_;  // the disk, for smartctl
  bool smart_capable_ = false;
  bool nvme_ = false;
  HealthSamplerOptions options_;
};

// Changes between two snapshots of the same drive. A field is present only when both
// snapshots have it (and it did not go backwards).
struct HealthDelta {
  std::optional<uint64_t> host_writes_bytes;
  std::optional<uint64_t> media_writes_bytes;
  // media / host writes over the interval, when both exist and host writes > 0.
  std::optional<double> write_amplification;
  std::optional<uint64_t> power_on_hours;
  std::optional<double> percentage_used;
  std::optional<uint64_t> media_errors;
  std::optional<uint64_t> unsafe_shutdowns;
  std::optional<uint64_t> warning_temp_time_min;
  std::optional<uint64_t> critical_temp_time_min;
};
HealthDelta DiffHealth(const SmartHealth& before, const SmartHealth& after);

// Idle/peak/mean temperature over a run's samples; the first sample (taken before the load
// starts) is "idle".
class TemperatureSummary {
 public:
  void Add(const HealthSample& s);
  uint64_t samples() const { return n_; }
  std::optional<double> idle_c() const { return idle_; }
  std::optional<double> peak_c() const { return n_ ? std::optional<double>(max_) : std::nullopt; }
  std::optional<double> min_c() const { return n_ ? std::optional<double>(min_) : std::nullopt; }
  std::optional<double> mean_c() const {
    return n_ ? std::optional<double>(sum_ / static_cast<double>(n_)) : std::nullopt;
  }

 private:
  uint64_t n_ = 0;
  std::optional<double> idle_;
  double min_ = 0, max_ = 0, sum_ = 0;
};

}  // namespace ssdlab
