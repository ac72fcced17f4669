#include "device/device_json.h"

namespace ssdlab {
namespace {

using nlohmann::json;

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

json DiskJson(const DiskIdentity& d) {
  json formats = json::array();
  for (const NvmeLbaFormat& f : d.nvme_lba_formats) {
    formats.push_back({{"index", f.index},
                       {"data_bytes", f.data_bytes},
                       {"metadata_bytes", f.metadata_bytes},
                       {"relative_performance", f.relative_performance},
                       {"in_use", f.in_use}});
  }
  return {
      {"name", d.name},
      {"dev_path", d.dev_path},
      {"devno", d.devno},
      {"transport", TransportName(d.transport)},
      {"vendor", d.vendor},
      {"model", d.model},
      {"serial", d.serial},
      {"firmware", d.firmware},
      {"wwn", d.wwn},
      {"capacity_bytes", d.capacity_bytes},
      {"capacity_gb", DecimalGb(d.capacity_bytes)},
      {"capacity_gib", BinaryGib(d.capacity_bytes)},
      {"logical_sector_bytes", d.logical_sector_bytes},
      {"physical_sector_bytes", d.physical_sector_bytes},
      {"rotational", d.rotational},
      {"read_only", d.read_only},
      {"removable", d.removable},
      {"nr_requests", d.nr_requests},
      {"device_queue_depth", d.device_queue_depth},
      {"scheduler", d.scheduler},
      {"write_cache", d.write_cache},
      {"discard_max_bytes", d.discard_max_bytes},
      {"write_zeroes_max_bytes", d.write_zeroes_max_bytes},
      {"nvme_controller", d.nvme_controller},
      {"nvme_namespace_id", d.nvme_namespace_id},
      {"nvme_lba_formats", formats},
      {"loop_backing_file", d.loop_backing_file},
  };
}

json IdentityJson(const DeviceIdentity& id) {
  return {
      {"path", id.path},
      {"resolved_path", id.resolved_path},
      {"kind", id.kind},
      {"size_bytes", id.size_bytes},
      {"size_gb", DecimalGb(id.size_bytes)},
      {"size_gib", BinaryGib(id.size_bytes)},
      {"partition", id.partition},
      {"partition_start_bytes", id.partition_start_bytes},
      {"file_allocated_bytes", id.file_allocated_bytes},
      {"filesystem", id.filesystem},
      {"mount_point", id.mount_point},
      {"disk", id.disk ? DiskJson(*id.disk) : json(nullptr)},
      {"disk_note", id.disk_note},
  };
}

json SmartJson(const SmartHealth& h) {
  return {
      {"protocol", h.protocol},
      {"model", h.model},
      {"serial", h.serial},
      {"firmware", h.firmware},
      {"passed", Opt(h.passed)},
      {"temperature_c", Opt(h.temperature_c)},
      {"power_on_hours", Opt(h.power_on_hours)},
      {"power_cycles", Opt(h.power_cycles)},
      {"host_reads_bytes", Opt(h.host_reads_bytes)},
      {"host_writes_bytes", Opt(h.host_writes_bytes)},
      {"media_writes_bytes", Opt(h.media_writes_bytes)},
      {"percentage_used", Opt(h.percentage_used)},
      {"available_spare_pct", Opt(h.available_spare_pct)},
      {"media_errors", Opt(h.media_errors)},
      {"unsafe_shutdowns", Opt(h.unsafe_shutdowns)},
      {"critical_warning", Opt(h.critical_warning)},
      {"warning_temp_time_min", Opt(h.warning_temp_time_min)},
      {"critical_temp_time_min", Opt(h.critical_temp_time_min)},
      {"notes", h.notes},
  };
}

json HealthSampleJson(const HealthSample& s) {
  return {{"source", s.source},
          {"temperature_c", Opt(s.temperature_c)},
          {"thermal_warning", Opt(s.thermal_warning)},
          {"warning_temp_time_min", Opt(s.warning_temp_time_min)},
          {"critical_temp_time_min", Opt(s.critical_temp_time_min)}};
}

json HealthDeltaJson(const HealthDelta& d) {
  return {{"host_writes_bytes", Opt(d.host_writes_bytes)},
          {"media_writes_bytes", Opt(d.media_writes_bytes)},
          {"write_amplification", Opt(d.write_amplification)},
          {"power_on_hours", Opt(d.power_on_hours)},
          {"percentage_used", Opt(d.percentage_used)},
          {"media_errors", Opt(d.media_errors)},
          {"unsafe_shutdowns", Opt(d.unsafe_shutdowns)},
          {"warning_temp_time_min", Opt(d.warning_temp_time_min)},
          {"critical_temp_time_min", Opt(d.critical_temp_time_min)}};
}

json TemperatureJson(const TemperatureSummary& t) {
  return {{"samples", t.samples()},
          {"idle_c", Opt(t.idle_c())},
          {"peak_c", Opt(t.peak_c())},
          {"mean_c", Opt(t.mean_c())},
          {"min_c", Opt(t.min_c())}};
}

json PurgePlanJson(const PurgePlan& p) {
  json steps = json::array();
  for (const PurgeStep& s : p.steps) steps.push_back(s.text);
  return {{"method", PurgeMethodName(p.method)},
          {"requested", PurgeMethodName(p.requested)},
          {"whole_device", p.whole_device},
          {"steps", steps},
          {"notes", p.notes},
          {"target", IdentityJson(p.target)}};
}

}  // namespace ssdlab
