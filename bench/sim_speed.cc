// sim_speed: simulated host I/Os per second of wall time, one core.
//
//   sim_speed [TARGET] [MEASURED_IOS] [PHASES]
//
// Default target "sim:tiny?capacity=1GiB&op=28" (greedy GC, analytic WA about 2.5). The drive
// is filled sequentially once and then written randomly 3 times its capacity, so the measured
// part is in steady state. Then 4 KiB random writes (1 job at QD 32, then at QD 1) and 4 KiB
// random reads at QD 32 over the whole drive, MEASURED_IOS I/Os each (default 20 million).
// Each line prints host I/Os per second of wall time (and per second of the thread's CPU
// time, less sensitive to other load on the machine). Wall-clock figures depend on the
// machine and its load; nothing in the test suite depends on them. PHASES picks the measured
// phases, comma-separated: wQD or rQD for 4 KiB random writes or reads at queue depth QD
// (default w32,w1,r32; "none" runs the preconditioning only: under callgrind, instructions per
// I/O are (PHASE) minus (none)).
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "sim/sim.h"
#include "workload/parse.h"

namespace {

using namespace ssdlab;

WorkloadSpec Spec(const std::string& rw, const std::string& bs, const std::string& io_size,
                  uint32_t qd, const TargetInfo& info) {
  WorkloadArgs a;
  a.rw = rw;
  a.bs = bs;
  a.qd = qd;
  a.io_size = io_size;
  a.interval = "0";
  auto s = ResolveWorkload(a, info.size_bytes, info.logical_block_bytes);
  if (!s.ok()) {
    std::fprintf(stderr, "sim_speed: %s\n", s.status().message().c_str());
    std::exit(2);
  }
  return s.value();
}

double Run(SimBackend& b, const WorkloadSpec& spec, const char* label) {
  RunControl control;
  rusage ru0, ru1;
  getrusage(RUSAGE_THREAD, &ru0);
  const uint64_t t0 = MonotonicNs();
  auto r = b.RunPhase(spec, control);
  const uint64_t t1 = MonotonicNs();
  getrusage(RUSAGE_THREAD, &ru1);
  if (!r.ok()) {
    std::fprintf(stderr, "sim_speed: %s\n", r.status().message().c_str());
    std::exit(1);
  }
  const double wall_s = static_cast<double>(t1 - t0) * 1e-9;
  const double ios = static_cast<double>(r->Total().ios);
  double wa = 0;
  for (const auto& [k, v] : r->counters) {
    if (k == "write_amplification") wa = v;
  }
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  const double cpu_s =
      secs(ru1.ru_utime) - secs(ru0.ru_utime) + secs(ru1.ru_stime) - secs(ru0.ru_stime);
  std::printf(
      "%-22s %12.0f host I/Os  %7.3f s wall  %8.2f M I/Os per wall second  (%.2f M per CPU"
      " second; simulated %.0f IOPS, WA %.3f)\n",
      label, ios, wall_s, ios / wall_s / 1e6, cpu_s > 0 ? ios / cpu_s / 1e6 : 0.0,
      r->Iops(r->Total()), wa);
  return ios / wall_s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string target = argc > 1 ? argv[1] : "sim:tiny?capacity=1GiB&op=28";
  const uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20000000;
  const std::string phases = argc > 3 ? argv[3] : "w32,w1,r32";
  std::vector<std::pair<bool, uint32_t>> measured;  // (write, queue depth)
  for (size_t pos = 0; pos <= phases.size();) {
    const size_t comma = std::min(phases.find(',', pos), phases.size());
    const std::string p = phases.substr(pos, comma - pos);
    pos = comma + 1;
    if (p == "none") continue;
    const long qd = p.size() > 1 ? std::strtol(p.c_str() + 1, nullptr, 10) : 0;
    if ((p[0] != 'w' && p[0] != 'r') || qd < 1 || qd > 65536) {
      std::fprintf(stderr, "sim_speed: bad phase '%s' (expected wQD or rQD, e.g. w32)\n",
                   p.c_str());
      return 2;
    }
    measured.emplace_back(p[0] == 'w', static_cast<uint32_t>(qd));
  }
  auto opened = OpenSimBackend(target);
  if (!opened.ok()) {
    std::fprintf(stderr, "sim_speed: %s\n", opened.status().message().c_str());
    return 2;
  }
  SimBackend& b = *opened.value();
  const TargetInfo& info = b.info();
  std::printf("target %s: %.3f GiB simulated user capacity\n", target.c_str(),
              static_cast<double>(info.size_bytes) / (1 << 30));
  const std::string ios_bytes = std::to_string(n * 4096);
  Run(b, Spec("write", "128KiB", "1x", 4, info), "precondition seq 1x");
  Run(b, Spec("randwrite", "4KiB", "3x", 32, info), "precondition rand 3x");
  for (const auto& [write, qd] : measured) {
    const std::string label =
        std::string(write ? "4k randwrite" : "4k randread") + " qd" + std::to_string(qd);
    Run(b, Spec(write ? "randwrite" : "randread", "4KiB", ios_bytes, qd, info), label.c_str());
  }
  return 0;
}
