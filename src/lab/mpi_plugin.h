// The seam between lab/mpi.h and its Open MPI plugin, ssdlab-mpi.so (base/plugin.h): the plugin
// holds every call into Open MPI and exports one function, under kMpiInitSymbol, that
// initialises MPI and returns the world's communicator; MpiWorld::Get calls it under mpirun
// only, so that libmpi is loaded by no other process. The plugin is opened RTLD_GLOBAL: Open
// MPI opens components of its own that need libmpi's symbols.
#pragma once

#include <string>
#include <vector>

#include "base/plugin.h"

namespace ssdlab {

// MPI_COMM_WORLD. Not thread-safe; the collectives block until every rank called them.
class MpiComm {
 public:
  virtual ~MpiComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Blocking and spinning (MPI_Barrier).
  virtual void Barrier() = 0;
  // Every rank's string, in rank order, at rank 0; empty on the other ranks (polls with naps).
  virtual std::vector<std::string> Gather(const std::string& mine) = 0;
  // Rank 0's string on every rank (polls with naps).
  virtual std::string Broadcast(const std::string& from_root) = 0;
};

// MPI_Init (MPI_Finalize registered with atexit) and the world; null with `error` set when
// MPI_Init fails. Called once per process.
using MpiInitFn = MpiComm* (*)(std::string* error);

inline constexpr char kMpiInitSymbol[] = "ssdlab_mpi_init_v1";

inline constexpr PluginSpec kMpiPlugin = {
    .file = "ssdlab-mpi.so",
    .purpose = "MPI lab runs (mpirun ... ssdlab)",
    .install =
        "install ssdlab's ssdlab-mpi.so with Open MPI, or build it: ninja -C build ssdlab-mpi",
    .global = true,
};

}  // namespace ssdlab
