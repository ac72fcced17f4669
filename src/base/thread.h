// Starting a thread without aborting the program.
//
// std::thread's constructor throws std::system_error when the process may not start another
// thread (ulimit -u / RLIMIT_NPROC, an address-space limit, ulimit -v / RLIMIT_AS, with no room
// left for the new thread's stack, the kernel's threads-max), and an exception that destroys
// joinable threads (a vector of them, unwinding) ends the program with std::terminate.
// StartThread returns that failure as a Status instead, so that the caller can stop the threads
// it started and report one line.
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "base/status.h"

namespace ssdlab {

// Starts `fn` on a new thread (the caller joins it). When the thread cannot start: IoError
// "cannot start WHAT: REASON (limits: ...)", naming the process's limits on processes and
// address space and the stack size each thread reserves.
Result<std::thread> StartThread(std::function<void()> fn, const std::string& what);

}  // namespace ssdlab
