// The examples that end each command's --help (and fill the EXAMPLES of its manual page).
#pragma once

#include <CLI/CLI.hpp>

namespace ssdlab {

// Sets the footer of every command of `app` that has examples: "Examples:" and two to four
// command lines, each with what it does.
void AddExamples(CLI::App& app);

}  // namespace ssdlab
