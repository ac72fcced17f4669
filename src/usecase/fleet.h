// Fleet runs: `mpirun -n N ssdlab pts --target-map FILE` (or %r/%h in --target) runs the
// battery on each rank's own drive, every rank with the usual safety checks on its own host,
// one stored run per drive (named FLEET-rRANK, grouped under the fleet's name), all into one
// store (a PostgreSQL URL for several hosts). Rank 0 prints one progress table for the fleet
// (read back from the store as rounds are committed) and the final table; a failing rank is
// reported with its error and does not stop the others; `--resume FLEET` continues the ranks
// whose runs are not done. With --report, rank 0 writes the comparison report of every drive
// whose run is stored (the failed ranks' that never stored one are named and left out).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "usecase/console.h"

namespace ssdlab::usecase {

struct FleetOptions {
  std::string db;
  std::string target;      // --target (may hold %r/%h)
  std::string target_map;  // --target-map FILE: lines "RANK TARGET" (# comments)
  std::string name;        // --run: the fleet's name ("" = fleet-DATE-TIME)
  std::string resume;      // --resume: the fleet to continue
  std::string report;      // --report FILE: rank 0 writes the comparison report at the end
  double table_interval_s = 2;
  // Writes the comparison report of `runs` to `report` (rank 0, at the end); an exit status.
  std::function<int(const std::vector<std::string>& runs, const std::string& title)> write_report;
};

// What one rank runs: its target and its run's name; `resume` when its run exists and is to be
// continued.
struct FleetRank {
  int rank = 0;
  std::string host;
  std::string target;
  std::string fleet;
  std::string run;
  bool resume = false;
};

// True when this is a fleet run (started by mpirun with --target-map or %r/%h in --target).
bool IsFleetRun(const FleetOptions& o);
// Runs `run_one` (returning an exit status) on every rank with its share; collective. Returns
// this rank's exit status on ranks > 0, the worst over the fleet on rank 0. Rank 0's tables and
// notes, and every rank's failure, go to `console`.
int RunFleet(const FleetOptions& o, const std::function<int(const FleetRank&)>& run_one,
             Console& console);

}  // namespace ssdlab::usecase
