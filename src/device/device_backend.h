// The device layer's side of the Backend seam, for real targets: a Backend decorator whose
// Purge() runs the device layer's methods (ATA secure erase, SAS/NVMe format, NVMe
// sanitize, discard, zero, punch hole) under its safety checks, and a monitor that samples
// temperature during a test and takes SMART snapshots around it.
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "device/health.h"
#include "device/identify.h"

namespace ssdlab {

// Wraps a real backend. Purge methods: the PTS names (auto, secure-erase, format, sanitize,
// discard, none) mapped by transport, or any device-layer name (ata-enhanced, nvme-format,
// ...). `confirm` must match the device (device/safety.h) for whole-device methods.
std::unique_ptr<Backend> WithDevicePurge(std::unique_ptr<Backend> inner, DeviceIdentity id,
                                         bool destructive, std::string confirm);

// Samples temperature every `interval_ns` on a thread of its own between Start() and Stop(),
// and takes SMART snapshots at both ends. For "sim:" targets it reports the simulator's
// modelled 0 C with source "simulated".
class HealthMonitor {
 public:
  // `identity` is null for the simulator.
  explicit HealthMonitor(const DeviceIdentity* identity);
  ~HealthMonitor();
  void Start(uint64_t interval_ns);
  // {"source", "reason", "interval_s", "samples": [{"t_s", "temperature_c", ...}],
  //  "temperature": {idle/peak/mean/min}, "smart_before", "smart_after", "delta"}
  nlohmann::json Stop();

 private:
  HealthSampler sampler_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  nlohmann::json samples_ = nlohmann::json::array();
  TemperatureSummary summary_;
  nlohmann::json before_;
  std::optional<SmartHealth> before_smart_;
  uint64_t interval_ns_ = 0;
  uint64_t t0_ns_ = 0;
  std::string start_failure_;  // why the sampling thread did not start (base/thread.h)
};

}  // namespace ssdlab
