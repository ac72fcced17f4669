// Pieces shared by the use cases that store runs (`pts`, `profile`, `app`, fleets): the health
// hooks around each test and default run names.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "device/device_backend.h"
#include "suite/pts.h"

namespace ssdlab::usecase {

// Temperature samples and SMART snapshots around each test (`identity` null: the simulator).
class HealthHooks : public TestHooks {
 public:
  HealthHooks(const DeviceIdentity* identity, uint64_t interval_ns)
      : id_(identity), interval_ns_(interval_ns) {}
  void OnTestStart(const std::string&) override;
  nlohmann::json OnTestEnd(const std::string&) override;

 private:
  const DeviceIdentity* id_;
  uint64_t interval_ns_;
  std::unique_ptr<HealthMonitor> monitor_;
};

// "PREFIX-YYYYMMDD-HHMMSS" in UTC.
std::string DefaultRunName(const std::string& prefix);

}  // namespace ssdlab::usecase
