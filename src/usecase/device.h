// The `info` and `purge` use cases: what a target is (identity, SMART, temperature, or a
// simulated drive's model figures and saved state), and erasing it. Each returns its JSON
// document (schema_version kDeviceSchemaVersion, every field always present) with the typed
// pieces the CLI prints as text; neither prints.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "base/status.h"
#include "device/health.h"
#include "device/identify.h"
#include "device/purge.h"
#include "device/smart.h"
#include "sim/sim.h"

namespace ssdlab::usecase {

inline constexpr int kDeviceSchemaVersion = 1;

struct InfoRequest {
  std::string target;  // a block device, a file, or sim:PRESET[?...]
  bool no_smart = false;
};

struct InfoOutcome {
  nlohmann::json doc;  // the `info --json` document
  // A real target's (target not sim:).
  DeviceIdentity identity;
  std::optional<SmartHealth> health;  // none: doc["smart"]["reason"] says why
  HealthSample sample;
  // A simulated drive's: its target, its model's figures, and doc["state"] (null without
  // state=; "exists": false before a command saved it).
  bool simulated = false;
  TargetInfo sim_target;
  std::vector<SimFigure> sim_figures;
};

// The target identified. A simulated drive's state is read by its header only, with no lock,
// so `info` works while another command uses the drive. Errors: an unknown target (NotFound,
// Invalid as IdentifyTarget and OpenSimBackend say), a damaged state header.
Result<InfoOutcome> Info(const InfoRequest& request);

struct PurgeRequest {
  std::string target;           // a block device, a file, or sim:PRESET?state=PATH
  std::string method = "auto";  // device/purge.h's spellings
  bool dry_run = false, destructive = false;
  std::string confirm;
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const std::string&)> on_progress;  // each step's text as it starts
};

struct PurgeOutcome {
  nlohmann::json doc;             // the `purge --json` document
  std::optional<PurgePlan> plan;  // a real target's
  std::string sim_state;          // a simulated drive's state file
  bool sim_state_was_damaged = false;
  Status allowed;  // the safety checks (a dry run judges them as if --destructive were given)
  Status done;     // the purge itself: ok for a dry run
  double elapsed_s = 0;
};

// Plans the purge and, unless a dry run, runs it. A simulated drive with state=PATH is reset to
// factory-fresh (mapping empty, blocks erased, clock 0; wear kept as a secure erase keeps it; a
// damaged state of ssdlab's is replaced, a foreign file or a state in use refused).
// Errors (nothing written): a bad method or target, a plan the target cannot do, --confirm
// without --destructive, a simulated drive without state= (Unsupported), a refused simulated
// purge. The outcome's `done` holds a failure of the purge once started; the real targets'
// refusals by the safety checks are there too (Permission).
Result<PurgeOutcome> Purge(const PurgeRequest& request);

}  // namespace ssdlab::usecase
