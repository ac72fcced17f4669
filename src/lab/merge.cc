#include "lab/merge.h"

#include <algorithm>

namespace ssdlab {

using nlohmann::json;

json PhaseWire(const PhaseResult& r) {
  json dirs = json::array();
  for (const DirectionStats& d : r.dirs) {
    dirs.push_back({{"ios", d.ios},
                    {"bytes", d.bytes},
                    {"min_ns", d.latency.min()},
                    {"max_ns", d.latency.max()},
                    {"sum_ns", d.latency.sum()},
                    {"sum_sq_ns2", d.latency.sum_sq()},
                    {"buckets", d.latency.NonEmptyBuckets()}});
  }
  json series = json::array();
  for (const IntervalSample& s : r.intervals) {
    json row = {s.t_begin_ns, s.t_end_ns};
    for (const auto& d : s.dirs)
      row.push_back({d.ios, d.bytes, d.lat_sum_ns, d.lat_max_ns, d.lag_sum_ns, d.lag_max_ns});
    series.push_back(row);
  }
  return {{"dirs", dirs},
          {"measured_ns", r.measured_ns},
          {"edge",
           {r.edge.in_flight, r.edge.longest_ns, r.edge.abandoned, r.edge.abandoned_age_ns,
            r.edge.from_ramp, r.edge.held, r.edge.held_all ? 1u : 0u}},
          {"series", series},
          {"cpu_user_s", r.cpu_user_s},
          {"cpu_sys_s", r.cpu_sys_s},
          {"io_errors", r.io_errors},
          {"errors", r.errors},
          {"interrupted", r.interrupted},
          {"notes", r.notes},
          {"counters_name", r.counters_name},
          {"counters", r.counters}};
}

Result<PhaseResult> PhaseFromWire(const json& j) {
  PhaseResult r;
  try {
    const json& dirs = j.at("dirs");
    if (dirs.size() != r.dirs.size()) return Status::Invalid("a phase result has the wrong shape");
    for (size_t i = 0; i < r.dirs.size(); ++i) {
      const json& d = dirs[i];
      r.dirs[i].ios = d.at("ios").get<uint64_t>();
      r.dirs[i].bytes = d.at("bytes").get<uint64_t>();
      r.dirs[i].latency =
          Histogram::FromBuckets(d.at("buckets").get<std::vector<std::pair<uint64_t, uint64_t>>>(),
                                 d.at("min_ns").get<uint64_t>(), d.at("max_ns").get<uint64_t>(),
                                 d.at("sum_ns").get<uint64_t>(), d.at("sum_sq_ns2").get<double>());
    }
    r.measured_ns = j.at("measured_ns").get<uint64_t>();
    const json& edge = j.at("edge");
    r.edge = {edge.at(0).get<uint64_t>(),     edge.at(1).get<uint64_t>(),
              edge.at(2).get<uint64_t>(),     edge.at(3).get<uint64_t>(),
              edge.at(4).get<uint64_t>(),     edge.at(5).get<uint64_t>(),
              edge.at(6).get<uint64_t>() != 0};
    for (const json& row : j.at("series")) {
      IntervalSample s;
      s.t_begin_ns = row.at(0).get<uint64_t>();
      s.t_end_ns = row.at(1).get<uint64_t>();
      for (size_t d = 0; d < s.dirs.size(); ++d) {
        const json& x = row.at(2 + d);
        s.dirs[d] = {x.at(0).get<uint64_t>(), x.at(1).get<uint64_t>(), x.at(2).get<uint64_t>(),
                     x.at(3).get<uint64_t>(), x.at(4).get<uint64_t>(), x.at(5).get<uint64_t>()};
      }
      r.intervals.push_back(s);
    }
    r.cpu_user_s = j.at("cpu_user_s").get<double>();
    r.cpu_sys_s = j.at("cpu_sys_s").get<double>();
    r.io_errors = j.at("io_errors").get<uint64_t>();
    r.errors = j.at("errors").get<std::vector<std::string>>();
    r.interrupted = j.at("interrupted").get<bool>();
    r.notes = j.at("notes").get<std::vector<std::string>>();
    if (j.contains("counters")) {
      r.counters_name = j.at("counters_name").get<std::string>();
      r.counters = j.at("counters").get<std::vector<std::pair<std::string, double>>>();
    }
  } catch (const json::exception& e) {
    return Status::Invalid(std::string("a phase result has the wrong shape: ") + e.what());
  }
  return r;
}

PhaseResult MergeClientPhases(const std::vector<PhaseResult>& phases) {
  PhaseResult m = phases.front();
  for (size_t k = 1; k < phases.size(); ++k) {
    const PhaseResult& p = phases[k];
    for (size_t d = 0; d < m.dirs.size(); ++d) m.dirs[d].Merge(p.dirs[d]);
    m.measured_ns = std::max(m.measured_ns, p.measured_ns);
    m.edge.Merge(p.edge);
    if (m.intervals.size() < p.intervals.size()) {
      size_t had = m.intervals.size();
      m.intervals.resize(p.intervals.size());
      for (size_t i = had; i < m.intervals.size(); ++i) {
        m.intervals[i].t_begin_ns = p.intervals[i].t_begin_ns;
        m.intervals[i].t_end_ns = p.intervals[i].t_end_ns;
      }
    }
    for (size_t i = 0; i < p.intervals.size(); ++i) m.intervals[i].Merge(p.intervals[i]);
    m.cpu_user_s += p.cpu_user_s;
    m.cpu_sys_s += p.cpu_sys_s;
    m.io_errors += p.io_errors;
    for (const std::string& e : p.errors)
      if (m.errors.size() < 10 && std::find(m.errors.begin(), m.errors.end(), e) == m.errors.end())
        m.errors.push_back(e);
    m.interrupted = m.interrupted || p.interrupted;
  }
  return m;
}

}  // namespace ssdlab
