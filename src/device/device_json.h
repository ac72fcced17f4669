// JSON forms of device facts, for `ssdlab info`, purge plans and run records. Every key is
// always present; figures a device does not report are null (ARCHITECTURE.md rule 5).
#pragma once

#include <nlohmann/json.hpp>

#include "device/health.h"
#include "device/identify.h"
#include "device/purge.h"
#include "device/smart.h"

namespace ssdlab {

nlohmann::json DiskJson(const DiskIdentity& d);
// {"path", "resolved_path", "kind", "size_bytes", "size_gb", "size_gib", "partition", ...,
//  "disk": DiskJson or null, "disk_note"}
nlohmann::json IdentityJson(const DeviceIdentity& id);
nlohmann::json SmartJson(const SmartHealth& h);
nlohmann::json HealthSampleJson(const HealthSample& s);
nlohmann::json HealthDeltaJson(const HealthDelta& d);
// {"samples", "idle_c", "peak_c", "mean_c", "min_c"}
nlohmann::json TemperatureJson(const TemperatureSummary& t);
// {"method", "requested", "whole_device", "steps": [text...], "notes": [...], "target": ...}
nlohmann::json PurgePlanJson(const PurgePlan& p);

}  // namespace ssdlab
