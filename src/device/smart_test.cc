#include "device/smart.h"

#include <gtest/gtest.h>

namespace ssdlab {
namespace {

// A document of smartctl 7.3 that exited 0: its header, then `fields`, the device's own.
std::string Smartctl(const std::string& fields) {
  return R"({"smartctl": {"version": [7, 3], "exit_status": 0},)" + fields + "}";
}

// Shapes as smartctl 7.x prints them with --json -a (trimmed to the fields that matter).
const char* kSataSamsung = R"json({
  "json_format_version": [1, 0],
  "smartctl": {"version": [7, 3], "argv": ["smartctl", "--json", "-a", "/dev/sda"], "exit_status": 0},
  "device": {"name": "/dev/sda", "info_name": "/dev/sda [SAT]", "type": "sat", "protocol": "ATA"},
  "model_family": "Samsung based SSDs",
  "model_name": "Samsung SSD 860 EVO 500GB",
  "serial_number": "S3Z1NB0K123456X",
  "wwn": {"naa": 5, "oui": 9528, "id": 61213911380},
  "firmware_version": "RVT04B6Q",
  "user_capacity": {"blocks": 976773168, "bytes": 500107862016},
  "logical_block_size": 512,
  "physical_block_size": 512,
  "rotation_rate": 0,
  "smart_status": {"passed": true},
  "ata_smart_attributes": {"revision": 1, "table": [
    {"id": 5, "name": "Reallocated_Sector_Ct", "value": 100, "worst": 100, "thresh": 10, "when_failed": "",
     "flags": {"value": 51, "string": "PO--CK ", "prefailure": true}, "raw": {"value": 0, "string": "0"}},
    {"id": 9, "name": "Power_On_Hours", "value": 97, "worst": 97, "thresh": 0, "when_failed": "",
     "flags": {"value": 50, "string": "-O--CK "}, "raw": {"value": 12345, "string": "12345"}},
    {"id": 12, "name": "Power_Cycle_Count", "value": 99, "worst": 99, "thresh": 0,
     "raw": {"value": 250, "string": "250"}},
    {"id": 177, "name": "Wear_Leveling_Count", "value": 98, "worst": 98, "thresh": 0,
     "raw": {"value": 23, "string": "23"}},
    {"id": 187, "name": "Reported_Uncorrect", "value": 100, "worst": 100, "thresh": 0,
     "raw": {"value": 2, "string": "2"}},
    {"id": 190, "name": "Airflow_Temperature_Cel", "value": 67, "worst": 48, "thresh": 0,
     "raw": {"value": 33, "string": "33"}},
    {"id": 235, "name": "POR_Recovery_Count", "value": 99, "worst": 99, "thresh": 0,
     "raw": {"value": 41, "string": "41"}},
    {"id": 241, "name": "Total_LBAs_Written", "value": 99, "worst": 99, "thresh": 0,
     "raw": {"value": 25478546372, "string": "25478546372"}}
  ]},
  "power_on_time": {"hours": 12345},
  "power_cycle_count": 250,
  "temperature": {"current": 33}
})json";

// An Intel DC SATA drive: writes counted in 32 MiB units, NAND writes in GiB.
const std::string kSataIntel = Smartctl(R"json(
  "device": {"name": "/dev/sdc", "type": "sat", "protocol": "ATA"},
  "model_name": "INTEL SSDSC2BB480G4",
  "serial_number": "BTWL1234567K480QGN",
  "firmware_version": "D2010370",
  "logical_block_size": 512,
  "smart_status": {"passed": true},
  "ata_smart_attributes": {"revision": 1, "table": [
    {"id": 174, "name": "Unsafe_Shutdown_Count", "value": 100, "raw": {"value": 7, "string": "7"}},
    {"id": 194, "name": "Temperature_Celsius", "value": 72, "raw": {"value": 28, "string": "28 (Min/Max 18/41)"}},
    {"id": 233, "name": "Media_Wearout_Indicator", "value": 96, "raw": {"value": 0, "string": "0"}},
    {"id": 241, "name": "Host_Writes_32MiB", "value": 100, "raw": {"value": 1000, "string": "1000"}},
    {"id": 249, "name": "NAND_Writes_1GiB", "value": 100, "raw": {"value": 45, "string": "45"}}
  ]},
  "power_on_time": {"hours": 20000},
  "temperature": {"current": 28})json");

const std::string kNvme = Smartctl(R"json(
  "json_format_version": [1, 0],
  "device": {"name": "/dev/nvme0", "info_name": "/dev/nvme0", "type": "nvme", "protocol": "NVMe"},
  "model_name": "INTEL SSDPEKNW010T8",
  "serial_number": "BTNH93710FS91P0B",
  "firmware_version": "002C",
  "nvme_pci_vendor": {"id": 32902, "subsystem_id": 32902},
  "smart_status": {"passed": true, "nvme": {"value": 0}},
  "nvme_smart_health_information_log": {
    "critical_warning": 2, "temperature": 36, "available_spare": 100, "available_spare_threshold": 10,
    "percentage_used": 3, "data_units_read": 9511859, "data_units_written": 7773431,
    "host_reads": 111303174, "host_writes": 83170961, "controller_busy_time": 3060,
    "power_cycles": 266, "power_on_hours": 2401, "unsafe_shutdowns": 43, "media_errors": 0,
    "num_err_log_entries": 0, "warning_temp_time": 12, "critical_comp_time": 1,
    "temperature_sensors": [36, 41]
  },
  "temperature": {"current": 36},
  "power_cycle_count": 266,
  "power_on_time": {"hours": 2401})json");

