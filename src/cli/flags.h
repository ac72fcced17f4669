// The command line's side of the options given as text (usecase/options.h): registering them
// on a command, and the --target flags.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "usecase/options.h"

namespace ssdlab {

// Registers --target (repeatable), --layout and --chunk on `cmd` (usecase/targets.h
// ComposeTarget makes them one target).
void AddTargetOptions(CLI::App* cmd, std::vector<std::string>* targets, std::string* layout,
                      std::string* chunk, const std::string& help);

template <class O>
void AddOptionDefs(CLI::App* cmd, const std::vector<usecase::OptionDef<O>>& defs,
                   usecase::OptionTexts& texts) {
  for (const usecase::OptionDef<O>& d : defs) {
    std::string& text = texts[d.flag];
    if (d.is_switch) {
      cmd->add_flag_callback(
          d.flag, [&text] { text = "true"; }, d.help);
      continue;
    }
    CLI::Option* opt = cmd->add_option(d.flag, text, d.help);
    if (!text.empty()) {
      opt->capture_default_str();
    } else if (std::string shown = usecase::DefaultText(d); !shown.empty()) {
      opt->default_str(shown);
    }
  }
}

}  // namespace ssdlab
