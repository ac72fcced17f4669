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
#include "store/schema.h"
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

json PlatformJson() {
  utsname u;
  uname(&u);
  return {{"tool", "ssdlab"},
          {"tool_version", kVersion},
          {"git_revision", kGitRevision},
          {"host", u.nodename},
          {"os", u.sysname},
          {"kernel", u.release},
          {"arch", u.machine},
          {"cpu_model", CpuModel()},
          {"cpus", sysconf(_SC_NPROCESSORS_ONLN)},
          {"memory_bytes", static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                               static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE))}};
}

json TargetJson(const TargetInfo& i) {
  return {{"path", i.path},
          {"kind", i.kind},
          {"size_bytes", i.size_bytes},
          {"logical_block_bytes", i.logical_block_bytes},
          {"physical_block_bytes", i.physical_block_bytes},
          {"model", i.model},
          {"serial", i.serial},
          {"firmware", i.firmware},
          {"details", [&] {
             json d = json::object();
             for (const auto& [k, v] : i.details) d[k] = v;
             return d;
           }()}};
}

json WorkloadJson(const WorkloadSpec& s) {
  json bs = json::array();
  for (const auto& b : s.block_sizes) bs.push_back({{"bytes", b.bytes}, {"pct", b.pct}});
  json zones = json::array();
  for (const auto& z : s.dist.zones)
    zones.push_back({{"access_pct", z.access_pct}, {"range_pct", z.range_pct}});
  static const char* kData[] = {"random", "zero", "compressible", "dedupe"};
  return {{"description", DescribeWorkload(s)},
          {"pattern", s.pattern == Pattern::kRandom ? "random" : "sequential"},
          {"read_pct", s.read_pct},
          {"trim", s.trim},
          {"block_sizes", bs},
          {"queue_depth", s.queue_depth},
          {"jobs", s.jobs},
          {"runtime_ns", s.runtime_ns},
          {"io_bytes", s.io_bytes},
          {"ramp_ns", s.ramp_ns},
          {"ramp_bytes", s.ramp_bytes},
          {"range_begin_bytes", s.range_begin_bytes},
          {"range_end_bytes", s.range_end_bytes},
          {"distribution",
           {{"kind", DistKindName(s.dist.kind)}, {"param", s.dist.param}, {"zones", zones}}},
          {"rate_iops", s.rate_iops},
          {"data", {{"kind", kData[static_cast<int>(s.data.kind)]}, {"pct", s.data.pct}}},
          {"seed", results::IdJson(s.seed)},
          {"verify", s.verify},
          {"interval_ns", s.interval_ns}};
}

json DirectionJson(const DirectionStats& d, uint64_t measured_ns) {
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
  return results::ToJson(m);
}

json PhaseJson(const PhaseResult& r) {
  json out;
  out["results"] = {{"read", DirectionJson(r.dirs[0], r.measured_ns)},
                    {"write", DirectionJson(r.dirs[1], r.measured_ns)},
                    {"trim", DirectionJson(r.dirs[2], r.measured_ns)},
                    {"total", DirectionJson(r.Total(), r.measured_ns)}};
  out["measured_ns"] = r.measured_ns;
  out["edge"] = EdgeJson(r.edge);
  json intervals = json::array();
  for (const IntervalSample& s : r.intervals) {
    double secs = static_cast<double>(s.t_end_ns - s.t_begin_ns) / 1e9;
    json iv = {{"t_begin_ns", s.t_begin_ns}, {"t_end_ns", s.t_end_ns}};
    for (int d = 0; d < kDirections; ++d) {
      const auto& x = s.dirs[d];
      iv[DirectionName(static_cast<Direction>(d))] = {
          {"ios", x.ios},
          {"bytes", x.bytes},
          {"iops", secs > 0 ? static_cast<double>(x.ios) / secs : 0.0},
          {"bw_bytes_per_s", secs > 0 ? static_cast<double>(x.bytes) / secs : 0.0},
          {"lat_mean_ns",
           x.ios ? static_cast<double>(x.lat_sum_ns) / static_cast<double>(x.ios) : 0.0},
          {"lat_max_ns", x.lat_max_ns}};
    }
    intervals.push_back(iv);
  }
  out["intervals"] = intervals;
  uint64_t ios = r.Total().ios;
  double cpu = r.cpu_user_s + r.cpu_sys_s;
  out["cpu"] = {{"user_s", r.cpu_user_s},
                {"sys_s", r.cpu_sys_s},
                {"us_per_io", ios ? cpu * 1e6 / static_cast<double>(ios) : 0.0}};
  out["io_errors"] = r.io_errors;
  out["errors"] = r.errors;
  json records = json::array();
  for (const auto& v : r.verify_records) {
    records.push_back({{"offset", v.offset},
                       {"problem", v.problem},
                       {"found_offset", v.found_offset},
                       {"generation", v.generation}});
  }
  out["verify"] = {{"failures", r.verify_failures}, {"records", records}};
  out["interrupted"] = r.interrupted;
  out["notes"] = r.notes;
  if (!r.counters_name.empty()) {
    json c = json::object();
    for (const auto& [k, v] : r.counters) c[k] = v;
    out[r.counters_name] = c;
  }
  return out;
}

json PhaseRunResults(const WorkloadSpec& spec, const PhaseResult& r) {
  json out = PhaseJson(r);
  out["workload"] = WorkloadJson(spec);
  return out;
}

const char* RunStatusName(const Status& s) {
  return s.ok() ? "done" : s.code() == Code::kInterrupted ? "interrupted" : "failed";
}

}  // namespace ssdlab::usecase
