#include "usecase/options.h"

#include "device/purge.h"

namespace ssdlab::usecase {

std::string DurationText(uint64_t ns) {
  if (ns == 0) return "0";
  static const std::pair<uint64_t, const char*> kUnits[] = {
      {60 * kNsPerS, "m"}, {kNsPerS, "s"}, {kNsPerMs, "ms"}, {kNsPerUs, "us"}};
  for (const auto& [unit, name] : kUnits) {
    if (ns % unit == 0) return std::to_string(ns / unit) + name;
  }
  return std::to_string(ns) + "ns";
}

Status DurationFlag(const std::string& flag, const std::string& text, uint64_t& out_ns) {
  if (text.empty()) return Status::Ok();
  auto v = ParseDurationNs(text);
  if (!v.ok()) return v.status().WithContext(flag);
  out_ns = v.value();
  return Status::Ok();
}

Status BytesFlag(const std::string& flag, const std::string& text, uint64_t& out_bytes) {
  if (text.empty()) return Status::Ok();
  auto v = ParseBytes(text);
  if (!v.ok() || v.value() == 0)
    return Status::Invalid(flag + " '" + text + "' is not a size above 0");
  out_bytes = v.value();
  return Status::Ok();
}

Status PurgeFlag(const std::string& flag, const std::string& text, std::string& out) {
  SSDLAB_RETURN_IF_ERROR(ParsePurgeFlag(flag, text).status());
  out = text;
  return Status::Ok();
}

}  // namespace ssdlab::usecase
