// Manual pages generated from the command-line definitions (commands, flags, types, defaults,
// help texts and the examples of each command's --help), so that they never drift from the
// code: ssdlab(1), and ssdlab-COMMAND(1) for every command, its subcommands as sections.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "base/status.h"

namespace ssdlab {

// The roff source of ssdlab(1) (`cmd` the top-level app) or ssdlab-NAME(1) (`cmd` a command).
std::string ManPage(const CLI::App& cmd, const std::string& version);

// Writes ssdlab.1 and ssdlab-NAME.1 for every visible command of `app` into `dir` (created
// when missing). kIoError naming the file that could not be written.
Status WriteManPages(const CLI::App& app, const std::string& dir, const std::string& version);

// `ssdlab man --dir DIR` (hidden: what the build and `cmake --install` run).
void AddManCommand(CLI::App& app, int* exit_code, const std::string& version);

}  // namespace ssdlab
