#include "usecase/runs.h"

#include <ctime>

namespace ssdlab::usecase {

using nlohmann::json;

void HealthHooks::OnTestStart(const std::string&) {
  monitor_ = std::make_unique<HealthMonitor>(id_);
  monitor_->Start(interval_ns_);
}

json HealthHooks::OnTestEnd(const std::string&) {
  json j = monitor_ ? monitor_->Stop() : json(nullptr);
  monitor_.reset();
  return j;
}

std::string DefaultRunName(const std::string& prefix) {
  time_t t = time(nullptr);
  tm g;
  gmtime_r(&t, &g);
  char buf[40];
  std::strftime(buf, sizeof buf, "-%Y%m%d-%H%M%S", &g);
  return prefix + buf;
}

}  // namespace ssdlab::usecase
