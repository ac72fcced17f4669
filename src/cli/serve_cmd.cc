// `ssdlab sim serve`: the simulated drive in real time over FUSE and a loop device
// (serve/serve.h; docs/serve.md). Flags in, text out.
#include <signal.h>

#include <atomic>
#include <iostream>
#include <memory>

#include "base/output_file.h"
#include "cli/commands.h"
#include "serve/serve.h"

namespace ssdlab {
namespace {

std::atomic<bool> g_power_cut{false};

void OnPowerCut(int) { g_power_cut.store(true); }

struct ServeFlags {
  std::string target, fuse, cleanup, json, power_switch;
  bool loop = false, ublk = false;
  double late_us = 100, late_pct = 1;
};

// Serves (or cleans up) as the flags say; the exit status.
int RunServe(const ServeFlags* f) {
  if (!f->cleanup.empty()) {
    std::vector<std::string> done;
    Status s = serve::Cleanup(f->cleanup, &done);
    for (const std::string& line : done) std::cout << line << "\n";
    if (done.empty() && s.ok()) std::cout << "nothing to clean up at " << f->cleanup << "\n";
    return s.ok() ? kExitOk : Fail(s);
  }
  if (f->target.empty() && !f->ublk)
    return Fail(Status::Invalid("sim serve: give the target, sim:PRESET"));
  serve::ServeOptions o;
  o.target = f->target;
  o.fuse_dir = f->fuse;
  o.loop = f->loop;
  o.ublk = f->ublk;
  o.late_threshold_ns = static_cast<uint64_t>(f->late_us * 1e3);
  o.late_share_limit = f->late_pct / 100;
  o.stop = &StopFlag();
  if (!f->power_switch.empty()) {
    if (Status s = CheckOutputDestination("--power-switch", f->power_switch); !s.ok())
      return Fail(s);
    o.power_cut = &g_power_cut;
    struct sigaction sa {};
    sa.sa_handler = OnPowerCut;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, nullptr);
  }
  o.say = [](const std::string& line) { std::cout << line << std::endl; };
  o.progress = [](const std::string& line) { std::cerr << line << std::endl; };
  if (!f->json.empty()) {
    if (Status s = CheckOutputDestination("--json", f->json); !s.ok()) return Fail(s);
  }
  auto r = serve::Serve(o);
  if (!r.ok()) return Fail(r.status());
  std::cout << serve::SummaryText(*r, o) << std::flush;
  if (r->power_cut) {
    Status s = WriteOutputFile("--power-switch", f->power_switch, serve::PowerCutJson(*r));
    if (!s.ok()) return Fail(s);
  }
  if (!f->json.empty()) {
    Status s = WriteOutputFile("--json", f->json, serve::ReportJson(*r, o));
    if (!s.ok()) return Fail(s);
  }
  return kExitOk;
}

}  // namespace

void AddSimServeCommand(CLI::App& sim, int* exit_code) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* cmd = sim.add_subcommand(
      "serve",
      "Serve a simulated drive in real time as DIR/drive.img on a FUSE mount (and a loop "
      "device), for fio, filesystems and databases; docs/serve.md");
  cmd->footer(
      "Examples:\n  ssdlab sim serve 'sim:dc-sata-mixed?state=dc.st' --fuse /tmp/drive --loop\n"
      "      the simulated drive in real time as /tmp/drive/drive.img and a loop device; prints\n"
      "      'loop: /dev/loopN' and 'ready'; SIGINT or SIGTERM stops it cleanly (docs/serve.md)\n"
      "  ssdlab sim serve 'sim:tiny?plp=0&state=t.st' --fuse /tmp/drive --loop --power-switch "
      "cut.json\n"
      "      with a power switch: SIGUSR1 cuts the power (the drive keeps what the model says\n"
      "      survives), writes the model's account to cut.json and exits; restart it to power on\n"
      "  ssdlab sim serve --cleanup /tmp/drive\n"
      "      after a killed server: detach its loop device and unmount the directory");
  cmd->add_option("target", f->target, "sim:PRESET[?key=value&...&state=FILE]");
  cmd->add_option("--fuse", f->fuse, "Mount the drive as DIR/drive.img (DIR: an empty directory)");
  cmd->add_flag("--loop", f->loop,
                "Set up a loop device over DIR/drive.img (losetup --direct-io=on); prints "
                "'loop: /dev/loopN'");
  cmd->add_flag("--ublk", f->ublk, "Serve as a ublk block device (refused: FUSE only for now)");
  cmd->add_option("--json", f->json, "Write the serve's figures as JSON to FILE at the stop");
  cmd->add_option("--late-us", f->late_us,
                  "A reply later than this after its due time counts as late (default 100)");
  cmd->add_option("--late-limit-pct", f->late_pct,
                  "Above this share late the serve was not paced (default 1)");
  cmd->add_option("--power-switch", f->power_switch,
                  "Give the drive a power switch: SIGUSR1 cuts its power and FILE receives the "
                  "model's account of the cut (docs/serve.md)");
  cmd->add_option("--cleanup", f->cleanup,
                  "After a killed server: detach the loop devices over DIR/drive.img and "
                  "unmount DIR");
  cmd->callback([f, exit_code] { *exit_code = RunServe(f.get()); });
}

}  // namespace ssdlab
