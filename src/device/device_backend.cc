#include "device/device_backend.h"

#include <chrono>
#include <condition_variable>

#include "base/clock.h"
#include "base/thread.h"
#include "device/device_json.h"
#include "device/purge.h"

namespace ssdlab {
namespace {

using nlohmann::json;

class DevicePurgeBackend : public Backend {
 public:
  DevicePurgeBackend(std::unique_ptr<Backend> inner, DeviceIdentity id, bool destructive,
                     std::string confirm)
      : inner_(std::move(inner)),
        id_(std::move(id)),
        destructive_(destructive),
        confirm_(std::move(confirm)) {}

  const TargetInfo& info() const override { return inner_->info(); }
  Result<PhaseResult> RunPhase(const WorkloadSpec& spec, const RunControl& control) override {
    return inner_->RunPhase(spec, control);
  }
  Status Idle(uint64_t ns, const RunControl& control) override { return inner_->Idle(ns, control); }
  bool persistent_state() const override { return true; }
  Status Close() override { return inner_->Close(); }

  // Either spelling of the one PurgeMethod (device/purge.h); a transport-neutral one
  // (--purge format) is resolved by the drive's transport when the plan is built.
  Result<std::string> Purge(const std::string& method, const RunControl& control) override {
    SSDLAB_ASSIGN_OR_RETURN(PurgeMethod m, ParseAnyPurgeMethod(method));
    if (m == PurgeMethod::kNone) return std::string(PurgeMethodName(m));
    SSDLAB_ASSIGN_OR_RETURN(PurgePlan plan, PlanPurge(id_.path, m));
    PurgeOptions options;
    // A file given to `pts` is the user's scratch file (as with `run`): no flag needed.
    options.destructive = destructive_ || id_.kind == "file";
    options.confirm = confirm_;
    options.stop = control.stop;
    SSDLAB_RETURN_IF_ERROR(ExecutePurge(plan, options));
    return std::string(PurgeMethodName(plan.method));
  }

 private:
  std::unique_ptr<Backend> inner_;
  DeviceIdentity id_;
  bool destructive_;
  std::string confirm_;
};

}  // namespace

std::unique_ptr<Backend> WithDevicePurge(std::unique_ptr<Backend> inner, DeviceIdentity id,
                                         bool destructive, std::string confirm) {
  return std::make_unique<DevicePurgeBackend>(std::move(inner), std::move(id), destructive,
                                              std::move(confirm));
}

HealthMonitor::HealthMonitor(const DeviceIdentity* identity)
    : sampler_(identity ? HealthSampler::ForTarget(*identity) : HealthSampler::Simulated()) {}

HealthMonitor::~HealthMonitor() {
  if (thread_.joinable()) Stop();
}

void HealthMonitor::Start(uint64_t interval_ns) {
  interval_ns_ = interval_ns;
  t0_ns_ = MonotonicNs();
  auto snap = sampler_.Snapshot();
  if (snap.ok()) {
    before_smart_ = snap.value();
    before_ = SmartJson(snap.value());
  } else {
    before_ = json{{"available", false}, {"reason", snap.status().message()}};
  }
  if (!sampler_.available()) return;
  auto take = [this] {
    HealthSample s = sampler_.Sample();
    summary_.Add(s);
    json j = HealthSampleJson(s);
    j["t_s"] = static_cast<double>(MonotonicNs() - t0_ns_) / 1e9;
    samples_.push_back(j);
  };
  take();  // the idle sample, before the load
  if (interval_ns == 0) return;
  auto loop = [this, take] {
    uint64_t next = t0_ns_ + interval_ns_;
    while (!stop_.load()) {
      uint64_t now = MonotonicNs();
      if (now >= next) {
        take();
        next += interval_ns_;
        continue;
      }
      std::this_thread::sleep_for(
          std::chrono::nanoseconds(std::min<uint64_t>(next - now, 50'000'000)));
    }
  };
  auto started = StartThread(loop, "the temperature sampler's thread");
  if (started.ok())
    thread_ = std::move(started).value();
  else  // the idle sample stands; the load goes unsampled, and the health record says why
    start_failure_ = started.status().message();
}

json HealthMonitor::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  json out = {{"source", sampler_.source()},
              {"reason", start_failure_.empty() ? sampler_.reason()
                                                : "no samples during the load: " + start_failure_},
              {"interval_s", static_cast<double>(interval_ns_) / 1e9},
              {"samples", samples_},
              {"temperature", TemperatureJson(summary_)},
              {"smart_before", before_}};
  auto after = sampler_.Snapshot();
  if (after.ok()) {
    out["smart_after"] = SmartJson(after.value());
    out["delta"] =
        before_smart_ ? HealthDeltaJson(DiffHealth(*before_smart_, after.value())) : json(nullptr);
  } else {
    out["smart_after"] = json{{"available", false}, {"reason", after.status().message()}};
    out["delta"] = nullptr;
  }
  return out;
}

}  // namespace ssdlab
