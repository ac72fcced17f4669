// Where and how the calling thread is scheduled: its CPUs, and the policy and time slice that
// the io-wq workers it starts afterwards inherit (docs/engine.md, "Devices that block" and "A
// job and its io-wq worker on one CPU"). The policy calls change only a thread under the normal
// policy (SCHED_OTHER): one the user put under another (chrt) keeps it.
#pragma once

#include <cstdint>
#include <vector>

namespace ssdlab {

// Pins the calling thread to `cpus` (none: left as it is).
void PinThisThread(const std::vector<uint32_t>& cpus);

// SCHED_BATCH: once woken, the thread no longer preempts the one running on its CPU (it runs
// when that one sleeps, or at the scheduler's tick). Returns whether the policy was changed
// (RestoreNormalPolicy undoes it).
bool TakeBatchPolicy();
void RestoreNormalPolicy();

// Asks for a time slice of `slice_us` (EEVDF's custom slice, Linux 6.12+): a thread with a
// shorter slice than the one running preempts it when woken, instead of waiting for that one's
// slice to run out. Returns whether the kernel took it (an older kernel accepts and ignores
// the request, and reads back no slice). The nice value is kept.
bool RequestSlice(uint64_t slice_us);

}  // namespace ssdlab
