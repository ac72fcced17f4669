#include "usecase/console.h"

namespace ssdlab::usecase {

int ExitStatusFor(const Status& status) {
  switch (status.code()) {
    case Code::kInvalidArgument:
    case Code::kNotFound:
    case Code::kPermission:
    case Code::kNoSpace:
    case Code::kUnsupported:
      return kExitUsage;
    case Code::kInterrupted:
      return kExitInterrupted;
    default:
      return kExitFailed;
  }
}

int RecordingConsole::Fail(const Status& status) {
  errors.push_back(status.message());
  return ExitStatusFor(status);
}

}  // namespace ssdlab::usecase
