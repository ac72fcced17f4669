#include "store/schema.h"

#include <ctime>

#include "store/store.h"

namespace ssdlab {

using nlohmann::json;

std::string NewerSchema(const std::string& where, int version) {
  return where + " has schema version " + std::to_string(version) + ", newer than this ssdlab's " +
         std::to_string(kStoreSchemaVersion) + "; use a newer ssdlab";
}

std::string RunLockedMessage(const std::string& run_name) {
  return "run '" + run_name +
         "' is being written by another ssdlab process; wait for it to end or stop it first";
}

std::string NowIso() {
  time_t t = time(nullptr);
  tm g;
  gmtime_r(&t, &g);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &g);
  return buf;
}

json EdgeJson(const EdgeStats& e) {
  return {{"in_flight", e.in_flight}, {"longest_ns", e.longest_ns},
          {"abandoned", e.abandoned}, {"abandoned_age_ns", e.abandoned_age_ns},
          {"from_ramp", e.from_ramp}, {"held", e.held},
          {"held_all", e.held_all}};
}

json CountersJson(const PhaseResult& r) {
  return {{"name", r.counters_name}, {"values", r.counters}, {"edge", EdgeJson(r.edge)}};
}

bool ReadCountersAndNotes(const json& counters, const json& notes, PhaseResult& r) {
  try {
    if (counters.is_object()) {
      r.counters_name = counters.value("name", "");
      r.counters = counters.value("values", json::array())
                       .get<std::vector<std::pair<std::string, double>>>();
      const json edge = counters.value("edge", json::object());  // absent before the edge rule
      r.edge.in_flight = edge.value("in_flight", uint64_t{0});
      r.edge.longest_ns = edge.value("longest_ns", uint64_t{0});
      r.edge.abandoned = edge.value("abandoned", uint64_t{0});
      r.edge.abandoned_age_ns = edge.value("abandoned_age_ns", uint64_t{0});
      r.edge.from_ramp = edge.value("from_ramp", uint64_t{0});
      r.edge.held = edge.value("held", uint64_t{0});
      r.edge.held_all = edge.value("held_all", false);
    }
    if (notes.is_array()) r.notes = notes.get<std::vector<std::string>>();
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

}  // namespace ssdlab
