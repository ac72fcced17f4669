// Flag values given as text, parsed into options: an empty text leaves the option at its
// default; a bad one is a one-line Invalid naming the flag.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "base/status.h"
#include "base/units.h"

namespace ssdlab {

// A duration ("30s", "500ms", "2m") into nanoseconds.
Status DurationFlag(const std::string& flag, const std::string& text, uint64_t& out_ns);
// A size ("64KiB", "1GiB") above 0 into bytes.
Status BytesFlag(const std::string& flag, const std::string& text, uint64_t& out_bytes);

// A count ("32", "1k") above 0 (or 0 with allow_zero) that fits T.
template <typename T>
Status CountFlag(const std::string& flag, const std::string& text, T& out,
                 bool allow_zero = false) {
  if (text.empty()) return Status::Ok();
  auto v = ParseCount(text);
  if (!v.ok() || (!allow_zero && v.value() == 0) ||
      v.value() > static_cast<uint64_t>(std::numeric_limits<T>::max()))
    return Status::Invalid(flag + " '" + text + "' is not a positive number in range");
  out = static_cast<T>(v.value());
  return Status::Ok();
}

}  // namespace ssdlab
