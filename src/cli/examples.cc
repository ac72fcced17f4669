#include "cli/examples.h"

#include <string>
#include <utility>
#include <vector>

namespace ssdlab {
namespace {

struct Example {
  const char* command;  // what follows "ssdlab "
  const char* what;
};

const std::vector<std::pair<std::string, std::vector<Example>>>& Examples() {
  static const std::vector<std::pair<std::string, std::vector<Example>>> table = {
      {"run",
       {{"run --target sim:dc-sata-read-intensive --rw randwrite --bs 4KiB --qd 32 --runtime 10s",
         "4 KiB random writes at QD32 on the simulated DC400-class drive"},
        {"run --target /tmp/t.img --size 4GiB --rw randread --qd 32 --jobs 2 --json r.json",
         "random reads on a file (created), the result as JSON"},
        {"run --target /dev/nvme1n1 --rw randwrite --prefill --destructive --runtime 60s",
         "a real drive (its data is destroyed: --destructive)"},
        {"run qual.fio --explain", "an fio job file: each section's equivalent run, not run"}}},
      {"pts",
       {{"pts --target sim:dc-sata-read-intensive --db r.db --spec review --time-scale 32",
         "the reviewers' battery on the simulated drive, at 1/32 of its blocks"},
        {"pts --target /dev/sdb --db r.db --run sdb-1 --destructive --confirm SERIAL",
         "the SNIA PTS-E battery on a real drive (purged first; its serial confirms it)"},
        {"pts --db r.db --resume sdb-1", "continue an interrupted run where it stopped"}}},
      {"profile",
       {{"profile cdm --target /tmp/t.img --size 1GiB --db r.db",
         "CrystalDiskMark's four tests on a file"},
        {"profile op-advisor --target sim:dc-sata-mixed --db r.db",
         "which over-provisioning pays on a simulated drive"},
        {"profile my-profile.toml --target sim:tiny --db r.db", "a profile file of your own"}}},
      {"report",
       {{"report dc400-1 --db r.db -o report.html --spec kingston-dc400-1600gb",
         "one run, checked against the DC400's datasheet claims"},
        {"report sdb-1 sdc-1 --db r.db -o compare.html", "two drives side by side"}}},
      {"sim",
       {{"sim presets", "the simulated drives, one line each"},
        {"sim describe 'sim:client-nvme-tlc?op=28' > mine.toml",
         "a preset with 28% OP as a preset file (sim:mine.toml)"},
        {"sim fit sdb-1 --db r.db -o twin.toml", "a simulated twin of a measured drive"},
        {"sim serve 'sim:dc-sata-mixed?state=dc.st' --fuse /tmp/drive --loop",
         "the simulated drive in real time as /tmp/drive/drive.img and a loop device (fio, "
         "mkfs)"}}},
      {"replay",
       {{"replay trace.blktrace.0 --target sim:dc-sata-mixed", "a blktrace on a simulated drive"},
        {"replay msr.csv.gz --format msr --target /tmp/t.img --size 8GiB --timing scale:4",
         "an MSR trace on a file, four times as fast"}}},
      {"trace",
       {{"trace stats trace.blkparse.gz", "what a trace does, and the nearest ssdlab run workload"},
        {"trace capture --device /dev/sdb --time 60s -o trace",
         "record a minute of a device's I/O"}}},
      {"plp",
       {{"plp --target sim:dc-sata-mixed --cuts 200 --flush every:64",
         "200 power cuts on the simulated DC600M-class drive (PLP): nothing acknowledged is lost"},
        {"plp --target 'sim:client-nvme-tlc?plp=0' --cuts 50 --size 1GiB --json plp.json",
         "a client drive without PLP: unflushed writes lost, flushed ones kept"},
        {"plp --target 'sim:dc-sata-mixed?plp_flush=1MiB' --cuts 20 --db r.db --run weak-caps",
         "capacitors too small for the buffer: flushed writes lost, stored as a run"}}},
      {"import",
       {{"import fio.json --db r.db --run fio-1", "fio's JSON output as a stored run"},
        {"import published.csv --db r.db --run review --capacity 1.6TB",
         "published figures, for sim fit"}}},
      {"ls", {{"ls --db r.db", "the runs of a database"}}},
      {"show",
       {{"show dc400-1 --db r.db", "a run's tests and steady-state verdicts"},
        {"show dc400-1 --db r.db --json", "the whole run as JSON"}}},
      {"export",
       {{"export dc400-1 --db r.db --csv dc400-csv", "every round and phase as CSV files"},
        {"export dc400-1 --db r.db --json -", "the run as one JSON document"}}},
      {"info",
       {{"info --target /dev/nvme0n1", "model, serial, capacity, queue, SMART, temperature"},
        {"info --target 'sim:tiny?state=t.st'", "a saved simulated drive's fill, WA and wear"}}},
      {"purge",
       {{"purge --target /dev/sdb --dry-run", "what a purge would do, writing nothing"},
        {"purge --target /dev/sdb --destructive --confirm SERIAL", "erase a drive"}}},
      {"app",
       {{"app pgbench --dir /mnt/ssd --db r.db", "pgbench on a private PostgreSQL on the drive"},
        {"app pgbench --target sim:dc-sata-mixed --db r.db",
         "pgbench on a served simulated drive (ext4 made on it), its WA and GC stored too"}}},
      {"help",
       {{"help", "the topics"},
        {"help safety", "what ssdlab refuses to write, and the flags that allow it"}}},
      {"db",
       {{"db copy --from r.db --to postgresql://lab@db1/ssdlab", "a laptop's runs into the lab's"},
        {"db copy --from r.db --to b.db --run sdb-1 --as sdb-1-old", "one run, renamed"}}},
  };
  return table;
}

}  // namespace

void AddExamples(CLI::App& app) {
  for (const auto& [name, examples] : Examples()) {
    const auto named = app.get_subcommands([&n = name](CLI::App* a) { return a->get_name() == n; });
    if (named.empty()) continue;
    CLI::App* cmd = named.front();
    std::string footer = "Examples:";
    for (const Example& e : examples)
      footer += std::string("\n  ssdlab ") + e.command + "\n      " + e.what;
    cmd->footer(footer);
  }
}

}  // namespace ssdlab
