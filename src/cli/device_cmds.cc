// `ssdlab info` and `ssdlab purge`.
#include "cli/device_cmds.h"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "base/units.h"
#include "cli/commands.h"
#include "device/identify.h"
#include "device/purge.h"
#include "device/smart.h"
#include "usecase/device.h"

namespace ssdlab {
namespace {

using nlohmann::json;

std::string Or(const std::string& s) { return s.empty() ? "-" : s; }

template <typename T>
std::string OptStr(const std::optional<T>& v, const char* unit = "") {
  if (!v) return "-";
  if constexpr (std::is_floating_point_v<T>) return fmt::format("{:g}{}", *v, unit);
  return fmt::format("{}{}", *v, unit);
}

std::string Bytes(uint64_t b) {
  return fmt::format("{} bytes ({:.1f} GB, {:.1f} GiB)", b, DecimalGb(b), BinaryGib(b));
}

std::string OptBytes(const std::optional<uint64_t>& b) { return b ? Bytes(*b) : "-"; }

// --- info ----------------------------------------------------------------------------------

struct InfoArgs {
  std::string target;
  bool json = false;
  bool no_smart = false;
};

void PrintIdentity(const DeviceIdentity& id) {
  auto row = [](const std::string& k, const std::string& v) {
    std::cout << fmt::format("{:<20}{}\n", k, v);
  };
  row("target", id.path + (id.resolved_path != id.path ? " -> " + id.resolved_path : ""));
  row("kind", id.kind);
  if (id.kind == "file") {
    row("size", Bytes(id.size_bytes));
    row("allocated", Bytes(id.file_allocated_bytes));
    row("filesystem", Or(id.filesystem) + (id.mount_point.empty() ? "" : " on " + id.mount_point));
    row("backing device", id.disk ? id.disk->dev_path : "- (" + id.disk_note + ")");
  } else if (!id.partition.empty()) {
    row("partition", fmt::format("/dev/{} at byte {}, {}", id.partition, id.partition_start_bytes,
                                 Bytes(id.size_bytes)));
  }
  if (!id.disk) return;
  const DiskIdentity& d = *id.disk;
  std::string pre = id.kind == "file" ? "disk " : "";
  row(pre + "device", d.dev_path + " (" + d.devno + ")");
  row(pre + "transport", TransportName(d.transport));
  row(pre + "vendor", Or(d.vendor));
  row(pre + "model", Or(d.model));
  row(pre + "serial", Or(d.serial));
  row(pre + "firmware", Or(d.firmware));
  row(pre + "wwn", Or(d.wwn));
  row(pre + "capacity", Bytes(d.capacity_bytes));
  row(pre + "sectors",
      fmt::format("{} B logical, {} B physical", d.logical_sector_bytes, d.physical_sector_bytes));
  row(pre + "rotational", d.rotational ? "yes" : "no");
  row(pre + "queue",
      fmt::format(
          "nr_requests {}{}, scheduler {}", d.nr_requests,
          d.device_queue_depth ? fmt::format(", device queue depth {}", d.device_queue_depth) : "",
          Or(d.scheduler)));
  row(pre + "write cache", Or(d.write_cache));
  row(pre + "discard",
      d.discard_max_bytes ? fmt::format("yes (max {} bytes)", d.discard_max_bytes) : "no");
  if (d.transport == Transport::kNvme) {
    row("nvme namespace", fmt::format("{} on {}", d.nvme_namespace_id, Or(d.nvme_controller)));
    for (const NvmeLbaFormat& f : d.nvme_lba_formats) {
      row(fmt::format("  lba format {}", f.index),
          fmt::format("{} B data + {} B metadata, rp {}{}", f.data_bytes, f.metadata_bytes,
                      f.relative_performance, f.in_use ? " (in use)" : ""));
    }
  }
  if (!d.loop_backing_file.empty()) row("backing file", d.loop_backing_file);
}

void PrintSmart(const SmartHealth& h) {
  auto row = [](const std::string& k, const std::string& v) {
    std::cout << fmt::format("{:<20}{}\n", k, v);
  };
  row("smart status", h.passed ? (*h.passed ? "PASSED" : "FAILED") : "-");
  row("temperature", OptStr(h.temperature_c, " C"));
  row("power-on hours", OptStr(h.power_on_hours));
  row("host writes", OptBytes(h.host_writes_bytes));
  row("media writes", OptBytes(h.media_writes_bytes));
  row("percentage used", OptStr(h.percentage_used, " %"));
  row("media errors", OptStr(h.media_errors));
  row("unsafe shutdowns", OptStr(h.unsafe_shutdowns));
  for (const std::string& n : h.notes) row("note", n);
}

int PrintSimInfo(const usecase::InfoOutcome& o) {
  auto row = [](const std::string& k, const std::string& v) {
    std::cout << fmt::format("{:<34}{}\n", k, v);
  };
  const TargetInfo& t = o.sim_target;
  row("target", t.path);
  row("kind", "sim (simulated drive, virtual time)");
  row("model", t.model);
  row("serial", t.serial);
  row("firmware", t.firmware);
  row("capacity (simulated)", Bytes(t.size_bytes));
  row("sectors",
      fmt::format("{} B logical, {} B physical", t.logical_block_bytes, t.physical_block_bytes));
  for (const SimFigure& f : o.sim_figures)
    row(f.key, f.value + (f.unit.empty() ? "" : " " + f.unit));
  const json& st = o.doc["state"];
  if (!st.is_null()) {
    row("state", st["path"].get<std::string>());
    if (!st["exists"].get<bool>()) {
      row("state fill", "none yet: the drive is factory-fresh until a command saves it");
    } else {
      row("state fill",
          fmt::format("{:.2f}% of the user space mapped ({})", st["fill_pct"].get<double>(),
                      FormatBytes(st["mapped_bytes"].get<uint64_t>())));
      row("state write amplification",
          fmt::format("{:.3f} so far ({} written by the host since the last purge)",
                      st["write_amplification"].get<double>(),
                      FormatBytes(st["host_bytes_written"].get<uint64_t>())));
      row("state erase count",
          fmt::format("mean {:.2f}, max {} per block", st["erase_count_mean"].get<double>(),
                      st["erase_count_max"].get<uint64_t>()));
      row("state free blocks",
          fmt::format("{} of {}", st["free_blocks"].get<uint64_t>(), st["blocks"].get<uint64_t>()));
      row("state virtual time", fmt::format("{:.3f} s", st["virtual_time_s"].get<double>()));
    }
  }
  row("smart", "none (simulated drive)");
  row("temperature", "none (a simulated drive models no temperature)");
  return kExitOk;
}

int Info(const InfoArgs& a) {
  auto o = usecase::Info({.target = a.target, .no_smart = a.no_smart});
  if (!o.ok()) return Fail(o.status());
  if (a.json) {
    std::cout << o->doc.dump(1) << "\n";
    return kExitOk;
  }
  if (o->simulated) return PrintSimInfo(*o);
  PrintIdentity(o->identity);
  if (o->health) {
    PrintSmart(*o->health);
  } else {
    std::cout << fmt::format("{:<20}not available: {}\n", "smart",
                             o->doc["smart"]["reason"].get<std::string>());
  }
  if (!o->health && o->sample.temperature_c)
    std::cout << fmt::format("{:<20}{:g} C ({})\n", "temperature", *o->sample.temperature_c,
                             o->sample.source);
  return kExitOk;
}

// --- purge ---------------------------------------------------------------------------------

struct PurgeArgs {
  std::string target;
  std::string method = "auto";
  bool dry_run = false;
  bool destructive = false;
  std::string confirm;
  bool json = false;
};

void PrintPlan(const PurgePlan& p, const Status& allowed, std::ostream& out) {
  out << fmt::format("target   {}\n", DescribeTarget(p.target));
  out << fmt::format("method   {}{}\n", PurgeMethodName(p.method),
                     p.requested == PurgeMethod::kAuto ? " (auto)" : "");
  for (size_t i = 0; i < p.steps.size(); ++i)
    out << fmt::format("step {}   {}\n", i + 1, p.steps[i].text);
  for (const std::string& n : p.notes) out << "note     " << n << "\n";
  if (!allowed.ok()) out << "refused  " << allowed.message() << "\n";
}

// What a dry run says it would do, on `out`.
void PrintDryRun(const PurgeArgs& a, const usecase::PurgeOutcome& o, std::ostream& out) {
  if (o.plan) {
    PrintPlan(*o.plan, o.allowed, out);
  } else {
    out << "target   " << a.target << "\n"
        << "step 1   reset the simulated drive's state in " << o.sim_state
        << " to factory-fresh (mapping empty, blocks erased, clock 0; wear kept)\n";
    if (!o.allowed.ok()) out << "refused  " << o.allowed.message() << "\n";
  }
  out << "dry run: nothing was written\n";
}

int Purge(const PurgeArgs& a) {
  usecase::PurgeRequest r{.target = a.target,
                          .method = a.method,
                          .dry_run = a.dry_run,
                          .destructive = a.destructive,
                          .confirm = a.confirm,
                          .stop = &StopFlag()};
  if (!a.json)
    r.on_progress = [](const std::string& line) { std::cerr << "ssdlab: " << line << std::endl; };
  auto o = usecase::Purge(r);
  if (!o.ok()) return Fail(o.status());
  std::ostream& human = a.json ? std::cerr : std::cout;
  if (a.dry_run) PrintDryRun(a, *o, human);
  if (a.json) std::cout << o->doc.dump(1) << "\n";
  if (a.dry_run) return kExitOk;
  if (!o->done.ok()) return Fail(o->done);
  if (o->plan) {
    human << fmt::format("purged {} with {} in {:.1f} s\n", DescribeTarget(o->plan->target),
                         PurgeMethodName(o->plan->method), o->elapsed_s);
  } else {
    human << fmt::format(
        "purged {}: state {} is a factory-fresh drive ({}) in {:.1f} s\n", a.target, o->sim_state,
        o->sim_state_was_damaged ? "it was damaged: its wear is lost" : "wear kept", o->elapsed_s);
  }
  return kExitOk;
}

}  // namespace

void AddInfoCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Identify a target: model, serial, capacity, sectors, queue, SMART, temperature");
  cmd->add_option("--target", a->target,
                  "Block device (any symlink such as /dev/disk/by-id/...), file, or "
                  "sim:PRESET[?key=value&...] (with state=PATH: the saved drive's fill, WA, wear)")
      ->required();
  cmd->add_flag("--json", a->json, "Print a JSON document on stdout instead of the table");
  cmd->add_flag("--no-smart", a->no_smart, "Skip smartctl");
  cmd->callback([a, exit_code] { *exit_code = Info(*a); });
}

void AddPurgeCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<PurgeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "purge", "Erase a target: secure erase, format, sanitize, discard, zero, punch holes");
  cmd->add_option("--target", a->target,
                  "Block device (symlinks resolved), file, or sim:PRESET?state=PATH (resets the "
                  "saved drive; replaces a damaged state of ssdlab's, never a foreign file)")
      ->required();
  cmd->add_option("--method", a->method, PurgeMethodNames("|"))->capture_default_str();
  cmd->add_flag("--dry-run", a->dry_run,
                "Print the exact commands and ioctls, and whether the checks pass; write nothing");
  cmd->add_flag("--destructive", a->destructive, "Allow destroying the target's data");
  cmd->add_option("--confirm", a->confirm,
                  "The device's serial or WWN (loop devices: the backing file; devices with "
                  "neither: the kernel name)");
  cmd->add_flag("--json", a->json,
                "Print a JSON document on stdout (progress and text go to stderr)");
  cmd->callback([a, exit_code] { *exit_code = Purge(*a); });
}

}  // namespace ssdlab
