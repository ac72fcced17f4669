// MPI for lab runs (Open MPI): launching, start barriers and gathers across ranks, as IOR and
// mdtest use it. MPI is used only when mpirun started the process (its environment says so:
// OMPI_COMM_WORLD_SIZE, or PMIX_RANK/PMI_SIZE of another launcher); otherwise nothing here
// touches MPI and ssdlab behaves as a single process.
//
// Gathers wait by polling with short sleeps (not Open MPI's busy wait), so a rank that finished
// early does not take a CPU from the ranks still measuring; the start barrier spins, so that
// the ranks leave it together.
//
// Open MPI itself is in a plugin, ssdlab-mpi.so (mpi_plugin.h), opened by the first Get under
// mpirun: a process not started by mpirun never loads libmpi.
//
// Not thread-safe: call from the main thread only.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

class MpiComm;  // mpi_plugin.h

// True when mpirun (or srun with PMIx) started this process.
bool StartedByMpirun();

class MpiWorld {
 public:
  // The world, initialising MPI on first use (finalised at exit); kUnsupported, saying how to
  // start it, when not started by mpirun; kIoError naming the plugin when it cannot be loaded.
  static Result<MpiWorld*> Get();

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }

  // Blocking and spinning: for starts, where the ranks arrive nearly together.
  void Barrier();
  // Every rank's string, in rank order, at rank 0; empty on the other ranks.
  std::vector<std::string> Gather(const std::string& mine);
  // Every rank's string, in rank order, on every rank.
  std::vector<std::string> AllGather(const std::string& mine);
  // Rank 0's string on every rank.
  std::string Broadcast(const std::string& from_root);
  // Together: Ok when every rank's `mine` is ok, else the first failed rank's status (named).
  Status Agree(const Status& mine);

 private:
  MpiWorld() = default;
  MpiComm* comm_ = nullptr;  // the plugin's, alive until the process ends
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
};

// `%r` -> the rank, `%h` -> the host name, `%%` -> `%` (in --target and run names).
std::string ExpandRankPattern(const std::string& pattern, int rank, const std::string& host);
bool HasRankPattern(const std::string& s);

}  // namespace ssdlab
