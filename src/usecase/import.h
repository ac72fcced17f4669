// The `import` use case: measurements made elsewhere (fio JSON, a CSV of published figures,
// twin/import.h) stored whole as a run of kind "imported". The CLI binds the flags to an
// ImportRequest and prints the ImportOutcome.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace ssdlab::usecase {

struct ImportRequest {
  std::string file;      // fio --output-format=json output (.json) or a figures CSV (.csv)
  std::string db;        // the results database (created if missing)
  std::string run;       // the new run's name (must not exist)
  std::string format;    // csv or fio ("" = from the file's name)
  std::string capacity;  // the drive's user capacity as given ("" = unknown)
  std::string model;     // the drive's model
  std::string iops_state = "steady";  // steady or fresh: how the IOPS cells were measured
};

struct ImportOutcome {
  size_t cells = 0;  // the cells imported
  size_t tests = 0;  // in this many tests
};

// Imports the file as run `run`: stored whole or not at all. An error names the file, flag or
// run at fault, or why the store failed.
Result<ImportOutcome> Import(const ImportRequest& a);

}  // namespace ssdlab::usecase
