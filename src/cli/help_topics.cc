#include "cli/help_topics.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"

namespace ssdlab {
namespace {

const std::vector<std::pair<std::string, std::string>>& Topics() {
  static const std::vector<std::pair<std::string, std::string>> topics = {
      {"targets",
       R"(What every --target can be:
  FILE                 a regular file (created with --size when missing; O_DIRECT)
  /dev/...             a block device (symlinks such as /dev/disk/by-id/... accepted);
                       writing it needs --destructive (ssdlab help safety)
  sim:PRESET[?k=v&..]  a simulated drive in virtual time: `ssdlab sim presets` lists them,
                       `ssdlab sim describe PRESET` shows every key (op=28, scale=32, ...);
                       state=PATH keeps the drive between commands
  --target A --target B --layout raid0|raid1|raid10|raid5|raid6 [--chunk 64KiB]
                       an array of simulated drives
With --mpi, %r and %h in a target stand for the MPI rank and the host.
More: docs/run.md, docs/sim.md, man ssdlab-run.)"},
      {"safety",
       R"(What ssdlab refuses, and the flags that allow it:
  - Writing or trimming a block device needs --destructive (without it the refusal says what
    the device holds: filesystem, RAID member, partition table); a device that is mounted, has
    a mounted partition, is swap or is held by md/dm/LVM is refused even then.
  - Whole-device destruction (pts and purge on a block device) also needs --confirm with the
    device's serial or WWN (a loop device: its backing file).
  - The backing file of an idle loop device is written only with --destructive, of one in use
    never; outputs (--json, --db, reports) never overwrite a target, a state file or each other.
  - ls, show, report and export open the database read-only.
  - Ctrl-C stops within a second and keeps what was measured (exit status 130).
Exit statuses: 0 ok, 1 I/O errors or verify failures, 2 bad input or a refusal (nothing
written), 3 could not proceed, 4 pts --require-steady-state missed, 130 interrupted.
More: docs/drives.md, docs/guarantees.md, man ssdlab-purge.)"},
      {"units",
       R"(How sizes, durations and amounts are written:
  sizes       4k, 4K, 4KiB = 4096 bytes (binary, as fio); kB KB MB GB TB are decimal, as
              drive vendors use (1.6TB = 1,600,000,000,000 bytes)
  amounts     --io-size and --ramp also take Nx: N times the active range (2x)
  ranges      --range 0%-25% or 1GiB-2GiB
  durations   ns us ms s m h (10s, 937500us)
  rates       IOPS; bandwidth in the run's output as bytes per second and MB/s (10^6)
  block mixes --bs 4KiB:67,8KiB:10,64KiB:23 (size:percent)
More: docs/run.md, man ssdlab-run.)"},
      {"sim",
       R"(The simulated SSD: a flash translation layer model in virtual time, so that a test of
hours runs in seconds and touches no disk.
  ssdlab sim presets                     the drives, one line each (--long: every parameter)
  ssdlab sim describe 'sim:tiny?op=28'   a preset with overrides as a preset file
  ssdlab run --target sim:dc-sata-mixed --rw randwrite --runtime 10s
  ssdlab pts --target sim:dc-sata-read-intensive --db r.db --time-scale 32
                                         the full drive's battery at 1/32 of its blocks
  ssdlab sim fit RUN --db r.db -o twin.toml   a twin fitted to a measured run
What if: change a key (op=, gc=, scale=) and run the same command again.
More: docs/sim.md, docs/twin.md, man ssdlab-sim.)"},
  };
  return topics;
}

}  // namespace

void AddHelpCommand(CLI::App& app, int* exit_code) {
  auto topic = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "help", "Short guides: targets, safety, units, sim (each names its manual pages)");
  cmd->add_option("topic", *topic, "targets, safety, units or sim (none: the list)");
  cmd->callback([topic, exit_code] {
    std::string names;
    for (const auto& [name, text] : Topics()) {
      if (name == *topic) {
        std::cout << text << "\n";
        *exit_code = kExitOk;
        return;
      }
      names += (names.empty() ? "" : ", ") + name;
    }
    if (topic->empty()) {
      std::cout << "ssdlab help TOPIC, TOPIC one of: " << names
                << "\nEach command: ssdlab COMMAND --help, man ssdlab-COMMAND\n";
      *exit_code = kExitOk;
      return;
    }
    *exit_code =
        Fail(Status::Invalid("help: unknown topic '" + *topic + "' (topics: " + names + ")"));
  });
}

}  // namespace ssdlab