const std::string kSas = Smartctl(R"json(
  "device": {"name": "/dev/sdg", "info_name": "/dev/sdg", "type": "scsi", "protocol": "SCSI"},
  "vendor": "SEAGATE", "product": "XS1600LE70084", "model_name": "SEAGATE XS1600LE70084",
  "revision": "0003", "serial_number": "HLJ02XYZ0000822150Z3",
  "logical_block_size": 512, "rotation_rate": 0,
  "smart_status": {"passed": true},
  "temperature": {"current": 34, "drive_trip": 68},
  "power_on_time": {"hours": 43549, "minutes": 33},
  "scsi_percentage_used_endurance_indicator": 4,
  "scsi_start_stop_cycle_counter": {"accumulated_start_stop_cycles": 31},
  "scsi_error_counter_log": {
    "read": {"errors_corrected_by_eccfast": 0, "total_errors_corrected": 0,
             "gigabytes_processed": "176987.332", "total_uncorrected_errors": 1},
    "write": {"total_errors_corrected": 0, "gigabytes_processed": "86472.611",
              "total_uncorrected_errors": 0},
    "verify": {"gigabytes_processed": "0.000", "total_uncorrected_errors": 2}
  })json");

TEST(ParseSmartctlJson, SataSamsung) {
  auto h = ParseSmartctlJson(kSataSamsung);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->protocol, "ATA");
  EXPECT_EQ(h->model, "Samsung SSD 860 EVO 500GB");
  EXPECT_EQ(h->serial, "S3Z1NB0K123456X");
  EXPECT_EQ(h->firmware, "RVT04B6Q");
  EXPECT_EQ(h->passed, true);
  EXPECT_EQ(h->temperature_c, 33.0);
  EXPECT_EQ(h->power_on_hours, 12345u);
  EXPECT_EQ(h->power_cycles, 250u);
  EXPECT_EQ(h->host_writes_bytes, 25478546372ull * 512);
  EXPECT_FALSE(h->media_writes_bytes.has_value()) << "Samsung SATA does not report NAND writes";
  EXPECT_EQ(h->percentage_used, 2.0);
  EXPECT_EQ(h->media_errors, 2u);
  EXPECT_EQ(h->unsafe_shutdowns, 41u);
  EXPECT_FALSE(h->notes.empty());
}

TEST(ParseSmartctlJson, SataIntelUnits) {
  auto h = ParseSmartctlJson(kSataIntel);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->host_writes_bytes, 1000ull * 32 * 1024 * 1024);
  EXPECT_EQ(h->media_writes_bytes, 45ull << 30);
  EXPECT_EQ(h->percentage_used, 4.0);
  EXPECT_EQ(h->unsafe_shutdowns, 7u);
  EXPECT_EQ(h->temperature_c, 28.0);
}

TEST(ParseSmartctlJson, Nvme) {
  auto h = ParseSmartctlJson(kNvme);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->protocol, "NVMe");
  EXPECT_EQ(h->temperature_c, 36.0);
  EXPECT_EQ(h->host_writes_bytes, 7773431ull * 512000);
  EXPECT_EQ(h->host_reads_bytes, 9511859ull * 512000);
  EXPECT_FALSE(h->media_writes_bytes.has_value());
  EXPECT_EQ(h->percentage_used, 3.0);
  EXPECT_EQ(h->media_errors, 0u);
  EXPECT_EQ(h->unsafe_shutdowns, 43u);
  EXPECT_EQ(h->power_on_hours, 2401u);
  EXPECT_EQ(h->available_spare_pct, 100u);
  EXPECT_EQ(h->critical_warning, 2u);
  EXPECT_EQ(h->warning_temp_time_min, 12u);
  EXPECT_EQ(h->critical_temp_time_min, 1u);
}

TEST(ParseSmartctlJson, Sas) {
  auto h = ParseSmartctlJson(kSas);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->protocol, "SCSI");
  EXPECT_EQ(h->firmware, "0003");
  EXPECT_EQ(h->temperature_c, 34.0);
  EXPECT_EQ(h->power_on_hours, 43549u);
  EXPECT_EQ(h->host_writes_bytes, 86472611000000ull);
  EXPECT_EQ(h->media_errors, 3u);
  EXPECT_EQ(h->percentage_used, 4.0);
  EXPECT_EQ(h->power_cycles, 31u);
  EXPECT_FALSE(h->unsafe_shutdowns.has_value());
}

TEST(ParseSmartctlJson, Failures) {
  const char* cannot_open = R"({"json_format_version": [1, 0],
    "smartctl": {"version": [7, 3], "messages": [{"string": "/dev/vda: Unable to detect device type",
    "severity": "error"}], "exit_status": 1}})";
  auto h = ParseSmartctlJson(cannot_open);
  EXPECT_EQ(h.status().code(), Code::kIoError);
  EXPECT_NE(h.status().message().find("Unable to detect device type"), std::string::npos);
  EXPECT_EQ(ParseSmartctlJson("smartctl: not json").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParseSmartctlJson(R"({"foo": 1})").status().code(), Code::kInvalidArgument);
}

TEST(ReadSmart, MissingDeviceIsAnError) {
  auto h = ReadSmart("/dev/does-not-exist-ssdlab", 30);
  ASSERT_FALSE(h.ok());
  // Either smartctl is missing (naming the package) or it failed (naming the device).
  const std::string& m = h.status().message();
  EXPECT_TRUE(m.find("smartmontools") != std::string::npos ||
              m.find("does-not-exist") != std::string::npos)
      << m;
}

}  // namespace
}  // namespace ssdlab
