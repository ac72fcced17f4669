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

json CountersJson(const PhaseResult& r) {
  return {{"name", r.counters_name}, {"values", r.counters}};
}

bool ReadCountersAndNotes(const json& counters, const json& notes, PhaseResult& r) {
  try {
    if (counters.is_object()) {
      r.counters_name = counters.value("name", "");
      r.counters = counters.value("values", json::array())
                       .get<std::vector<std::pair<std::string, double>>>();
    }
    if (notes.is_array()) r.notes = notes.get<std::vector<std::string>>();
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

}  // namespace ssdlab
