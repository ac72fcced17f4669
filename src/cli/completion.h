// Shell completion generated from the command-line definitions (the tree `ssdlab man` walks):
// commands, subcommands and their options, so that completion never drifts from the code.
// Hidden commands and options (empty group) are left out, as in the manual pages.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "base/status.h"

namespace ssdlab {

// A bash script defining _ssdlab and `complete -F _ssdlab ssdlab`: subcommand names after the
// command path typed so far, option names after "-", files after an option taking a value and
// where no subcommand fits.
std::string BashCompletion(const CLI::App& app);

// A zsh completion function file (#compdef ssdlab, for a directory on $fpath): the same, with
// each subcommand's and option's description.
std::string ZshCompletion(const CLI::App& app);

// `ssdlab completion bash|zsh [-o FILE]` (hidden: what the build and `cmake --install` run;
// prints the script, or writes it to FILE).
void AddCompletionCommand(CLI::App& app, int* exit_code);

}  // namespace ssdlab
