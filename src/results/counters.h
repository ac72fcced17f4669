// The backend's counters of a phase as the documents hold them: an object of numbers under the
// backend's name ("sim") beside the phase's other keys. One codec for every type that holds them
// (PhaseMetrics, PhaseDoc): Merge<T>(CountersOf(&T::name, &T::values)) in its field table.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "results/fields.h"

namespace ssdlab::results::fields {

inline constexpr const char* kCounterBackends[] = {"sim"};  // the backends that report counters

template <class T>
struct CountersCodec {
  std::string T::*name;                      // "" = none
  std::map<std::string, double> T::*values;  // by counter name

  json Write(const T& t) const {
    json out = json::object();
    if (!(t.*name).empty()) out[t.*name] = MapOf(NumberOf<double>()).Write(t.*values);
    return out;
  }
  // The first backend's key present: its name and values ("WHERE.sim.KEY is not a number").
  Status Read(const json& j, const std::string& where, T& t) const {
    for (const char* backend : kCounterBackends) {
      auto it = j.find(backend);
      if (it == j.end() || it->is_null()) continue;
      t.*name = backend;
      SSDLAB_RETURN_IF_ERROR(MapOf(NumberOf<double>()).Read(*it, where + "." + backend, t.*values));
    }
    return Status::Ok();
  }
};
template <class T>
constexpr CountersCodec<T> CountersOf(std::string T::*name,
                                      std::map<std::string, double> T::*values) {
  return {name, values};
}

}  // namespace ssdlab::results::fields
