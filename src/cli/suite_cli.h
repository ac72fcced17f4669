// Pieces shared by the commands that run suites (`pts`, `profile`): progress output, health
// hooks around each test, default run names.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/device_backend.h"
#include "suite/pts.h"

namespace ssdlab {

// A status line on a terminal (one line per round and point otherwise), or one JSON event per
// line with --progress json; everything on stderr.
class CliProgress : public ProgressSink {
 public:
  CliProgress(bool json_lines, bool tty) : json_(json_lines), tty_(tty) {}
  void OnEvent(const ProgressEvent& e) override;
  // Clears the status line.
  void Done();

 private:
  bool json_, tty_;
};

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

}  // namespace ssdlab
