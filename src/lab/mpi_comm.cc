// ssdlab-mpi.so: Open MPI behind the seam of mpi_plugin.h; compiled into the plugin only.
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "lab/mpi_plugin.h"

namespace ssdlab {
namespace {

// Polls a non-blocking collective to completion, sleeping between tests: a rank that finished
// early does not take a CPU from the ranks still measuring (Open MPI's own wait spins).
void Wait(MPI_Request& req) {
  int done = 0;
  auto nap = std::chrono::microseconds(20);
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE), !done) {
    std::this_thread::sleep_for(nap);
    if (nap < std::chrono::milliseconds(20)) nap *= 2;
  }
}

void Finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

class OpenMpiComm final : public MpiComm {
 public:
  OpenMpiComm() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void Barrier() override {
    // Blocking (Open MPI spins): the ranks leave it within the network's latency of each
    // other, not within a polling period.
    MPI_Barrier(MPI_COMM_WORLD);
  }

  std::vector<std::string> Gather(const std::string& mine) override {
    int n = static_cast<int>(mine.size());
    std::vector<int> sizes(rank_ == 0 ? size_ : 0);
    MPI_Request req;
    MPI_Igather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    Wait(req);
    std::vector<int> offsets(sizes.size());
    int total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      offsets[i] = total;
      total += sizes[i];
    }
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Igatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                 MPI_COMM_WORLD, &req);
    Wait(req);
    std::vector<std::string> out;
    for (size_t i = 0; i < sizes.size(); ++i) out.push_back(all.substr(offsets[i], sizes[i]));
    return out;
  }

  std::string Broadcast(const std::string& from_root) override {
    long n = static_cast<long>(from_root.size());
    MPI_Request req;
    MPI_Ibcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD, &req);
    Wait(req);
    std::string s = rank_ == 0 ? from_root : std::string(static_cast<size_t>(n), '\0');
    MPI_Ibcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD, &req);
    Wait(req);
    return s;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace
}  // namespace ssdlab

extern "C" __attribute__((visibility("default"))) ssdlab::MpiComm* ssdlab_mpi_init_v1(
    std::string* error) {
  if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
    *error = "MPI_Init failed";
    return nullptr;
  }
  std::atexit(ssdlab::Finalize);
  // Errors come back as return codes (a failed collective is reported, not an abort here).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return new ssdlab::OpenMpiComm();
}

// The plugin's function has the seam's type.
static_assert(std::is_same_v<decltype(&ssdlab_mpi_init_v1), ssdlab::MpiInitFn>);
