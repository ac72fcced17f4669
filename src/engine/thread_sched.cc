#include "engine/thread_sched.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace ssdlab {
namespace {

// struct sched_attr of sched_setattr(2); glibc 2.36 declares neither.
struct SchedAttr {
  uint32_t size = sizeof(SchedAttr);
  uint32_t policy = SCHED_OTHER;
  uint64_t flags = 0;
  int32_t nice = 0;
  uint32_t priority = 0;
  uint64_t runtime_ns = 0;  // under SCHED_OTHER: the time slice asked for (Linux 6.12+)
  uint64_t deadline_ns = 0;
  uint64_t period_ns = 0;
};

}  // namespace

void PinThisThread(const std::vector<uint32_t>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t c : cpus) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

bool TakeBatchPolicy() {
  sched_param none{};
  return sched_getscheduler(0) == SCHED_OTHER && sched_setscheduler(0, SCHED_BATCH, &none) == 0;
}

void RestoreNormalPolicy() {
  sched_param none{};
  sched_setscheduler(0, SCHED_OTHER, &none);
}

bool RequestSlice(uint64_t slice_us) {
  if (sched_getscheduler(0) != SCHED_OTHER) return false;
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return false;
  SchedAttr a;
  a.nice = nice;
  a.runtime_ns = slice_us * 1000;
  if (syscall(SYS_sched_setattr, 0, &a, 0) != 0) return false;
  SchedAttr got;
  return syscall(SYS_sched_getattr, 0, &got, sizeof got, 0) == 0 && got.runtime_ns == a.runtime_ns;
}

}  // namespace ssdlab
