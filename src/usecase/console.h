// How a use case talks to its user while it works, and the exit statuses that the MPI paths
// pass between ranks. The use cases never print: the CLI implements Console (cli/commands.h
// CliConsole: stderr) and a test can record what was said.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab::usecase {

// The process's exit statuses (docs in cli/commands.h). The MPI paths (fleet, spread, --mpi)
// exchange them between ranks, so they are declared here, below the CLI.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailed = 3;
inline constexpr int kExitNotSteady = 4;
inline constexpr int kExitInterrupted = 130;

// The exit status for a failed Status: bad input, refusals, missing things and unsupported
// requests are kExitUsage; interruption kExitInterrupted; the rest kExitFailed. (The CLI's
// ExitCodeFor is this mapping.)
int ExitStatusFor(const Status& status);

class Console {
 public:
  virtual ~Console() = default;
  // One line for the user (a note, a table, progress of a long step); no trailing newline
  // needed. Several lines may be given at once.
  virtual void Note(const std::string& lines) = 0;
  // Says that the command fails on `status` (one line) and returns its exit status.
  virtual int Fail(const Status& status) = 0;
  // The message of the last failure said through Fail ("" when none).
  virtual std::string LastError() const = 0;
};

// A Console that keeps what it was told (for tests and for a caller that prints later);
// Fail returns ExitStatusFor(status).
class RecordingConsole : public Console {
 public:
  void Note(const std::string& lines) override { notes += lines; }
  int Fail(const Status& status) override;
  std::string LastError() const override { return errors.empty() ? "" : errors.back(); }
  std::string notes;
  std::vector<std::string> errors;
};

}  // namespace ssdlab::usecase
