#include "device/smart.h"

#include <nlohmann/json.hpp>

#include "base/process.h"
#include "base/units.h"

namespace ssdlab {
namespace {

using nlohmann::json;

std::optional<uint64_t> U64(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (it->is_number_integer() && it->get<int64_t>() >= 0)
    return static_cast<uint64_t>(it->get<int64_t>());
  if (it->is_number_float() && it->get<double>() >= 0)
    return static_cast<uint64_t>(it->get<double>());
  return std::nullopt;
}

std::optional<double> Num(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string Str(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

const json& Sub(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

// The unit of an ATA write counter from the name smartctl's drive database gives it.
std::optional<uint64_t> UnitFromName(const std::string& name, uint64_t lba_bytes) {
  auto ends = [&](const char* suffix) {
    std::string s = suffix;
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (name.find("LBAs") != std::string::npos) return lba_bytes;
  if (ends("_32MiB")) return 32 * kMiB;
  if (ends("_1GiB") || ends("_GiB") || ends("_GB")) return kGiB;
  if (ends("_MiB")) return kMiB;
  return std::nullopt;
}

void ParseAta(const json& doc, SmartHealth* h) {
  uint64_t lba = U64(doc, "logical_block_size").value_or(512);
  const json& table = Sub(Sub(doc, "ata_smart_attributes"), "table");
  if (!table.is_array()) return;
  for (const json& a : table) {
    auto id = U64(a, "id");
    std::string name = Str(a, "name");
    auto raw = U64(Sub(a, "raw"), "value");
    auto value = U64(a, "value");
    if (!id || !raw) continue;
    std::string where = "ATA attribute " + std::to_string(*id) + " " + name;
    bool host_name = name == "Total_LBAs_Written" || name.rfind("Host_Writes", 0) == 0 ||
                     name == "Lifetime_Writes_GiB" || name == "Total_Writes_GiB" ||
                     name == "Total_Host_Writes_GiB";
    bool nand_name = name.find("NAND_Writes") != std::string::npos ||
                     name.find("Flash_Writes") != std::string::npos ||
                     name.find("NAND_Written") != std::string::npos;
    if (host_name && !h->host_writes_bytes) {
      if (auto unit = UnitFromName(name, lba)) {
        h->host_writes_bytes = *raw * *unit;
        h->notes.push_back("host writes: " + where + " x " + std::to_string(*unit) + " bytes");
      }
    } else if (nand_name && !h->media_writes_bytes) {
      if (auto unit = UnitFromName(name, lba)) {
        h->media_writes_bytes = *raw * *unit;
        h->notes.push_back("media writes: " + where + " x " + std::to_string(*unit) + " bytes");
      }
    } else if ((name == "Total_LBAs_Read" || name.rfind("Host_Reads", 0) == 0) &&
               !h->host_reads_bytes) {
      if (auto unit = UnitFromName(name, lba)) h->host_reads_bytes = *raw * *unit;
    } else if (*id == 187 && name == "Reported_Uncorrect") {
      h->media_errors = *raw;
    } else if (name == "Unexpect_Power_Loss_Ct" || name == "Unsafe_Shutdown_Count" ||
               name == "POR_Recovery_Count" || name == "Sudden_Power_Loss_Count") {
      if (!h->unsafe_shutdowns) h->unsafe_shutdowns = *raw;
    } else if (!h->percentage_used && value && *value <= 100 &&
               (name == "Media_Wearout_Indicator" || name == "Wear_Leveling_Count" ||
                name == "SSD_Life_Left" || name == "Percent_Lifetime_Remain")) {
      // Normalized value counts down from 100 as endurance is used.
      h->percentage_used = 100.0 - static_cast<double>(*value);
      h->notes.push_back("percentage used: 100 - normalized value of " + where);
    } else if (!h->temperature_c && (*id == 194 || *id == 190)) {
      h->temperature_c = static_cast<double>(*raw & 0xff);
    }
  }
  // Device statistics (smartctl -x or -l devstat) carry the standard endurance indicator.
  const json& pages = Sub(Sub(doc, "ata_device_statistics"), "pages");
  if (pages.is_array()) {
    for (const json& p : pages) {
      const json& t = Sub(p, "table");
      if (!t.is_array()) continue;
      for (const json& e : t) {
        std::string n = Str(e, "name");
        auto v = U64(e, "value");
        if (!v) continue;
        if (n == "Percentage Used Endurance Indicator") {
          h->percentage_used = static_cast<double>(*v);
        } else if (n == "Logical Sectors Written" && !h->host_writes_bytes) {
          h->host_writes_bytes = *v * lba;
          h->notes.push_back("host writes: device statistics Logical Sectors Written");
        }
      }
    }
  }
}

void ParseNvme(const json& doc, SmartHealth* h) {
  const json& log = Sub(doc, "nvme_smart_health_information_log");
  if (!log.is_object()) return;
  constexpr uint64_t kDataUnit = 1000 * 512;  // NVMe counts data units of 1000 x 512 bytes
  if (auto v = U64(log, "data_units_written")) h->host_writes_bytes = *v * kDataUnit;
  if (auto v = U64(log, "data_units_read")) h->host_reads_bytes = *v * kDataUnit;
  if (auto v = Num(log, "temperature"); v && !h->temperature_c) h->temperature_c = *v;
  if (auto v = Num(log, "percentage_used")) h->percentage_used = *v;
  h->available_spare_pct = U64(log, "available_spare");
  h->media_errors = U64(log, "media_errors");
  h->unsafe_shutdowns = U64(log, "unsafe_shutdowns");
  h->critical_warning = U64(log, "critical_warning");
  h->warning_temp_time_min = U64(log, "warning_temp_time");
  h->critical_temp_time_min = U64(log, "critical_comp_time");
  if (!h->power_on_hours) h->power_on_hours = U64(log, "power_on_hours");
  if (!h->power_cycles) h->power_cycles = U64(log, "power_cycles");
}

std::optional<uint64_t> GigabytesProcessed(const json& j) {
  auto it = j.is_object() ? j.find("gigabytes_processed") : j.end();
  if (it == j.end()) return std::nullopt;
  double gb = 0;
  if (it->is_string()) {
    auto parsed = ParseDouble(it->get<std::string>());
    if (!parsed.ok()) return std::nullopt;
    gb = parsed.value();
  } else if (it->is_number()) {
    gb = it->get<double>();
  } else {
    return std::nullopt;
  }
  return static_cast<uint64_t>(gb * 1e9);
}

void ParseScsi(const json& doc, SmartHealth* h) {
  const json& log = Sub(doc, "scsi_error_counter_log");
  if (log.is_object()) {
    if (auto w = GigabytesProcessed(Sub(log, "write"))) {
      h->host_writes_bytes = *w;
      h->notes.push_back(
          "host writes: SCSI error counter log, write gigabytes processed (1e9 bytes, 3 decimals)");
    }
    if (auto r = GigabytesProcessed(Sub(log, "read"))) h->host_reads_bytes = *r;
    std::optional<uint64_t> errors;
    for (const char* dir : {"read", "write", "verify"}) {
      if (auto e = U64(Sub(log, dir), "total_uncorrected_errors")) errors = errors.value_or(0) + *e;
    }
    h->media_errors = errors;
  }
  if (auto v = U64(doc, "scsi_percentage_used_endurance_indicator")) {
    h->percentage_used = static_cast<double>(*v);
  }
  const json& ss = Sub(doc, "scsi_start_stop_cycle_counter");
  if (auto v = U64(ss, "accumulated_start_stop_cycles")) h->power_cycles = *v;
}

}  // namespace

Result<SmartHealth> ParseSmartctlJson(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Status::Invalid("smartctl output is not JSON");
  if (!doc.contains("smartctl") && !doc.contains("device")) {
    return Status::Invalid("JSON is not smartctl output (no \"smartctl\" or \"device\" key)");
  }
  const json& sc = Sub(doc, "smartctl");
  uint64_t exit_status = U64(sc, "exit_status").value_or(0);
  if (exit_status & 0x3) {
    std::string msg;
    const json& messages = Sub(sc, "messages");
    if (messages.is_array()) {
      for (const json& m : messages) {
        if (!Str(m, "string").empty()) {
          msg = Str(m, "string");
          if (Str(m, "severity") == "error") break;
        }
      }
    }
    return Status::Io("smartctl failed" + (msg.empty() ? std::string() : ": " + msg));
  }
  SmartHealth h;
  const json& device = Sub(doc, "device");
  h.protocol = Str(device, "protocol");
  h.model = Str(doc, "model_name");
  h.serial = Str(doc, "serial_number");
  h.firmware = Str(doc, "firmware_version");
  if (h.firmware.empty()) h.firmware = Str(doc, "revision");
  if (h.firmware.empty()) h.firmware = Str(doc, "scsi_revision");
  const json& status = Sub(doc, "smart_status");
  if (status.is_object() && status.contains("passed") && status["passed"].is_boolean()) {
    h.passed = status["passed"].get<bool>();
  }
  if (auto t = Num(Sub(doc, "temperature"), "current")) h.temperature_c = *t;
  h.power_on_hours = U64(Sub(doc, "power_on_time"), "hours");
  h.power_cycles = U64(doc, "power_cycle_count");
  if (h.protocol == "NVMe" || doc.contains("nvme_smart_health_information_log")) {
    ParseNvme(doc, &h);
  } else if (h.protocol == "ATA" || doc.contains("ata_smart_attributes")) {
    ParseAta(doc, &h);
  } else if (h.protocol == "SCSI" || doc.contains("scsi_error_counter_log")) {
    ParseScsi(doc, &h);
  }
  return h;
}

Result<SmartHealth> ReadSmart(const std::string& device_path, uint64_t timeout_s) {
  SSDLAB_ASSIGN_OR_RETURN(ProcessResult r, RunProcess({"smartctl", "--json", "-a", device_path},
                                                      timeout_s, "smartmontools"));
  auto h = ParseSmartctlJson(r.out);
  if (!h.ok()) {
    std::string detail = r.err.empty() ? h.status().message() : r.err.substr(0, r.err.find('\n'));
    return Status::Io("smartctl -a " + device_path + " failed (exit " +
                      std::to_string(r.exit_code) + "): " + detail);
  }
  return h;
}

}  // namespace ssdlab
