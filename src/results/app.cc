#include "results/app.h"

#include "results/fields_more.h"

namespace ssdlab::results {

namespace f = fields;
using nlohmann::json;

namespace {

constexpr auto kNumber = f::NumberOf<double>();

constexpr auto kSecond =
    f::Object<AppSecond>(f::Number("t_s", &AppSecond::t_s), f::Number("tps", &AppSecond::tps),
                         f::Number("qps", &AppSecond::qps), f::Number("lat_ms", &AppSecond::lat_ms),
                         f::Number("lat_stddev_ms", &AppSecond::lat_stddev_ms),
                         f::Number("errors_per_s", &AppSecond::errors_per_s));

constexpr auto kAppLatencyMs = f::Object<AppLatencyMs>(
    f::Nullable("mean", &AppLatencyMs::mean, kNumber),
    f::Nullable("min", &AppLatencyMs::min, kNumber),
    f::Nullable("p50", &AppLatencyMs::p50, kNumber),
    f::Nullable("p95", &AppLatencyMs::p95, kNumber),
    f::Nullable("p99", &AppLatencyMs::p99, kNumber),
    f::Nullable("p99_9", &AppLatencyMs::p99_9, kNumber),
    f::Nullable("max", &AppLatencyMs::max, kNumber), f::Count("samples", &AppLatencyMs::samples));

// The rates a device second and the summary share: IOPS, MB/s, service time and utilisation.
template <class T>
constexpr auto Rates() {
  return f::Object<T>(
      f::Number("read_iops", &T::read_iops), f::Number("write_iops", &T::write_iops),
      f::Number("read_mb_s", &T::read_mb_s), f::Number("write_mb_s", &T::write_mb_s),
      f::Number("read_lat_ms", &T::read_lat_ms), f::Number("write_lat_ms", &T::write_lat_ms),
      f::Number("util_pct", &T::util_pct));
}

constexpr auto kDeviceSecond = f::Object<DeviceSecond>(
    f::Merge<DeviceSecond>(Rates<DeviceSecond>()), f::Number("t_s", &DeviceSecond::t_s),
    f::Number("flush_per_s", &DeviceSecond::flush_per_s),
    f::Nullable("temperature_c", &DeviceSecond::temperature_c, kNumber));

constexpr auto kSummary = f::Object<DeviceSummary>(
    f::Merge<DeviceSummary>(Rates<DeviceSummary>()), f::Count("seconds", &DeviceSummary::seconds),
    f::Number("peak_util_pct", &DeviceSummary::peak_util_pct));

constexpr auto kTemperature = f::Object<DeviceTemperature>(
    f::Text("source", &DeviceTemperature::source), f::Text("note", &DeviceTemperature::note),
    f::Nullable("idle_c", &DeviceTemperature::idle_c, kNumber),
    f::Nullable("peak_c", &DeviceTemperature::peak_c, kNumber),
    f::Nullable("mean_c", &DeviceTemperature::mean_c, kNumber));

constexpr auto kDevice =
    f::Object<AppDevice>(f::Text("stat_path", &AppDevice::stat_path),
                         f::List("per_second", &AppDevice::per_second, kDeviceSecond),
                         f::Sub("summary", &AppDevice::summary, kSummary),
                         f::Sub("temperature", &AppDevice::temperature, kTemperature));

constexpr auto kSimDrive = f::Object<AppSimulatedDrive>(
    f::Text("target", &AppSimulatedDrive::target),
    f::Count("capacity_bytes", &AppSimulatedDrive::capacity_bytes),
    f::Count("host_pages_written", &AppSimulatedDrive::host_pages_written),
    f::Count("nand_pages_written", &AppSimulatedDrive::nand_pages_written),
    f::Number("write_amplification", &AppSimulatedDrive::write_amplification),
    f::Count("gc_page_copies", &AppSimulatedDrive::gc_page_copies),
    f::Count("erases", &AppSimulatedDrive::erases),
    f::Count("host_read_pages", &AppSimulatedDrive::host_read_pages),
    f::Count("nand_page_reads", &AppSimulatedDrive::nand_page_reads),
    f::Flag("paced", &AppSimulatedDrive::paced),
    f::Number("late_share", &AppSimulatedDrive::late_share),
    f::Count("transport_round_trip_ns", &AppSimulatedDrive::transport_round_trip_ns));

constexpr auto kApp = f::Object<AppResults>(
    f::Text("app", &AppResults::app), f::Flag("measured", &AppResults::measured),
    f::Flag("complete", &AppResults::complete), f::Number("tps", &AppResults::tps),
    f::Number("qps", &AppResults::qps), f::Count("transactions", &AppResults::transactions),
    f::Count("queries", &AppResults::queries), f::Count("errors", &AppResults::errors),
    f::Number("duration_s", &AppResults::duration_s),
    f::Sub("latency_ms", &AppResults::latency_ms, kAppLatencyMs),
    f::List("per_second", &AppResults::per_second, kSecond),
    f::Text("per_second_latency", &AppResults::per_second_latency),
    f::Nullable("device", &AppResults::device, kDevice), f::Raw("settings", &AppResults::settings),
    f::Nullable("error", &AppResults::error, f::TextOf()),
    f::Sub("simulated_drive", &AppResults::simulated_drive, kSimDrive));

}  // namespace

SSDLAB_FIELDS_JSON(AppDevice, AppDeviceFromJson, kDevice)
SSDLAB_FIELDS_JSON(AppResults, AppResultsFromJson, kApp)

}  // namespace ssdlab::results
