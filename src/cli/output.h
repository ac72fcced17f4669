// Output of results: the JSON documents (built by usecase/documents.h) written to a file or
// stdout, and a phase's human summary and exit status.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "stats/phase_result.h"
#include "usecase/documents.h"

namespace ssdlab {

// Writes `doc` to `path` ("-": stdout). Fails naming --json and the path when the write
// does not complete (full disk).
Status WriteJsonOutput(const std::string& path, const nlohmann::json& doc);

// The exit status of a finished phase, `code` unless the phase saw I/O errors or verify
// failures (kExitFindings, each said in one line) or was interrupted (kExitInterrupted).
int PhaseExitCode(const PhaseResult& r, int code);

// A fixed-width table: one row per direction that saw I/O, plus total.
std::string SummaryTable(const PhaseResult& r);

}  // namespace ssdlab
