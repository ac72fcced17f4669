#include "usecase/options.h"

namespace ssdlab::usecase {

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
  static const char* const kPurges[] = {"auto",     "secure-erase", "format",
                                        "sanitize", "discard",      "none"};
  for (const char* p : kPurges) {
    if (text == p) {
      out = text;
      return Status::Ok();
    }
  }
  return Status::Invalid(flag + ": unknown method '" + text +
                         "' (auto, secure-erase, format, sanitize, discard, none)");
}

}  // namespace ssdlab::usecase
