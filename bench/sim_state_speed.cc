// sim_state_speed: save and load times and on-disk sizes of simulated drive states
// (`sim:PRESET?state=PATH`, sim/state.h).
//
//   sim_state_speed TARGET PATH [RANDOM_X] [LEVEL] [WORKERS]
//
// Opens TARGET (e.g. "sim:dc-sata-read-intensive?scale=1") with state=PATH (which must not
// exist), writes the whole drive once sequentially (1 MiB writes), saves the state (the
// backend's Close(): temporary file, fsync, rename) and loads it into a second backend; then,
// when RANDOM_X > 0, writes RANDOM_X times the capacity in 4 KiB random writes (the mapping
// becomes random, which compresses far less) and saves and loads again. LEVEL and WORKERS set
// zstd's level (-3) and worker threads (-1: one per CPU). Each line: seconds of wall time and
// bytes on disk. Figures depend on the machine, its disk and its load; no test depends on them.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sim/sim.h"
#include "sim/state_lock.h"
#include "workload/parse.h"

namespace {

using namespace ssdlab;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void Die(const std::string& m) {
  std::fprintf(stderr, "sim_state_speed: %s\n", m.c_str());
  std::exit(1);
}

void Run(SimBackend& b, const std::string& rw, const std::string& bs, const std::string& io,
         uint32_t qd) {
  WorkloadArgs a;
  a.rw = rw;
  a.bs = bs;
  a.qd = qd;
  a.io_size = io;
  a.interval = "0";
  auto s = ResolveWorkload(a, b.info().size_bytes, b.info().logical_block_bytes);
  if (!s.ok()) Die(s.status().message());
  const double t0 = Now();
  auto r = b.RunPhase(s.value(), RunControl{});
  if (!r.ok()) Die(r.status().message());
  std::printf("%-28s %8.2f s\n", (rw + " " + bs + " " + io).c_str(), Now() - t0);
}

void SaveAndLoad(std::unique_ptr<SimBackend>& b, const std::string& target, const std::string& path,
                 const SimOpenOptions& o, const char* what) {
  double t0 = Now();
  if (Status s = b->Close(); !s.ok()) Die(s.message());
  const double save = Now() - t0;
  const uint64_t bytes = std::filesystem::file_size(path);
  b.reset();
  t0 = Now();
  auto loaded = OpenSimBackend(target, o);
  if (!loaded.ok()) Die(loaded.status().message());
  const double load = Now() - t0;
  const SimCounters c = (*loaded)->counters();
  std::printf(
      "%-10s save %6.2f s  load %6.2f s (open + load)  %12llu bytes on disk (%.3f GB), "
      "fill %.1f%%\n",
      what, save, load, static_cast<unsigned long long>(bytes), bytes / 1e9,
      100.0 * c.mapped_pages / c.user_pages);
  std::fflush(stdout);
  b = std::move(loaded.value());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) Die("usage: sim_state_speed TARGET PATH [RANDOM_X] [LEVEL] [WORKERS]");
  const std::string path = argv[2];
  if (std::filesystem::exists(path)) Die(path + " exists");
  const std::string target = std::string(argv[1]) +
                             (std::string(argv[1]).find('?') == std::string::npos ? "?" : "&") +
                             "state=" + path;
  const double random_x = argc > 3 ? std::atof(argv[3]) : 0;
  SimOpenOptions o;
  if (argc > 4) o.state_zstd_level = std::atoi(argv[4]);
  if (argc > 5) o.state_zstd_workers = std::atoi(argv[5]);
  double t0 = Now();
  auto opened = OpenSimBackend(target, o);
  if (!opened.ok()) Die(opened.status().message());
  std::unique_ptr<SimBackend> b = std::move(opened.value());
  std::printf("open (fresh)                 %8.2f s, %llu user bytes\n", Now() - t0,
              static_cast<unsigned long long>(b->info().size_bytes));
  Run(*b, "write", "1MiB", "1x", 32);
  SaveAndLoad(b, target, path, o, "sequential");
  if (random_x > 0) {
    char x[32];
    std::snprintf(x, sizeof x, "%gx", random_x);
    Run(*b, "randwrite", "4KiB", x, 32);
    SaveAndLoad(b, target, path, o, "random");
  }
  std::filesystem::remove(path);
  b.reset();  // releases the state's lock; its sidecar file (sim/state_lock.h) goes too
  if (auto real = sim::ResolveStatePath(path); real.ok())
    std::filesystem::remove(sim::StateLockPath(real.value()));
  return 0;
}
