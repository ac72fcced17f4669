#include "results/cells.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

json ToJson(const CellResult& c) {
  json out = ToJson(c.metrics);
  out["cell"] = c.cell;
  json wl = {{"description", c.workload.description}};
  if (c.workload.seed) wl["seed"] = *c.workload.seed;
  out["workload"] = wl;
  return out;
}

Result<CellResult> CellFromJson(const json& j, const std::string& where) {
  CellResult c;
  SSDLAB_ASSIGN_OR_RETURN(c.metrics, PhaseMetricsFromJson(j, where));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "cell", c.cell));
  if (auto it = j.find("workload"); it != j.end()) {
    const std::string at = where + ".workload";
    SSDLAB_RETURN_IF_ERROR(internal::Object(*it, at));
    SSDLAB_RETURN_IF_ERROR(internal::Text(*it, at, "description", c.workload.description));
    uint64_t seed = 0;
    SSDLAB_RETURN_IF_ERROR(internal::Count(*it, at, "seed", seed));
    if (it->contains("seed")) c.workload.seed = seed;
  }
  return c;
}

}  // namespace ssdlab::results
