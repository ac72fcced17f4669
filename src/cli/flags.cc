#include "cli/flags.h"

namespace ssdlab {

void AddTargetOptions(CLI::App* cmd, std::vector<std::string>* targets, std::string* layout,
                      std::string* chunk, const std::string& help) {
  cmd->add_option("--target", *targets, help + "; repeat with --layout for an array")
      ->allow_extra_args(false);
  cmd->add_option("--layout", *layout,
                  "Array of the --target simulated drives: raid0, raid1, raid10, raid5 or raid6");
  cmd->add_option("--chunk", *chunk, "Array chunk (stripe unit) size (64KiB)");
}

}  // namespace ssdlab
