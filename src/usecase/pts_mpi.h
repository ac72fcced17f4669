// `ssdlab pts` under mpirun with one target: one battery of many clients (`--mpi`,
// usecase/mpi_pts.h), or a simulated drive's tests spread over the ranks with the stored run of
// one process (usecase/sim_spread.h). The CLI builds the request from its flags and runs the
// battery itself on rank 0 (`run`: its outputs and exit status); what each rank does around it
// is here. Neither prints: notes and failures go through the battery request's Console.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "usecase/pts.h"
#include "usecase/sim_spread.h"

namespace ssdlab::usecase {

// What both paths share.
struct PtsRanksRequest {
  // The battery as the flags give it: db, outputs and inputs (its paths), the options as text
  // and --resume (`given`), destructive, confirm, stop and console (REQUIRED). Its `target` is
  // not read: the target is composed here from `targets`.
  PtsRequest battery;
  std::vector<std::string> targets;  // --target as given (with --mpi: %r and %h per rank)
  std::string layout, chunk;         // ComposeTarget's
  // Rank 0's battery the usual way on `targets` (with --mpi, rank 0's: %r and %h replaced), its
  // outputs written and its exit status returned; launched as `launch` says (null: as one
  // process, when mpirun started only one rank).
  std::function<int(const std::vector<std::string>& targets, PtsLaunch* launch)> run;
};

struct MultiClientPtsRequest : PtsRanksRequest {
  bool range_per_rank = false;  // each rank its slice of the range
  std::string clients_log;      // every phase's per-rank results (JSON lines); "" none
};

// `pts --mpi`: rank 0 checks the paths (the targets expanded for it), opens --clients-log and
// runs the battery on a MultiClientBackend (with a note of the clients), then ends the
// followers with its exit status; every other rank follows (FollowPhases) on its own target.
// Returns this rank's exit status (rank 0's on every rank); kUnsupported, said, when not
// started by mpirun.
int RunMultiClientPts(const MultiClientPtsRequest& r);

// A follower's target: `pattern` from rank 0 with this rank's %r and %h, opened for the battery
// (OpenPtsTarget); kInvalidArgument when it is smaller than rank 0's (`min_size_bytes`).
Result<std::unique_ptr<Backend>> OpenFollowerPtsTarget(const std::string& pattern, int rank,
                                                       const std::string& host,
                                                       uint64_t min_size_bytes, bool destructive,
                                                       const std::string& confirm);

// The spread of `pts` on one simulated drive over `ranks` ranks, as RunSpread runs it: spread
// when the options are good and WhyNotSpread allows it (a note says over how many ranks), else
// rank 0 runs it alone (a note says why, unless the options or the target are bad: the battery
// then says what is wrong, as one process would).
SpreadCommand PtsSpreadCommand(const PtsRanksRequest& r, int ranks);

// `pts` on one simulated drive under mpirun: RunSpread of PtsSpreadCommand; one rank runs the
// battery the usual way. Returns rank 0's exit status on every rank.
int RunSpreadPts(const PtsRanksRequest& r);

}  // namespace ssdlab::usecase
