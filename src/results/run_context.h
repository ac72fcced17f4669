// The identity of a stored run as its document's "context" object holds it: the run's name,
// status and times, the host and the target's path. Every command that names a run in a line
// (`ls`, `show`, the fleet table, the twin's commands) reads it here, so a damaged or older
// document gives an error naming the key instead of an exception.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace ssdlab::results {

struct RunContext {
  std::string run, status, created_at, finished_at;
  std::string host;         // "" where the run records none
  std::string target_path;  // context.target.path; "" where there is none
};

// Missing keys read as ""; Invalid "WHERE.KEY is not a text" when a key holds something other
// than a JSON string, "WHERE is not an object" when `context` (or context.target, an object
// with a text "path") is not one (the wording of results/fields.h).
Result<RunContext> RunContextFromJson(const nlohmann::json& context, const std::string& where);

}  // namespace ssdlab::results
