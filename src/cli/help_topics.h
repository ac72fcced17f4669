// `ssdlab help [TOPIC]`: short guides at the prompt to what every command shares (targets,
// safety, units, the simulator), each pointing at its manual page and docs/ page.
#pragma once

#include <CLI/CLI.hpp>

namespace ssdlab {

void AddHelpCommand(CLI::App& app, int* exit_code);

}  // namespace ssdlab
