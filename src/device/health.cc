#include "device/health.h"

#include <filesystem>

#include "base/process.h"
#include "device/sysfs.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

// temp1_input of the first hwmon device under `base` ("hwmonN" or "hwmon/hwmonN").
std::string FindHwmonInput(const fs::path& base) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(base, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind("hwmon", 0) != 0) continue;
    if (fs::exists(e.path() / "temp1_input")) return (e.path() / "temp1_input").string();
    for (const auto& inner : fs::directory_iterator(e.path(), ec)) {
      if (inner.path().filename().string().rfind("hwmon", 0) == 0 &&
          fs::exists(inner.path() / "temp1_input")) {
        return (inner.path() / "temp1_input").string();
      }
    }
  }
  return "";
}

bool HasSmart(Transport t) {
  return t == Transport::kSata || t == Transport::kSas || t == Transport::kScsi ||
         t == Transport::kUsb || t == Transport::kNvme;
}

std::optional<uint64_t> Grew(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b) {
  if (!a || !b || *b < *a) return std::nullopt;
  return *b - *a;
}

}  // namespace

HealthSampler HealthSampler::ForTarget(const DeviceIdentity& id,
                                       const HealthSamplerOptions& options) {
  HealthSampler s;
  s.options_ = options;
  if (!id.disk) {
    s.reason_ = id.disk_note.empty() ? id.path + " has no backing disk to read a temperature from"
                                     : id.disk_note + "; no temperature to read";
    return s;
  }
  const DiskIdentity& d = *id.disk;
  s.device_path_ = d.dev_path;
  s.nvme_ = d.transport == Transport::kNvme;
  s.smart_capable_ = HasSmart(d.transport);
  fs::path disk = fs::path(options.sys_root) / "block" / d.name;
  for (const fs::path& base : {disk / "device", disk / "device/device"}) {
    s.hwmon_input_ = FindHwmonInput(base);
    if (!s.hwmon_input_.empty()) break;
  }
  std::string what = std::string(TransportName(d.transport)) + " device " + d.dev_path;
  if (id.kind == "file" || id.kind == "directory")
    what = "the disk of " + id.path + " (" + what + ")";
  if (!s.hwmon_input_.empty()) {
    s.source_ = "hwmon";
  } else if (!s.smart_capable_) {
    s.reason_ = what + " has no temperature sensor or SMART";
  } else if (!options.allow_smartctl) {
    s.reason_ = what + " has no hwmon sensor and smartctl is not allowed";
  } else if (FindTool("smartctl").empty()) {
    s.reason_ =
        what + " has no hwmon sensor and smartctl is not installed (apt-get install smartmontools)";
  } else {
    s.source_ = "smartctl";
  }
  return s;
}

HealthSampler HealthSampler::Simulated() {
  HealthSampler s;
  s.source_ = "simulated";
  s.reason_ = "a simulated drive models no temperature";
  return s;
}

HealthSample HealthSampler::Sample() {
  HealthSample out;
  out.source = source_;
  if (source_ == "hwmon") {
    std::string v = ReadSysLine(hwmon_input_);
    if (!v.empty()) {
      try {
        out.temperature_c = std::stod(v) / 1000.0;  // millidegrees Celsius
      } catch (...) {
      }
    }
  } else if (source_ == "smartctl") {
    auto h = ReadSmart(device_path_, options_.smartctl_timeout_s);
    if (h.ok()) {
      out.temperature_c = h->temperature_c;
      if (h->critical_warning) out.thermal_warning = (*h->critical_warning & 0x2) != 0;
      out.warning_temp_time_min = h->warning_temp_time_min;
      out.critical_temp_time_min = h->critical_temp_time_min;
    }
  }
  return out;
}

Result<SmartHealth> HealthSampler::Snapshot() {
  if (source_ == "simulated") {
    return Status::Error(Code::kUnsupported,
                         "simulated target: no SMART (figures come from the model)");
  }
  if (!smart_capable_) {
    return Status::Error(Code::kUnsupported,
                         reason_.empty() ? "no SMART for this target" : reason_);
  }
  return ReadSmart(device_path_, options_.smartctl_timeout_s);
}

HealthDelta DiffHealth(const SmartHealth& a, const SmartHealth& b) {
  HealthDelta d;
  d.host_writes_bytes = Grew(a.host_writes_bytes, b.host_writes_bytes);
  d.media_writes_bytes = Grew(a.media_writes_bytes, b.media_writes_bytes);
  if (d.host_writes_bytes && d.media_writes_bytes && *d.host_writes_bytes > 0) {
    d.write_amplification =
        static_cast<double>(*d.media_writes_bytes) / static_cast<double>(*d.host_writes_bytes);
  }
  d.power_on_hours = Grew(a.power_on_hours, b.power_on_hours);
  if (a.percentage_used && b.percentage_used)
    d.percentage_used = *b.percentage_used - *a.percentage_used;
  d.media_errors = Grew(a.media_errors, b.media_errors);
  d.unsafe_shutdowns = Grew(a.unsafe_shutdowns, b.unsafe_shutdowns);
  d.warning_temp_time_min = Grew(a.warning_temp_time_min, b.warning_temp_time_min);
  d.critical_temp_time_min = Grew(a.critical_temp_time_min, b.critical_temp_time_min);
  return d;
}

void TemperatureSummary::Add(const HealthSample& s) {
  if (!s.temperature_c) return;
  double t = *s.temperature_c;
  if (n_ == 0) {
    idle_ = t;
    min_ = max_ = t;
  }
  min_ = std::min(min_, t);
  max_ = std::max(max_, t);
  sum_ += t;
  ++n_;
}

}  // namespace ssdlab
