// Runs external tools (smartctl, hdparm, nvme, sg_format, database servers' clients) and
// captures their output. Used by device/ and apps/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;     // stdout
  std::string err;     // stderr
};

// The absolute path of `tool` found in $PATH, /usr/sbin or /sbin, or "" when absent.
std::string FindTool(const std::string& tool);

// Runs argv[0] (looked up like FindTool) with argv, stdin from /dev/null, to completion or
// until `timeout_s` (0 = no limit) passes, when it is killed and kIoError returned naming the
// timeout. kUnsupported when the tool is not installed, naming `package` and how to get it.
// A non-zero exit is not an error here: callers judge exit codes.
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv, uint64_t timeout_s,
                                 const std::string& package);

// "smartctl --json -a /dev/sda": argv joined for messages and dry runs, quoting words with
// spaces or shell metacharacters.
std::string JoinArgv(const std::vector<std::string>& argv);

}  // namespace ssdlab
