#include "lab/mpi.h"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace ssdlab {
namespace {

// Polls a non-blocking collective to completion, sleeping between tests.
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

}  // namespace

bool StartedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_SIZE");
}

Result<MpiWorld*> MpiWorld::Get() {
  static MpiWorld* world = nullptr;
  if (world) return world;
  if (!StartedByMpirun())
    return Status::Error(Code::kUnsupported,
                         "not started by mpirun (start it as: mpirun -n N ssdlab ...)");
  if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) return Status::Io("MPI_Init failed");
  std::atexit(Finalize);
  // Errors come back as return codes (a failed collective is reported, not an abort here).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  world = new MpiWorld();
  MPI_Comm_rank(MPI_COMM_WORLD, &world->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world->size_);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  world->host_ = host;
  return world;
}

void MpiWorld::Barrier() {
  // Blocking (Open MPI spins): the ranks leave it within the network's latency of each other,
  // not within a polling period.
  MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<std::string> MpiWorld::Gather(const std::string& mine) {
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

std::vector<std::string> MpiWorld::AllGather(const std::string& mine) {
  std::vector<std::string> all = Gather(mine);
  std::string packed;
  for (const std::string& s : all) packed += std::to_string(s.size()) + ":" + s;
  packed = Broadcast(packed);
  std::vector<std::string> out;
  for (size_t at = 0; at < packed.size();) {
    size_t colon = packed.find(':', at);
    size_t n = std::stoul(packed.substr(at, colon - at));
    out.push_back(packed.substr(colon + 1, n));
    at = colon + 1 + n;
  }
  return out;
}

std::string MpiWorld::Broadcast(const std::string& from_root) {
  long n = static_cast<long>(from_root.size());
  MPI_Request req;
  MPI_Ibcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD, &req);
  Wait(req);
  std::string s = rank_ == 0 ? from_root : std::string(static_cast<size_t>(n), '\0');
  MPI_Ibcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD, &req);
  Wait(req);
  return s;
}

Status MpiWorld::Agree(const Status& mine) {
  std::vector<std::string> all = AllGather(mine.ok() ? "" : mine.message());
  for (int r = 0; r < size_; ++r)
    if (!all[r].empty())
      return Status::Error(r == rank_ ? mine.code() : Code::kIoError,
                           "rank " + std::to_string(r) + ": " + all[r]);
  return Status::Ok();
}

std::string ExpandRankPattern(const std::string& p, int rank, const std::string& host) {
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != '%' || i + 1 == p.size()) {
      out += p[i];
      continue;
    }
    char c = p[++i];
    if (c == 'r')
      out += std::to_string(rank);
    else if (c == 'h')
      out += host;
    else if (c == '%')
      out += '%';
    else
      out += std::string("%") + c;
  }
  return out;
}

bool HasRankPattern(const std::string& s) {
  return s.find("%r") != std::string::npos || s.find("%h") != std::string::npos;
}

}  // namespace ssdlab
