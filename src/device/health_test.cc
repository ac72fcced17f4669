#include "device/health.h"

#include <gtest/gtest.h>

#include "device/test_tree.h"

namespace ssdlab {
namespace {

using testing_tree::FakeTree;

DeviceIdentity BlockId(const std::string& name, Transport t) {
  DeviceIdentity id;
  id.path = id.resolved_path = "/dev/" + name;
  id.kind = "block";
  DiskIdentity d;
  d.name = name;
  d.dev_path = "/dev/" + name;
  d.transport = t;
  id.disk = d;
  return id;
}

// The sampler of block device `name` on the fake tree's sysfs, smartctl not allowed.
HealthSampler SysfsOnly(const FakeTree& t, const std::string& name, Transport tr) {
  HealthSamplerOptions o;
  o.sys_root = t.sys();
  o.allow_smartctl = false;
  return HealthSampler::ForTarget(BlockId(name, tr), o);
}

TEST(HealthSampler, NvmeHwmon) {
  FakeTree t("health_nvme");
  t.File("sys/block/nvme0n1/device/hwmon2/temp1_input", "43850");
  HealthSampler s = SysfsOnly(t, "nvme0n1", Transport::kNvme);
  EXPECT_TRUE(s.available());
  EXPECT_EQ(s.source(), "hwmon");
  HealthSample x = s.Sample();
  ASSERT_TRUE(x.temperature_c.has_value());
  EXPECT_DOUBLE_EQ(*x.temperature_c, 43.85);
  t.File("sys/block/nvme0n1/device/hwmon2/temp1_input", "52000");
  EXPECT_DOUBLE_EQ(*s.Sample().temperature_c, 52.0);
}

TEST(HealthSampler, SataDrivetemp) {
  FakeTree t("health_sata");
  t.File("sys/block/sda/device/hwmon/hwmon4/temp1_input", "31000");
  HealthSampler s = SysfsOnly(t, "sda", Transport::kSata);
  EXPECT_EQ(s.source(), "hwmon");
  EXPECT_EQ(s.Sample().temperature_c, 31.0);
}

TEST(HealthSampler, VirtualDevicesSayNotAvailable) {
  FakeTree t("health_loop");
  HealthSamplerOptions o;
  o.sys_root = t.sys();
  for (auto [name, tr] :
       {std::pair{"loop3", Transport::kLoop}, std::pair{"vda", Transport::kVirtio}}) {
    HealthSampler s = HealthSampler::ForTarget(BlockId(name, tr), o);
    EXPECT_FALSE(s.available()) << name;
    EXPECT_EQ(s.source(), "none");
    EXPECT_NE(s.reason().find(name), std::string::npos) << s.reason();
    HealthSample x = s.Sample();
    EXPECT_FALSE(x.temperature_c.has_value()) << "never invent a temperature";
    EXPECT_EQ(s.Snapshot().status().code(), Code::kUnsupported);
  }
  DeviceIdentity file;
  file.path = "/tmp/f";
  file.kind = "file";
  file.disk_note = "tmpfs of /tmp/f has no single backing block device";
  HealthSampler f = HealthSampler::ForTarget(file, o);
  EXPECT_FALSE(f.available());
  EXPECT_NE(f.reason().find("tmpfs"), std::string::npos);
}

TEST(HealthSampler, SataWithoutSensorOrSmartctl) {
  FakeTree t("health_nosensor");
  HealthSampler s = SysfsOnly(t, "sdb", Transport::kSata);
  EXPECT_FALSE(s.available());
  EXPECT_NE(s.reason().find("smartctl"), std::string::npos);
}

TEST(HealthSampler, Simulated) {
  HealthSampler s = HealthSampler::Simulated();
  EXPECT_EQ(s.source(), "simulated");
  // The simulator models no temperature: nothing to sample, no invented 0 C reading.
  EXPECT_FALSE(s.available());
  EXPECT_FALSE(s.reason().empty());
  HealthSample x = s.Sample();
  EXPECT_EQ(x.source, "simulated");
  EXPECT_FALSE(x.temperature_c.has_value());
  EXPECT_EQ(s.Snapshot().status().code(), Code::kUnsupported);
}

TEST(DiffHealth, DeltasAndWriteAmplification) {
  SmartHealth a, b;
  a.host_writes_bytes = 1000;
  b.host_writes_bytes = 5000;
  a.media_writes_bytes = 2000;
  b.media_writes_bytes = 12000;
  a.power_on_hours = 10;
  b.power_on_hours = 11;
  b.media_errors = 3;  // missing before: no delta
  a.warning_temp_time_min = 4;
  b.warning_temp_time_min = 6;
  HealthDelta d = DiffHealth(a, b);
  EXPECT_EQ(d.host_writes_bytes, 4000u);
  EXPECT_EQ(d.media_writes_bytes, 10000u);
  ASSERT_TRUE(d.write_amplification.has_value());
  EXPECT_DOUBLE_EQ(*d.write_amplification, 2.5);
  EXPECT_EQ(d.power_on_hours, 1u);
  EXPECT_FALSE(d.media_errors.has_value());
  EXPECT_EQ(d.warning_temp_time_min, 2u);

  SmartHealth nvme_a, nvme_b;  // NVMe: host writes only, no device WA
  nvme_a.host_writes_bytes = 1;
  nvme_b.host_writes_bytes = 2;
  EXPECT_FALSE(DiffHealth(nvme_a, nvme_b).write_amplification.has_value());
}

TEST(TemperatureSummary, IdlePeakMean) {
  TemperatureSummary t;
  EXPECT_FALSE(t.peak_c().has_value());
  for (double c : {43.0, 50.0, 52.0, 47.0}) {
    HealthSample s;
    s.temperature_c = c;
    t.Add(s);
  }
  t.Add(HealthSample{});  // a sample without a figure is ignored
  EXPECT_EQ(t.samples(), 4u);
  EXPECT_EQ(t.idle_c(), 43.0);
  EXPECT_EQ(t.peak_c(), 52.0);
  EXPECT_EQ(t.min_c(), 43.0);
  EXPECT_DOUBLE_EQ(*t.mean_c(), 48.0);
}

}  // namespace
}  // namespace ssdlab
