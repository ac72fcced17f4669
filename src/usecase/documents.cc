#include "usecase/documents.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>

#include "base/units.h"
#include "results/ids.h"
#include "results/phase_metrics.h"
#include "usecase/version.h"
#include "workload/parse.h"

namespace ssdlab::usecase {

using nlohmann::json;

namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "";
}

}  // namespace

std::string IsoTime(double unix_s) {
  time_t t = static_cast<time_t>(unix_s);
  tm tm_utc;
  gmtime_r(&t, &tm_utc);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm_utc);
  int ms = static_cast<int>((unix_s - std::floor(unix_s)) * 1000);
  return fmt::format("{}.{:03d}Z", buf, ms);
}

results::Platform PlatformOf() {
  utsname u;
  uname(&u);
  results::Platform p;
  p.tool = "ssdlab";
  p.tool_version = kVersion;
  p.git_revision = kGitRevision;
  p.host = u.nodename;
  p.os = u.sysname;
  p.kernel = u.release;
  p.arch = u.machine;
  p.cpu_model = CpuModel();
  p.cpus = sysconf(_SC_NPROCESSORS_ONLN);
  p.memory_bytes = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                   static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
  return p;
}

results::TargetDoc TargetOf(const TargetInfo& i) {
  results::TargetDoc t{.path = i.path,
                       .kind = i.kind,
                       .size_bytes = i.size_bytes,
                       .logical_block_bytes = i.logical_block_bytes,
                       .physical_block_bytes = i.physical_block_bytes,
                       .model = i.model,
                       .serial = i.serial,
                       .firmware = i.firmware};
  for (const auto& [k, v] : i.details) t.details[k] = v;
  return t;
}

results::WorkloadDoc WorkloadOf(const WorkloadSpec& s) {
  static const char* kData[] = {"random", "zero", "compressible", "dedupe"};
  results::WorkloadDoc w;
  w.description = DescribeWorkload(s);
  w.pattern = s.pattern == Pattern::kRandom ? "random" : "sequential";
  w.read_pct = s.read_pct;
  w.trim = s.trim;
  for (const auto& b : s.block_sizes) w.block_sizes.push_back({b.bytes, b.pct});
  w.queue_depth = s.queue_depth;
  w.jobs = s.jobs;
  w.runtime_ns = s.runtime_ns;
  w.io_bytes = s.io_bytes;
  w.ramp_ns = s.ramp_ns;
  w.ramp_bytes = s.ramp_bytes;
  w.range_begin_bytes = s.range_begin_bytes;
  w.range_end_bytes = s.range_end_bytes;
  w.distribution.kind = DistKindName(s.dist.kind);
  w.distribution.param = s.dist.param;
  for (const auto& z : s.dist.zones) w.distribution.zones.push_back({z.access_pct, z.range_pct});
  w.rate_iops = s.rate_iops;
  w.data = {kData[static_cast<int>(s.data.kind)], s.data.pct};
  w.seed = s.seed;
  w.verify = s.verify;
  w.interval_ns = s.interval_ns;
  return w;
}

results::DirectionMetrics DirectionOf(const DirectionStats& d, uint64_t measured_ns) {
  const Histogram& h = d.latency;
  const double secs = static_cast<double>(measured_ns) / 1e9;
  results::DirectionMetrics m;
  m.ios = d.ios;
  m.bytes = d.bytes;
  m.iops = secs > 0 ? static_cast<double>(d.ios) / secs : 0.0;
  m.bw_bytes_per_s = secs > 0 ? static_cast<double>(d.bytes) / secs : 0.0;
  m.lat_ns.min = h.min();
  m.lat_ns.mean = h.Mean();
  m.lat_ns.stddev = h.Stddev();
  m.lat_ns.max = h.max();
  for (double p : {50.0, 90.0, 99.0, 99.9, 99.99, 99.999})
    m.lat_ns.percentiles[results::PercentileKey(p)] = h.Percentile(p);
  m.histogram = h.NonEmptyBuckets();
  return m;
}

results::PhaseDoc PhaseOf(const PhaseResult& r) {
  results::PhaseDoc out;
  out.results = {.read = DirectionOf(r.dirs[0], r.measured_ns),
                 .write = DirectionOf(r.dirs[1], r.measured_ns),
                 .trim = DirectionOf(r.dirs[2], r.measured_ns),
                 .total = DirectionOf(r.Total(), r.measured_ns)};
  out.measured_ns = r.measured_ns;
  out.edge = r.edge;
  for (const IntervalSample& s : r.intervals) {
    const double secs = static_cast<double>(s.t_end_ns - s.t_begin_ns) / 1e9;
    results::IntervalDoc iv{.t_begin_ns = s.t_begin_ns, .t_end_ns = s.t_end_ns};
    results::IntervalDoc::Direction* dirs[kDirections] = {&iv.read, &iv.write, &iv.trim};
    for (int d = 0; d < kDirections; ++d) {
      const auto& x = s.dirs[d];
      *dirs[d] = {.ios = x.ios,
                  .bytes = x.bytes,
                  .iops = secs > 0 ? static_cast<double>(x.ios) / secs : 0.0,
                  .bw_bytes_per_s = secs > 0 ? static_cast<double>(x.bytes) / secs : 0.0,
                  .lat_mean_ns =
                      x.ios ? static_cast<double>(x.lat_sum_ns) / static_cast<double>(x.ios) : 0.0,
                  .lat_max_ns = x.lat_max_ns};
    }
    out.intervals.push_back(iv);
  }
  const uint64_t ios = r.Total().ios;
  const double cpu = r.cpu_user_s + r.cpu_sys_s;
  out.cpu = {.user_s = r.cpu_user_s,
             .sys_s = r.cpu_sys_s,
             .us_per_io = ios ? cpu * 1e6 / static_cast<double>(ios) : 0.0};
  out.io_errors = r.io_errors;
  out.errors = r.errors;
  out.verify = {.failures = r.verify_failures, .records = r.verify_records};
  out.interrupted = r.interrupted;
  out.notes = r.notes;
  out.counters_name = r.counters_name;
  if (!r.counters_name.empty()) {
    for (const auto& [k, v] : r.counters) out.counters[k] = v;
  }
  return out;
}

json PlatformJson() { return results::ToJson(PlatformOf()); }
json TargetJson(const TargetInfo& info) { return results::ToJson(TargetOf(info)); }
json WorkloadJson(const WorkloadSpec& spec) { return results::ToJson(WorkloadOf(spec)); }
json PhaseJson(const PhaseResult& r) { return results::ToJson(PhaseOf(r)); }

json PhaseRunResults(const WorkloadSpec& spec, const PhaseResult& r) {
  return results::ToJson(results::StoredPhaseDoc{PhaseOf(r), WorkloadOf(spec)});
}

const char* RunStatusName(const Status& s) {
  return s.ok() ? "done" : s.code() == Code::kInterrupted ? "interrupted" : "failed";
}

}  // namespace ssdlab::usecase
