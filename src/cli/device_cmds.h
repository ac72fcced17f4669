// `ssdlab info` and `ssdlab purge`: what a target is, and returning it to a clean state.
// Exit statuses as in commands.h; a refusal, bad input or an unsupported method is 2, a purge
// that failed part-way 3, an interrupted one 130.
#pragma once

#include <CLI/CLI.hpp>

namespace ssdlab {

// ssdlab info --target T [--json] [--no-smart]
void AddInfoCommand(CLI::App& app, int* exit_code);
// ssdlab purge --target T [--method M] [--dry-run] [--destructive --confirm SERIAL] [--json]
void AddPurgeCommand(CLI::App& app, int* exit_code);

}  // namespace ssdlab
