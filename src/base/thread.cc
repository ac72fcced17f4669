#include "base/thread.h"

#include <sys/resource.h>

#include <new>
#include <system_error>

#include "base/units.h"

namespace ssdlab {
namespace {

std::string LimitText(int resource, bool bytes) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return "unlimited";
  return bytes ? FormatBytes(r.rlim_cur) : std::to_string(r.rlim_cur);
}

std::string Limits() {
  return "limits: ulimit -u " + LimitText(RLIMIT_NPROC, false) + " processes, ulimit -v " +
         LimitText(RLIMIT_AS, true) + " of address space, of which each thread reserves its " +
         "stack, ulimit -s " + LimitText(RLIMIT_STACK, true);
}

}  // namespace

Result<std::thread> StartThread(std::function<void()> fn, const std::string& what) {
  try {
    return std::thread(std::move(fn));
  } catch (const std::system_error& e) {
    return Status::Io("cannot start " + what + ": " + e.code().message() + " (" + Limits() + ")");
  } catch (const std::bad_alloc&) {
    return Status::Io("cannot start " + what + ": out of memory (" + Limits() + ")");
  }
}

}  // namespace ssdlab
