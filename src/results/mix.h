// A workload's mix as documents store it: its block sizes with their shares, and how its
// accesses spread over the range. Shared by the run document (results/run_document.h WorkloadDoc)
// and a profile's curves (results/profile_kinds.h CurveMixRecord); their JSON forms are the
// same objects ({"bytes", "pct"}; {"kind", "param", "zones": [{"access_pct", "range_pct"}]}).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ssdlab::results {

struct MixBlock {
  uint64_t bytes = 0;
  double pct = 0;  // share of the I/Os
};
struct MixZone {
  double access_pct = 0, range_pct = 0;
};
struct MixDistribution {
  std::string kind;  // "uniform", "zipf", "pareto", "zoned"; "" read as uniform
  double param = 0;
  std::vector<MixZone> zones;
};

}  // namespace ssdlab::results
