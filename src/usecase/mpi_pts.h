// `ssdlab pts --mpi`: one PTS battery driven by several clients (MPI ranks) on one target (a
// shared array, a namespace per host with %h, a simulator per rank), judged as one device.
//
// Rank 0 runs the battery and is the only rank with a store: its backend (MultiClientBackend)
// sends every phase, idle and purge to the other ranks, which follow (FollowPhases) until rank
// 0 ends them. A phase starts on all ranks at a barrier; each rank runs its share (its slice
// of the range with --range-per-rank, else the whole range with the seed offset by its rank,
// as `run --mpi`); rank 0 merges the ranks' results exactly (lab/merge.h) and the battery
// stores and judges only the merged figures. A purge runs on rank 0's target, and on another
// rank's only when its target is not rank 0's (a per-rank target, or a simulator, which is
// each rank's own drive); the other ranks wait for it. Preconditioning is a phase like the
// others, shared the same way.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "backend/backend.h"
#include "usecase/console.h"
#include "usecase/mpi_clients.h"

namespace ssdlab::usecase {

struct MultiClientOptions {
  bool range_per_rank = false;
  std::ostream* clients_log = nullptr;  // one JSON line per phase: every rank's own results
};

// The followers' side of a target: opens this rank's target from rank 0's pattern (its %r/%h
// replaced); `min_size_bytes` is rank 0's target's size.
using OpenFollowerTarget = std::function<Result<std::unique_ptr<Backend>>(
    const std::string& pattern, uint64_t min_size_bytes)>;

// Rank 0's backend. Construct with Connect(); every call is collective over the ranks.
class MultiClientBackend : public Backend {
 public:
  // Sends the target's pattern to the followers, which open theirs; Ok when every rank has its
  // target (else the first failed rank's error, named). `mpi` is what to store in the run's
  // context: ranks, hosts, targets, range_per_rank.
  static Result<std::unique_ptr<MultiClientBackend>> Connect(MpiClients& clients,
                                                             std::unique_ptr<Backend> local,
                                                             const std::string& pattern,
                                                             const MultiClientOptions& o);
  const nlohmann::json& mpi() const { return mpi_; }

  const TargetInfo& info() const override { return local_->info(); }
  Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl& control) override;
  Status Idle(uint64_t ns, const RunControl& control) override;
  Result<std::string> Purge(const std::string& method, const RunControl& control) override;
  bool persistent_state() const override { return local_->persistent_state(); }
  Status Close() override { return local_->Close(); }

 private:
  MultiClientBackend(MpiClients& c, std::unique_ptr<Backend> local, MultiClientOptions o)
      : clients_(c), local_(std::move(local)), o_(o) {}
  MpiClients& clients_;
  std::unique_ptr<Backend> local_;
  MultiClientOptions o_;
  nlohmann::json mpi_;
};

// Every rank but 0: follows rank 0's phases on this rank's target (opened with `open` when
// rank 0 says which; rank 0 says --range-per-rank too, so that a resumed run keeps it) until
// rank 0 ends the battery; returns rank 0's exit code. A failure to save this rank's target
// (EndTargetUse) goes to `console`.
int FollowPhases(MpiClients& clients, const OpenFollowerTarget& open, const std::atomic<bool>* stop,
                 Console& console);
// Rank 0: ends the followers with the battery's exit code (also when it failed before
// Connect).
void EndFollowers(MpiClients& clients, int code);

}  // namespace ssdlab::usecase
