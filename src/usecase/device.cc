#include "usecase/device.h"

#include <chrono>
#include <filesystem>

#include "base/units.h"
#include "device/device_json.h"
#include "device/safety.h"
#include "sim/params.h"
#include "sim/state.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

bool IsSim(const std::string& t) { return t.rfind("sim:", 0) == 0; }

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
Result<InfoOutcome> SimInfo(const InfoRequest& r) {
  // A look at the state's header only: no lock, so `info` works while a command uses the drive.
  SSDLAB_ASSIGN_OR_RETURN(
      auto sim, OpenSimBackend(r.target, SimOpenOptions{.lock_state = false, .probe = true}));
  InfoOutcome o;
  o.simulated = true;
  o.sim_target = sim->info();
  SSDLAB_ASSIGN_OR_RETURN(o.sim_figures, DescribeSim(r.target));
  SSDLAB_ASSIGN_OR_RETURN(json state, SimStateJson(r.target));
  const TargetInfo& t = o.sim_target;
  json params = json::object(), figs = json::array();
  for (const auto& [k, v] : t.details) params[k] = v;
  for (const SimFigure& f : o.sim_figures)
    figs.push_back({{"key", f.key}, {"value", f.value}, {"unit", f.unit}});
  o.doc = {{"schema_version", kDeviceSchemaVersion},
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
           {"state", state},
           {"smart",
            {{"available", false},
             {"reason", "simulated drive: no SMART (figures come from the model)"},
             {"health", nullptr}}},
           {"temperature",
            {{"source", "simulated"},
             {"available", false},
             {"reason", "a simulated drive models no temperature"},
             {"sample", nullptr}}}};
  return o;
}

// A simulated drive with state=PATH: its state becomes a factory-fresh drive, saved to PATH.
Result<PurgeOutcome> SimPurge(const PurgeRequest& r) {
  auto p = sim::ParseSimTarget(r.target);
  if (!p.ok() && r.target.find("state=") != std::string::npos) return p.status();
  if (!p.ok() || p->state_path.empty()) {
    return Status::Error(Code::kUnsupported,
                         "a simulated drive without state= lives inside one ssdlab process and "
                         "starts factory-fresh; add ?state=PATH to keep (and purge) it between "
                         "commands (" +
                             r.target + ")");
  }
  if (r.method != "auto")
    return Status::Invalid("--method " + r.method +
                           ": a simulated drive is purged with --method auto (a secure erase of "
                           "the model)");
  PurgeOutcome o;
  o.sim_state = p->state_path;
  o.doc = {{"schema_version", kDeviceSchemaVersion},
           {"dry_run", r.dry_run},
           {"target", r.target},
           {"method", "sim-reset"},
           {"state", p->state_path}};
  if (r.dry_run) {
    // Checks the state as the purge would (a foreign file, or one in use, is refused) without
    // changing it.
    auto b = OpenSimBackend(r.target, SimOpenOptions{.reset_damaged_state = true, .probe = true});
    o.allowed = b.ok() ? Status::Ok() : b.status();
    o.doc["allowed"] = b.ok();
    o.doc["refusal"] = b.ok() ? "" : b.status().message();
    o.doc["completed"] = false;
    return o;
  }
  if (!r.destructive) {
    return Status::Refused("purge would reset the simulated drive's state in " + p->state_path +
                           "; pass --destructive to allow it");
  }
  auto start = std::chrono::steady_clock::now();
  // Loads it (wear survives the purge), holding its lock; a damaged state of ssdlab's is
  // replaced (its wear is lost), a foreign file refused.
  SSDLAB_ASSIGN_OR_RETURN(auto b,
                          OpenSimBackend(r.target, SimOpenOptions{.reset_damaged_state = true}));
  for (const auto& [k, v] : b->info().details)
    if (k == "state_origin") o.sim_state_was_damaged = v.rfind("damaged", 0) == 0;
  RunControl control;
  control.stop = r.stop;
  SSDLAB_RETURN_IF_ERROR(b->Purge("auto", control).status());
  o.done = b->Close();
  o.elapsed_s = SecondsSince(start);
  o.doc["allowed"] = true;
  o.doc["refusal"] = "";
  o.doc["completed"] = o.done.ok();
  o.doc["elapsed_s"] = o.elapsed_s;
  o.doc["error"] = o.done.ok() ? "" : o.done.message();
  return o;
}

}  // namespace

Result<InfoOutcome> Info(const InfoRequest& r) {
  if (IsSim(r.target)) return SimInfo(r);
  InfoOutcome o;
  SSDLAB_ASSIGN_OR_RETURN(o.identity, IdentifyTarget(r.target));
  HealthSampler sampler = HealthSampler::ForTarget(o.identity);
  o.sample = sampler.Sample();
  json smart = {{"available", false}, {"reason", ""}, {"health", nullptr}};
  if (r.no_smart) {
    smart["reason"] = "not read (--no-smart)";
  } else if (auto h = sampler.Snapshot(); h.ok()) {
    o.health = h.value();
    smart["available"] = true;
    smart["health"] = SmartJson(*o.health);
  } else {
    smart["reason"] = h.status().message();
  }
  o.doc = {{"schema_version", kDeviceSchemaVersion},
           {"target", IdentityJson(o.identity)},
           {"smart", smart},
           {"temperature",
            {{"source", sampler.source()},
             {"available", sampler.available()},
             {"reason", sampler.reason()},
             {"sample", HealthSampleJson(o.sample)}}}};
  return o;
}

Result<PurgeOutcome> Purge(const PurgeRequest& r) {
  SSDLAB_ASSIGN_OR_RETURN(PurgeMethod method, ParsePurgeMethod(r.method));
  if (IsSim(r.target)) return SimPurge(r);
  if (!r.confirm.empty() && !r.destructive && !r.dry_run)
    return Status::Invalid("--confirm needs --destructive");
  PurgeOutcome o;
  SSDLAB_ASSIGN_OR_RETURN(o.plan, PlanPurge(r.target, method));
  PurgeOptions opts;
  opts.destructive = r.destructive;
  opts.confirm = r.confirm;
  opts.stop = r.stop;
  o.doc = {{"schema_version", kDeviceSchemaVersion},
           {"dry_run", r.dry_run},
           {"plan", PurgePlanJson(*o.plan)}};
  if (r.dry_run) {
    // Judge the safety checks as if --destructive and --confirm were right, unless given.
    PurgeOptions judged = opts;
    judged.destructive = true;
    if (r.confirm.empty()) {
      auto tokens = ConfirmationTokens(o.plan->target);
      if (!tokens.empty()) judged.confirm = tokens.front();
    }
    o.allowed = CheckPurgeAllowed(*o.plan, judged);
  } else {
    opts.on_progress = r.on_progress;
    auto start = std::chrono::steady_clock::now();
    o.done = ExecutePurge(*o.plan, opts);
    o.elapsed_s = SecondsSince(start);
    if (o.done.code() == Code::kPermission) o.allowed = o.done;
  }
  o.doc["allowed"] = o.allowed.ok();
  o.doc["refusal"] = o.allowed.ok() ? "" : o.allowed.message();
  o.doc["completed"] = !r.dry_run && o.done.ok();
  o.doc["elapsed_s"] = o.elapsed_s;
  o.doc["error"] = o.done.ok() ? "" : o.done.message();
  return o;
}

}  // namespace ssdlab::usecase
