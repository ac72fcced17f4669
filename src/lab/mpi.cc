#include "lab/mpi.h"

#include <unistd.h>

#include <cstdlib>

#include "lab/mpi_plugin.h"

namespace ssdlab {

bool StartedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_SIZE");
}

Result<MpiWorld*> MpiWorld::Get() {
  static MpiWorld* world = nullptr;
  if (world) return world;
  if (!StartedByMpirun())
    return Status::Error(Code::kUnsupported,
                         "not started by mpirun (start it as: mpirun -n N ssdlab ...)");
  SSDLAB_ASSIGN_OR_RETURN(void* init, PluginSymbol(kMpiPlugin, kMpiInitSymbol));
  std::string error;
  MpiComm* comm = reinterpret_cast<MpiInitFn>(init)(&error);
  if (!comm) return Status::Io(error);
  world = new MpiWorld();
  world->comm_ = comm;
  world->rank_ = comm->rank();
  world->size_ = comm->size();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  world->host_ = host;
  return world;
}

void MpiWorld::Barrier() { comm_->Barrier(); }

std::vector<std::string> MpiWorld::Gather(const std::string& mine) { return comm_->Gather(mine); }

std::string MpiWorld::Broadcast(const std::string& from_root) {
  return comm_->Broadcast(from_root);
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
