// SMART / health through smartmontools: `smartctl --json -a DEV`, parsed into the figures a
// review reports. Every figure is optional: drives report different subsets, and a missing
// figure is absent, never guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

struct SmartHealth {
  std::string protocol;  // "ATA", "NVMe", "SCSI" (smartctl's device.protocol)
  std::string model;
  std::string serial;
  std::string firmware;
  std::optional<bool> passed;  // overall self-assessment
  std::optional<double> temperature_c;
  std::optional<uint64_t> power_on_hours;
  std::optional<uint64_t> power_cycles;
  std::optional<uint64_t> host_reads_bytes;
  std::optional<uint64_t> host_writes_bytes;   // written by hosts
  std::optional<uint64_t> media_writes_bytes;  // written to NAND (host + GC + wear levelling)
  std::optional<double> percentage_used;       // endurance used, may exceed 100
  std::optional<uint64_t> available_spare_pct;
  std::optional<uint64_t> media_errors;  // NVMe media errors, ATA 187, SCSI uncorrected
  std::optional<uint64_t> unsafe_shutdowns;
  std::optional<uint64_t> critical_warning;        // NVMe bit field (bit 1: temperature)
  std::optional<uint64_t> warning_temp_time_min;   // NVMe: minutes above the warning threshold
  std::optional<uint64_t> critical_temp_time_min;  // NVMe: minutes above the critical threshold
  // How vendor-specific figures were read, e.g. "host writes: ATA attribute 241
  // Total_LBAs_Written x 512 bytes".
  std::vector<std::string> notes;
};

// Parses smartctl's JSON output (json_format_version 1, smartmontools 7.0+). Invalid when it
// is not JSON or not from smartctl; Io, quoting smartctl's error message, when it says it could
// not parse its command line or open the device (smartctl.exit_status bits 0-1).
Result<SmartHealth> ParseSmartctlJson(const std::string& text);

// Runs `smartctl --json -a <device_path>` (at most `timeout_s`). kUnsupported naming
// smartmontools when smartctl is not installed; Io naming smartctl's own message when it fails.
Result<SmartHealth> ReadSmart(const std::string& device_path, uint64_t timeout_s = 60);

}  // namespace ssdlab
