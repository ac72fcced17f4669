// `ssdlab run --mpi`: many ranks (clients) load one target (or each its own, with %r/%h in
// --target) at once. Each rank opens its target, all start the phase together at a barrier,
// and rank 0 gathers the ranks' full results, merges them exactly (lab/merge.h) and writes one
// document: the aggregate as the usual run JSON plus `mpi` (ranks, start skew, and each
// rank's own results, histograms included, in the same shape).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "lab/mpi.h"
#include "stats/phase_result.h"
#include "workload/spec.h"

namespace ssdlab::usecase {

class MpiClients {
 public:
  // kUnsupported when not started by mpirun.
  static Result<MpiClients> Start();

  int rank() const { return world_->rank(); }
  int size() const { return world_->size(); }
  MpiWorld& world() const { return *world_; }
  // %r and %h of each target replaced for this rank.
  void ExpandTargets(std::vector<std::string>& targets) const;
  // This rank's share: its slice of the active range (range_per_rank), or the whole range
  // with the seed offset by the rank, so that clients do not repeat each other's offsets.
  Status ShareWorkload(WorkloadSpec& spec, bool range_per_rank) const;

  // Collective, before anything is written to a target: every rank reports whether it is
  // ready (`ready`) and its target's size. Fails on every rank when one is not ready (naming
  // it), or when a target's size differs from rank 0's (kInvalidArgument naming the rank, its
  // target and both sizes: each rank resolves its range from its own target, so the clients
  // of one load need targets of one size). A rank that failed before calls it from Finish.
  Status AgreeOnTarget(const Status& ready, const std::string& target, uint64_t size_bytes);
  bool agreed() const { return agreed_; }

  // Every rank reports whether it is ready (`ready`); when all are, they leave a barrier
  // together and the start time is taken. A rank that failed before (Run returned early)
  // calls it from Finish instead, so the others learn of it rather than wait.
  Status StartTogether(const Status& ready);
  bool started() const { return started_; }
  // StartTogether was called and every rank was ready: they all ran the phase, and each must
  // Gather (a rank that failed before the start gathers nothing: the others return at the start).
  bool ran_together() const { return start_unix_s_ > 0; }

  // Collective, after the phase: rank 0 gets {aggregate PhaseResult, the `mpi` document}; the
  // other ranks get std::nullopt. `mine` is this rank's result or why it has none.
  struct Merged {
    PhaseResult aggregate;
    nlohmann::json mpi;
  };
  Result<std::optional<Merged>> Gather(const Result<PhaseResult>& mine,
                                       const nlohmann::json& about);

 private:
  explicit MpiClients(MpiWorld* w) : world_(w) {}
  MpiWorld* world_;
  bool agreed_ = false;
  bool started_ = false;
  double start_unix_s_ = 0;
};

// A phase's workload as JSON, to send it to other ranks (REQUIRES: no request source), and
// back; SpecFromWire(SpecWire(s)) equals s. kInvalidArgument on a malformed document.
nlohmann::json SpecWire(const WorkloadSpec& s);
Result<WorkloadSpec> SpecFromWire(const nlohmann::json& j);

}  // namespace ssdlab::usecase
