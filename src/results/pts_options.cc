#include "results/pts_options.h"

#include "base/units.h"
#include "results/ids.h"
#include "results/pts_tests.h"

namespace ssdlab::results {

using nlohmann::json;

Result<PtsSpec> ParsePtsSpec(const std::string& name) {
  if (name == "pts-e") return PtsSpec::kPtsE;
  if (name == "pts-c") return PtsSpec::kPtsC;
  if (name == "review") return PtsSpec::kReview;
  return Status::Invalid("--spec: unknown spec '" + name + "' (pts-e, pts-c, review)");
}

const char* PtsSpecName(PtsSpec s) {
  switch (s) {
    case PtsSpec::kPtsE:
      return "pts-e";
    case PtsSpec::kPtsC:
      return "pts-c";
    case PtsSpec::kReview:
      return "review";
  }
  return "?";
}

PtsOptions SpecDefaults(PtsSpec spec) {
  PtsOptions o;
  o.spec = spec;
  o.tests = PtsTestNames();
  const std::vector<Mix> kPtsMixes = {{100}, {95}, {65}, {50}, {35}, {5}, {0}};
  o.iops_mixes = kPtsMixes;
  o.iops_block_bytes = {1024 * kKiB, 128 * kKiB, 64 * kKiB, 32 * kKiB,
                        16 * kKiB,   8 * kKiB,   4 * kKiB,  512};
  o.tp_block_bytes = {1024 * kKiB, 128 * kKiB};
  o.lat_block_bytes = {512, 4 * kKiB, 8 * kKiB};
  o.lat_mixes = {{100}, {65}, {0}};
  o.lvi_block_bytes = {4 * kKiB, 8 * kKiB};
  o.lvi_mixes = {{100}, {65}, {0}};
  o.steady = SteadyStateCriteria{};  // SNIA: window 5, 20% range, 10% slope
  switch (spec) {
    case PtsSpec::kPtsE:
      break;
    case PtsSpec::kPtsC:
      o.active_range_pct = 75;
      o.tp_block_bytes = {1024 * kKiB};
      break;
    case PtsSpec::kReview:
      // docs/methodology.md, section 4: 0.5 KiB dropped, 70/30 for latency, 4-round window
      // with the 90%..110% fit band, percentiles to 99.99.
      o.iops_block_bytes = {1024 * kKiB, 128 * kKiB, 64 * kKiB, 32 * kKiB,
                            16 * kKiB,   8 * kKiB,   4 * kKiB};
      o.lat_block_bytes = {4 * kKiB, 8 * kKiB};
      o.lat_mixes = {{100}, {70}, {0}};
      o.lvi_mixes = {{100}, {70}, {0}};
      o.steady.rule = SteadyStateRule::kReviewBand;
      o.steady.window_rounds = 4;
      o.steady.band_pct = 10;
      o.percentiles = {99, 99.9, 99.99};
      break;
  }
  return o;
}

void DivideDurations(PtsOptions& o, uint32_t n) {
  o.time_scale = n;
  for (uint64_t* ns :
       {&o.round_ns, &o.iops_round_ns, &o.lvi_warmup_ns, &o.lvi_measure_ns, &o.wsat_round_ns,
        &o.hir_write_ns, &o.hir_baseline_ns, &o.dirth_histogram_ns})
    *ns /= n;
  for (auto* list : {&o.hir_wait_ns, &o.xsr_ns})
    for (uint64_t& ns : *list) ns /= n;
}

namespace {

// Every stored field of PtsOptions, once: its key in the run's configuration and its member.
// PtsOptionsJson and PtsOptionsFromJson both walk this list.
template <class O, class F>
void PtsFields(O& o, F&& f) {
  f("spec", o.spec);
  f("tests", o.tests);
  f("round_ns", o.round_ns);
  f("iops_round_ns", o.iops_round_ns);
  f("max_rounds", o.max_rounds);
  f("steady_state", o.steady);
  f("purge", o.purge);
  f("wipc_multiple", o.wipc_multiple);
  f("wdpc_capacity_multiple", o.wdpc_capacity_multiple);
  f("threads", o.threads);
  f("qd", o.qd);
  f("op_pcts", o.op_pcts);
  f("active_range_pct", o.active_range_pct);
  f("seed", o.seed);
  f("percentiles", o.percentiles);
  f("iops_block_bytes", o.iops_block_bytes);
  f("iops_read_pcts", o.iops_mixes);
  f("tp_block_bytes", o.tp_block_bytes);
  f("lat_block_bytes", o.lat_block_bytes);
  f("lat_read_pcts", o.lat_mixes);
  f("lvi_threads", o.lvi_threads);
  f("lvi_qds", o.lvi_qds);
  f("lvi_block_bytes", o.lvi_block_bytes);
  f("lvi_read_pcts", o.lvi_mixes);
  f("lvi_warmup_ns", o.lvi_warmup_ns);
  f("lvi_measure_ns", o.lvi_measure_ns);
  f("wsat_capacity_multiple", o.wsat_capacity_multiple);
  f("wsat_max_rounds", o.wsat_max_rounds);
  f("wsat_round_ns", o.wsat_round_ns);
  f("hir_wait_ns", o.hir_wait_ns);
  f("hir_cycles", o.hir_cycles);
  f("hir_write_ns", o.hir_write_ns);
  f("hir_baseline_ns", o.hir_baseline_ns);
  f("xsr_ns", o.xsr_ns);
  f("dirth_threads", o.dirth_threads);
  f("dirth_qds", o.dirth_qds);
  f("dirth_max_mean_ns", o.dirth_max_mean_ns);
  f("dirth_histogram_ns", o.dirth_histogram_ns);
  f("time_scale", o.time_scale);
}

json ToJson(PtsSpec s) { return PtsSpecName(s); }
json ToJson(const std::vector<Mix>& v) {
  json a = json::array();
  for (const Mix& m : v) a.push_back(m.read_pct);
  return a;
}
json ToJson(const SteadyStateCriteria& c) {
  return {{"rule", c.rule == SteadyStateRule::kSnia ? "snia" : "review-band"},
          {"window", c.window_rounds},
          {"max_range_pct", c.max_range_pct},
          {"max_slope_pct", c.max_slope_pct},
          {"band_pct", c.band_pct}};
}
template <class T>
json ToJson(const T& v) {
  return json(v);
}

// Decoders of one stored value; false when it has the wrong type or value.
bool FromJson(const json& j, PtsSpec& out) {
  if (!j.is_string()) return false;
  auto s = ParsePtsSpec(j.get<std::string>());
  if (s.ok()) out = s.value();
  return s.ok();
}
bool FromJson(const json& j, std::vector<Mix>& out) {
  if (!j.is_array()) return false;
  out.clear();
  for (const json& x : j) {
    if (!x.is_number()) return false;
    out.push_back(Mix{x.get<double>()});
  }
  return true;
}
bool FromJson(const json& j, SteadyStateCriteria& out) {
  if (!j.is_object()) return false;
  const std::string rule = j.value("rule", "");
  if (rule != "snia" && rule != "review-band") return false;
  out.rule = rule == "snia" ? SteadyStateRule::kSnia : SteadyStateRule::kReviewBand;
  try {
    out.window_rounds = j.value("window", out.window_rounds);
    out.max_range_pct = j.value("max_range_pct", out.max_range_pct);
    out.max_slope_pct = j.value("max_slope_pct", out.max_slope_pct);
    out.band_pct = j.value("band_pct", out.band_pct);
  } catch (const json::exception&) {
    return false;
  }
  return true;
}
template <class T>
bool FromJson(const json& j, T& out) {
  try {
    out = j.get<T>();
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

}  // namespace

json PtsOptionsJson(const PtsOptions& o) {
  json out = json::object();
  PtsFields(o, [&](const char* key, const auto& member) { out[key] = ToJson(member); });
  out["seed"] = IdJson(o.seed);  // a string: JSON readers round integers above 2^53
  return out;
}

Result<PtsOptions> PtsOptionsFromJson(const json& j) {
  if (!j.is_object()) return Status::Invalid("the stored options are not an object");
  PtsOptions spec_of;
  if (j.contains("spec") && !FromJson(j["spec"], spec_of.spec))
    return Status::Invalid("the stored options' spec is damaged: " + j["spec"].dump());
  PtsOptions o = SpecDefaults(spec_of.spec);
  std::string bad;
  PtsFields(o, [&](const char* key, auto& member) {
    if (bad.empty() && j.contains(key) && std::string_view(key) != "seed" &&
        !FromJson(j[key], member))
      bad = key;
  });
  if (bad.empty() && j.contains("seed") && !IdFromJson(j["seed"], o.seed)) bad = "seed";
  if (!bad.empty())
    return Status::Invalid("the stored options' " + bad + " is damaged: " + j[bad].dump());
  return o;
}

}  // namespace ssdlab::results
