// Spreading a simulated drive's independent work over MPI ranks, with the stored results of
// one process: `mpirun -n N ssdlab pts --target sim:...` (no %r/%h, no --target-map, no
// --mpi) and `mpirun -n N ssdlab profile op-advisor --target sim:...`.
//
// The work falls into segments that start from a factory-fresh drive (a purge on the
// simulator): a PTS test (each begins with its own purge), an op-advisor point (a purge, then
// its phase). A PTS test belongs to the rank SpreadOwners gives it (the
// longest tests spread first); op-advisor segment k belongs to rank k mod N.
//
// Pass 1, on every rank: the suite runs on the rank's own simulator (the same preset and seed)
// into an in-memory journal, through a recorder that keeps every result of the segments the
// rank owns. Segments it does not own are skipped: a PTS test is marked done in the journal,
// an op-advisor point's phase is answered with an empty result (the op-advisor's later points
// never depend on earlier ones' figures).
// Pass 2, on rank 0: the suite runs again, the usual way into the real store, on a replayer
// that answers every call, in order, with its owner's recorded result, and checks that each
// call is the one recorded (else kInternal: the work was not independent).
//
// So the stored run is byte for byte what one process stores, as long as a purge makes the
// drive factory-fresh: spreading needs the simulator, a purge other than `none` and no
// `state=` file (WantSpread says why not).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "lab/mpi.h"
#include "suite/journal.h"
#include "suite/pts.h"
#include "usecase/console.h"

namespace ssdlab::usecase {

enum class SpreadUnit {
  kTests,   // a segment per PTS test (test i of the battery is segment i)
  kPurges,  // a segment from each purge to the next (op-advisor points)
};

// Which worker runs each of the battery's `tests` (kTests) when `workers` share them: the
// longest first, each to the worker with the least work so far (by the tests' usual shares of
// a battery's time), so that the workers end close together. Any assignment stores the same
// run; this one only makes it sooner.
std::vector<int> SpreadOwners(const std::vector<std::string>& tests, int workers);

// Whether work on `target` with purge method `purge` may be spread over ranks; "" when it
// may, else why not (for a note: the work then runs on rank 0 alone).
std::string WhyNotSpread(const std::string& target, const std::string& purge, bool resume);

// Pass 1 of the suite: runs it on `backend` into `journal` (its run id is 1) with `hooks`.
using SpreadPass = std::function<Status(Backend& backend, RunJournal& journal, TestHooks* hooks)>;

// Collective: runs pass 1 on every rank (kTests: `tests` are the battery's test names, in
// order) over this rank's `local` backend and gathers the records at rank 0. Returns on rank
// 0 the backend for pass 2 (the replayer, which owns `local`), null on the other ranks.
Result<std::unique_ptr<Backend>> SpreadOverRanks(MpiWorld& world, std::unique_ptr<Backend> local,
                                                 SpreadUnit unit,
                                                 const std::vector<std::string>& tests,
                                                 const SpreadPass& pass);

// The same in one process: pass 1 on 1 + others.size() threads at once, worker 0 on `local`
// and worker k on others[k - 1] (simulators of the same preset and seed: copies of the drive),
// then pass 2's replayer over `local`. The stored run is what one thread stores; the replayer
// checks every call. `stop` set during pass 1 (Ctrl-C) ends each worker's segments where they
// stopped; pass 2 then replays what was measured and ends as interrupted at the first call no
// worker made. REQUIRES: `pass` may run on several threads at once (each on its own backend).
std::unique_ptr<Backend> SpreadOverThreads(std::unique_ptr<Backend> local,
                                           std::vector<std::unique_ptr<Backend>> others,
                                           SpreadUnit unit, const std::vector<std::string>& tests,
                                           const SpreadPass& pass, const std::atomic<bool>* stop);

// Threads for SpreadOverThreads on a simulated drive of `drive_bytes` (its scaled size) with
// `segments` segments: the CPUs, at most the segments, and no more copies of the drive than
// fit in half the memory available now (at least 1).
int SpreadThreadsFor(uint64_t drive_bytes, size_t segments);

// A command spread over the ranks (`pts`, `profile`), as RunSpread runs it.
struct SpreadCommand {
  std::string why_not;  // WhyNotSpread's answer, or another reason; "" when it is spread
  std::string note;     // rank 0's note: spread over how many ranks, or why not
  SpreadUnit unit = SpreadUnit::kTests;
  std::vector<std::string> tests;  // kTests: the battery's test names
  // This rank's simulator, opened and checked as the command would (collective: every rank's
  // failure is told to all).
  std::function<Result<std::unique_ptr<Backend>>()> open;
  SpreadPass pass;
  // Rank 0's command the usual way: on `opened` (pass 2's replayer), or, when null, on the
  // target it opens itself (not spread, or a rank failed to open: it then says what is wrong
  // as one process would). Returns its exit status.
  std::function<int(std::unique_ptr<Backend> opened)> run;
};

// Collective: spreads `c` (or runs it on rank 0 alone, with a note saying why, when
// c.why_not is set) and returns rank 0's exit status on every rank. Rank 0's notes and a failure
// to gather the records go to `console`.
int RunSpread(MpiWorld& world, const SpreadCommand& c, Console& console);

}  // namespace ssdlab::usecase
