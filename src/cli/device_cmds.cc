// `ssdlab info` and `ssdlab purge`.
#include "cli/device_cmds.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/units.h"
#include "cli/commands.h"
#include "device/device_json.h"
#include "device/health.h"
#include "device/identify.h"
#include "device/purge.h"
#include "device/safety.h"
#include "device/smart.h"
#include "sim/params.h"
#include "sim/sim.h"
#include "sim/state.h"

namespace ssdlab {
namespace {

using nlohmann::json;

inline constexpr int kDeviceSchemaVersion = 1;

bool IsSim(const std::string& t) { return t.rfind("sim:", 0) == 0; }

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

// The state=PATH of a simulated drive: its summary (header only, sim/state.h), or null when the
// target has none; "exists": false when PATH does not exist yet.
Result<json> SimStateJson(const std::string& target) {
  SSDLAB_ASSIGN_OR_RETURN(sim::SimParams p, sim::ParseSimTarget(target));
  if (p.state_path.empty()) return json(nullptr);
  std::error_code ec;
  if (!std::filesystem::exists(p.state_path, ec))
    return json{{"path", p.state_path}, {"exists", false}};
  SSDLAB_ASSIGN_OR_RETURN(sim::StateSummary s, sim::ReadStateHeader(p.state_path, p));
  return json{{"path", p.state_path},
              {"exists", true},
              {"fill_pct", s.fill_pct()},
              {"mapped_bytes", s.mapped_pages * sim::kUnitBytes},
              {"user_bytes", s.user_pages * sim::kUnitBytes},
              {"write_amplification", s.write_amplification()},
              {"host_bytes_written", s.host_pages * sim::kUnitBytes},
              {"nand_bytes_written", s.nand_pages * sim::kUnitBytes},
              {"gc_page_copies", s.gc_copies},
              {"erases", s.erases},
              {"erase_count_mean", s.erase_count_mean},
              {"erase_count_max", s.erase_count_max},
              {"free_blocks", s.free_blocks},
              {"blocks", s.blocks},
              {"virtual_time_s", static_cast<double>(s.virtual_time_ns) * 1e-9}};
}

// A simulated drive answers with its model's figures; it has no SMART and no sensor.
int SimInfo(const InfoArgs& a) {
  // A look at the state's header only: no lock, so `info` works while a command uses the drive.
  auto sim = OpenSimBackend(a.target, SimOpenOptions{.load_state = false, .lock_state = false});
  if (!sim.ok()) return Fail(sim.status());
  auto figures = DescribeSim(a.target);
  if (!figures.ok()) return Fail(figures.status());
  auto state = SimStateJson(a.target);
  if (!state.ok()) return Fail(state.status());
  const TargetInfo& t = (*sim)->info();
  if (a.json) {
    json params = json::object(), figs = json::array();
    for (const auto& [k, v] : t.details) params[k] = v;
    for (const SimFigure& f : *figures)
      figs.push_back({{"key", f.key}, {"value", f.value}, {"unit", f.unit}});
    json doc = {{"schema_version", kDeviceSchemaVersion},
                {"target",
                 {{"path", t.path},
                  {"kind", "sim"},
                  {"size_bytes", t.size_bytes},
                  {"size_gb", DecimalGb(t.size_bytes)},
                  {"size_gib", BinaryGib(t.size_bytes)},
                  {"model", t.model},
                  {"serial", t.serial},
                  {"firmware", t.firmware},
                  {"logical_block_bytes", t.logical_block_bytes},
                  {"physical_block_bytes", t.physical_block_bytes},
                  {"params", params}}},
                {"figures", figs},
                {"state", *state},
                {"smart",
                 {{"available", false},
                  {"reason", "simulated drive: no SMART (figures come from the model)"},
                  {"health", nullptr}}},
                {"temperature",
                 {{"source", "simulated"},
                  {"available", false},
                  {"reason", "a simulated drive models no temperature"},
                  {"sample", nullptr}}}};
    std::cout << doc.dump(1) << "\n";
    return kExitOk;
  }
  auto row = [](const std::string& k, const std::string& v) {
    std::cout << fmt::format("{:<34}{}\n", k, v);
  };
  row("target", t.path);
  row("kind", "sim (simulated drive, virtual time)");
  row("model", t.model);
  row("serial", t.serial);
  row("firmware", t.firmware);
  row("capacity (simulated)", Bytes(t.size_bytes));
  row("sectors",
      fmt::format("{} B logical, {} B physical", t.logical_block_bytes, t.physical_block_bytes));
  for (const SimFigure& f : *figures) row(f.key, f.value + (f.unit.empty() ? "" : " " + f.unit));
  const json& st = *state;
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
  if (IsSim(a.target)) return SimInfo(a);
  auto id = IdentifyTarget(a.target);
  if (!id.ok()) return Fail(id.status());
  HealthSampler sampler = HealthSampler::ForTarget(id.value());
  HealthSample sample = sampler.Sample();
  json smart = {{"available", false}, {"reason", ""}, {"health", nullptr}};
  std::optional<SmartHealth> health;
  if (a.no_smart) {
    smart["reason"] = "not read (--no-smart)";
  } else {
    auto h = sampler.Snapshot();
    if (h.ok()) {
      health = h.value();
      smart["available"] = true;
      smart["health"] = SmartJson(*health);
    } else {
      smart["reason"] = h.status().message();
    }
  }
  if (a.json) {
    json doc = {{"schema_version", kDeviceSchemaVersion},
                {"target", IdentityJson(id.value())},
                {"smart", smart},
                {"temperature",
                 {{"source", sampler.source()},
                  {"available", sampler.available()},
                  {"reason", sampler.reason()},
                  {"sample", HealthSampleJson(sample)}}}};
    std::cout << doc.dump(1) << "\n";
    return kExitOk;
  }
  PrintIdentity(id.value());
  if (health) {
    PrintSmart(*health);
  } else {
    std::cout << fmt::format("{:<20}not available: {}\n", "smart",
                             smart["reason"].get<std::string>());
  }
  if (!health && sample.temperature_c)
    std::cout << fmt::format("{:<20}{:g} C ({})\n", "temperature", *sample.temperature_c,
                             sample.source);
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

// A simulated drive with state=PATH: its state becomes a factory-fresh drive (mapping empty, all
// blocks erased, clock 0; wear kept, as a secure erase keeps it), saved to PATH. A state of
// ssdlab's that is damaged or truncated is replaced (no wear to keep); a foreign file, or a state
// another command is using, is refused.
int SimPurge(const PurgeArgs& a) {
  auto p = sim::ParseSimTarget(a.target);
  if (!p.ok() && a.target.find("state=") != std::string::npos) return Fail(p.status());
  if (!p.ok() || p->state_path.empty()) {
    return Fail(
        Status::Error(Code::kUnsupported,
                      "a simulated drive without state= lives inside one ssdlab process and starts "
                      "factory-fresh; add ?state=PATH to keep (and purge) it between commands (" +
                          a.target + ")"));
  }
  if (a.method != "auto")
    return Fail(Status::Invalid("--method " + a.method +
                                ": a simulated drive is purged with --method auto (a secure "
                                "erase of the model)"));
  std::ostream& human = a.json ? std::cerr : std::cout;
  json doc = {{"schema_version", kDeviceSchemaVersion},
              {"dry_run", a.dry_run},
              {"target", a.target},
              {"method", "sim-reset"},
              {"state", p->state_path}};
  if (a.dry_run) {
    // Checks the state as the purge would (a foreign file, or one in use, is refused) without
    // changing it.
    auto b =
        OpenSimBackend(a.target, SimOpenOptions{.load_state = false, .reset_damaged_state = true});
    doc["allowed"] = b.ok();
    doc["refusal"] = b.ok() ? "" : b.status().message();
    doc["completed"] = false;
    human << "target   " << a.target << "\n"
          << "step 1   reset the simulated drive's state in " << p->state_path
          << " to factory-fresh (mapping empty, blocks erased, clock 0; wear kept)\n";
    if (!b.ok()) human << "refused  " << b.status().message() << "\n";
    human << "dry run: nothing was written\n";
    if (a.json) std::cout << doc.dump(1) << "\n";
    return kExitOk;
  }
  if (!a.destructive) {
    return Fail(Status::Refused("purge would reset the simulated drive's state in " +
                                p->state_path + "; pass --destructive to allow it"));
  }
  auto start = std::chrono::steady_clock::now();
  // Loads it (wear survives the purge), holding its lock; a damaged state of ssdlab's is
  // replaced (its wear is lost), a foreign file refused.
  auto b = OpenSimBackend(a.target, SimOpenOptions{.reset_damaged_state = true});
  if (!b.ok()) return Fail(b.status());
  bool was_damaged = false;
  for (const auto& [k, v] : (*b)->info().details)
    if (k == "state_origin") was_damaged = v.rfind("damaged", 0) == 0;
  RunControl control;
  control.stop = &StopFlag();
  auto done = (*b)->Purge("auto", control);
  if (!done.ok()) return Fail(done.status());
  Status s = (*b)->Close();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  doc["allowed"] = true;
  doc["refusal"] = "";
  doc["completed"] = s.ok();
  doc["elapsed_s"] = elapsed;
  doc["error"] = s.ok() ? "" : s.message();
  if (a.json) std::cout << doc.dump(1) << "\n";
  if (!s.ok()) return Fail(s);
  human << fmt::format("purged {}: state {} is a factory-fresh drive ({}) in {:.1f} s\n", a.target,
                       p->state_path,
                       was_damaged ? "it was damaged: its wear is lost" : "wear kept", elapsed);
  return kExitOk;
}

int Purge(const PurgeArgs& a) {
  auto method = ParsePurgeMethod(a.method);
  if (!method.ok()) return Fail(method.status());
  if (IsSim(a.target)) return SimPurge(a);
  if (!a.confirm.empty() && !a.destructive && !a.dry_run) {
    return Fail(Status::Invalid("--confirm needs --destructive"));
  }
  auto plan = PlanPurge(a.target, method.value());
  if (!plan.ok()) return Fail(plan.status());
  PurgeOptions o;
  o.destructive = a.destructive;
  o.confirm = a.confirm;
  o.stop = &StopFlag();
  json doc = {{"schema_version", kDeviceSchemaVersion},
              {"dry_run", a.dry_run},
              {"plan", PurgePlanJson(plan.value())}};
  std::ostream& human = a.json ? std::cerr : std::cout;
  if (a.dry_run) {
    // Judge the safety checks as if --destructive and --confirm were right, unless given.
    PurgeOptions judged = o;
    if (!a.destructive) judged.destructive = true;
    if (a.confirm.empty()) {
      auto tokens = ConfirmationTokens(plan->target);
      if (!tokens.empty()) judged.confirm = tokens.front();
    }
    Status allowed = CheckPurgeAllowed(plan.value(), judged);
    doc["allowed"] = allowed.ok();
    doc["refusal"] = allowed.ok() ? "" : allowed.message();
    doc["completed"] = false;
    doc["elapsed_s"] = 0.0;
    doc["error"] = "";
    PrintPlan(plan.value(), allowed, human);
    human << "dry run: nothing was written\n";
    if (a.json) std::cout << doc.dump(1) << "\n";
    return kExitOk;
  }
  if (!a.json)
    o.on_progress = [](const std::string& line) { std::cerr << "ssdlab: " << line << std::endl; };
  auto start = std::chrono::steady_clock::now();
  Status s = ExecutePurge(plan.value(), o);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  doc["allowed"] = s.code() != Code::kPermission;
  doc["refusal"] = s.code() == Code::kPermission ? s.message() : "";
  doc["completed"] = s.ok();
  doc["elapsed_s"] = elapsed;
  doc["error"] = s.ok() ? "" : s.message();
  if (a.json) std::cout << doc.dump(1) << "\n";
  if (!s.ok()) return Fail(s);
  human << fmt::format("purged {} with {} in {:.1f} s\n", DescribeTarget(plan->target),
                       PurgeMethodName(plan->method), elapsed);
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
  cmd->add_option("--method", a->method,
                  "auto|ata-secure-erase|ata-enhanced|sas-format|nvme-format|nvme-sanitize|discard|"
                  "zero|punch-hole")
      ->capture_default_str();
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
