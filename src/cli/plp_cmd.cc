// `ssdlab plp --target sim:PRESET --cuts N`: a power-loss campaign (usecase/plp.h,
// docs/plp.md): a table of the cuts, a summary, the JSON document and the stored run.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "base/secrets.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "usecase/plp.h"
#include "usecase/plp_rig.h"

namespace ssdlab {
namespace {

struct PlpArgs {
  usecase::PlpRequest q;
  std::string json;
};

std::string Findings(const std::array<uint64_t, usecase::kPlpClasses>& f) {
  std::string s;
  for (int k = 0; k < usecase::kPlpClasses; ++k) s += fmt::format(" {:>8}", f[k]);
  return s;
}

void PrintCampaign(const PlpArgs& a, const usecase::PlpOutcome& o) {
  std::ostream& out = a.json == "-" ? std::cerr : std::cout;
  out << fmt::format("{:>4} {:>12} {:>9} {:>5} {:>8}", "cut", "time", "IOPS", "busy", "ready");
  for (int k = 0; k < usecase::kPlpClasses; ++k)
    out << fmt::format(" {:>8}", std::string(usecase::PlpClassKey(k)).substr(0, 8));
  out << "\n";
  for (size_t i = 0; i < o.cuts.size(); ++i) {
    const usecase::PlpCut& c = o.cuts[i];
    out << fmt::format("{:>4} {:>12} {:>9.0f} {:>5} {:>8}", i + 1,
                       FormatNs(static_cast<double>(c.cut_ns)), c.load.iops, c.load.in_flight,
                       FormatNs(static_cast<double>(c.ready_ns)))
        << Findings(c.findings) << "\n";
  }
  out << fmt::format(
      "{} cuts: {} lost flushed writes (PLP failures), {} old generations, {} "
      "torn, {} misdirected, {} unreadable; {} lost unflushed writes (allowed)\n",
      o.cuts.size(), o.totals[usecase::kLostFlushed], o.totals[usecase::kOldGeneration],
      o.totals[usecase::kTorn], o.totals[usecase::kMisdirected], o.totals[usecase::kUnreadable],
      o.totals[usecase::kLostUnflushed]);
  if (!o.run.empty()) out << fmt::format("stored as run '{}' in {}\n", o.run, MaskSecrets(a.q.db));
}

int Plp(PlpArgs& a) {
  if (a.q.target.empty()) return Fail(Status::Invalid("plp: give --target"));
  a.q.outputs = {{"--json", a.json}};
  a.q.stop = &StopFlag();
  auto outcome = usecase::RunPlp(a.q);
  if (!outcome.ok()) return Fail(outcome.status());
  int code = kExitOk;
  if (!outcome->failed.ok()) code = Fail(outcome->failed);  // the cuts before it are kept
  if (!outcome->stored.ok()) {
    PrintError(outcome->stored.message());
    code = kExitFailed;
  }
  PrintCampaign(a, *outcome);
  if (!a.json.empty()) {
    if (Status w = WriteJsonOutput(a.json, outcome->doc); !w.ok()) {
      PrintError(w.message());
      return kExitFailed;
    }
  }
  return code;
}

}  // namespace

void AddPlpCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<PlpArgs>();
  usecase::PlpRequest& q = a->q;
  CLI::App* cmd = app.add_subcommand(
      "plp", "Power-loss integrity: cut power under load, verify what the drive kept");
  cmd->add_option("--target", q.target,
                  "Drive under test: sim:PRESET[?key=value&...], or a block device (a real rig: "
                  "--power-off, --power-on, --journal, --destructive)");
  cmd->add_option("--cuts", q.cuts, "Power cuts, each at a random time within its load segment")
      ->capture_default_str();
  cmd->add_option("--flush", q.flush, "Flush policy: none, every:N (a flush after N writes), fua")
      ->capture_default_str();
  cmd->add_option("--bs", q.bs, "Block sizes, comma-separated (multiples of 4KiB), drawn at random")
      ->capture_default_str();
  cmd->add_option("--rwmix-read", q.rwmix_read, "Share of reads in the load, percent")
      ->capture_default_str();
  cmd->add_option("--qd", q.qd, "Queue depth of the load")->capture_default_str();
  cmd->add_option("--segment", q.segment, "Load before each cut (the cut falls at random in it)")
      ->capture_default_str();
  cmd->add_option("--size", q.size, "Range written and verified from offset 0 (default: all)");
  cmd->add_option("--seed", q.seed, "Seed of the load and of the cut times")->capture_default_str();
  cmd->add_option("--json", a->json, "Write the campaign document to FILE (- for stdout)");
  cmd->add_option("--db", q.db, "Store the campaign as a run of kind plp in this database");
  cmd->add_option("--run", q.run, "Run name in --db (default plp-YYYYMMDD-HHMMSS)");
  cmd->add_option("--power-off", q.power_off,
                  "Real rig: shell command that cuts the drive's power (SSDLAB_PLP_CUT=N set)");
  cmd->add_option("--power-on", q.power_on, "Real rig: shell command that restores it");
  cmd->add_option("--settle", q.settle, "Real rig: time between power off and power on")
      ->capture_default_str();
  cmd->add_option("--ready-timeout", q.ready_timeout,
                  "Real rig: how long the drive may take to come back after --power-on")
      ->capture_default_str();
  cmd->add_option("--journal", q.journal,
                  "Real rig: the journal of acknowledgements, a FILE on another disk or "
                  "HOST:PORT of 'ssdlab plp journal'");
  cmd->add_flag("--destructive", q.destructive,
                "Allow writing the block device (its data is lost)");

  struct JournalArgs {
    uint16_t port = 0;
    std::string out;
  };
  auto j = std::make_shared<JournalArgs>();
  CLI::App* jcmd = cmd->add_subcommand(
      "journal", "Receive a real rig's journal (--journal HOST:PORT) on this host, into a file");
  jcmd->add_option("--listen", j->port, "TCP port (0: any; the port is printed)")->required();
  jcmd->add_option("--out", j->out, "Append the journal's records to FILE")->required();
  jcmd->callback([j, exit_code] {
    uint64_t records = 0;
    Status s = usecase::ReceivePlpJournal(
        j->port, j->out,
        [](uint16_t port) { std::cout << "listening on port " << port << std::endl; }, &records);
    if (!s.ok()) {
      *exit_code = Fail(s);
      return;
    }
    std::cout << records << " records received into " << j->out << std::endl;
    *exit_code = kExitOk;
  });
  cmd->callback([a, exit_code, jcmd] {
    if (jcmd->parsed()) return;
    *exit_code = Plp(*a);
  });
}

}  // namespace ssdlab
