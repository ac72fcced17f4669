#include "base/units.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace ssdlab {
namespace {

struct Unit {
  std::string_view name;
  double factor;
};

constexpr Unit kByteUnits[] = {
    {"", 1},
    {"B", 1},
    {"k", 1024.0},
    {"K", 1024.0},
    {"KiB", 1024.0},
    {"kiB", 1024.0},
    {"m", 1048576.0},
    {"M", 1048576.0},
    {"MiB", 1048576.0},
    {"g", 1073741824.0},
    {"G", 1073741824.0},
    {"GiB", 1073741824.0},
    {"t", 1099511627776.0},
    {"T", 1099511627776.0},
    {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
};

constexpr Unit kTimeUnits[] = {
    {"", 1e9}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
};

// Splits "12.5KiB" into number 12.5 and unit "KiB". Fails on an empty or malformed number.
Result<std::pair<double, std::string_view>> SplitNumber(std::string_view text) {
  std::string s(text);
  if (s.empty()) return Status::Invalid("empty value");
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  if (end == begin || errno == ERANGE || !std::isfinite(v)) {
    return Status::Invalid("'" + s + "' is not a number");
  }
  // strtod accepts "inf", hex and leading spaces; reject anything but plain decimals.
  for (const char* p = begin; p < end; ++p) {
    if (!(std::isdigit(static_cast<unsigned char>(*p)) || *p == '.' || *p == '-' || *p == '+' ||
          *p == 'e' || *p == 'E')) {
      return Status::Invalid("'" + s + "' is not a plain decimal number");
    }
  }
  return std::make_pair(v, text.substr(end - begin));
}

template <size_t N>
Result<double> ApplyUnit(std::string_view text, const Unit (&units)[N], const char* what) {
  auto split = SplitNumber(text);
  if (!split.ok()) return split.status();
  auto [v, unit] = split.value();
  if (v < 0) return Status::Invalid(std::string(what) + " '" + std::string(text) + "' is negative");
  for (const Unit& u : units) {
    if (u.name == unit) return v * u.factor;
  }
  return Status::Invalid("unknown " + std::string(what) + " unit '" + std::string(unit) + "' in '" +
                         std::string(text) + "'");
}

}  // namespace

Result<uint64_t> ParseBytes(std::string_view text) {
  auto v = ApplyUnit(text, kByteUnits, "size");
  if (!v.ok()) return v.status();
  double bytes = v.value();
  if (bytes > 1.8e19) return Status::Invalid("size '" + std::string(text) + "' is too large");
  double rounded = std::round(bytes);
  if (std::fabs(bytes - rounded) > 1e-6 * std::max(1.0, bytes)) {
    return Status::Invalid("size '" + std::string(text) + "' is not a whole number of bytes");
  }
  return static_cast<uint64_t>(rounded);
}

Result<uint64_t> ParseDurationNs(std::string_view text) {
  auto v = ApplyUnit(text, kTimeUnits, "duration");
  if (!v.ok()) return v.status();
  if (v.value() > 1e18) return Status::Invalid("duration '" + std::string(text) + "' is too long");
  return static_cast<uint64_t>(std::llround(v.value()));
}

Result<double> ParsePercent(std::string_view text) {
  if (!text.empty() && text.back() == '%') text.remove_suffix(1);
  auto split = SplitNumber(text);
  if (!split.ok()) return split.status();
  auto [v, unit] = split.value();
  if (!unit.empty()) return Status::Invalid("'" + std::string(text) + "' is not a percentage");
  if (v < 0 || v > 100) {
    return Status::Invalid("percentage '" + std::string(text) + "' is outside 0..100");
  }
  return v;
}

Result<double> ParseDouble(std::string_view text) {
  auto split = SplitNumber(text);
  if (!split.ok()) return split.status();
  if (!split.value().second.empty()) {
    return Status::Invalid("'" + std::string(text) + "' is not a number");
  }
  return split.value().first;
}

Result<uint64_t> ParseCount(std::string_view text) {
  if (text.empty()) return Status::Invalid("empty count");
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return Status::Invalid("'" + std::string(text) + "' is not a count");
    if (v > (UINT64_MAX - 9) / 10)
      return Status::Invalid("count '" + std::string(text) + "' is too large");
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

Result<uint64_t> ParsePositiveCount(std::string_view text) {
  auto v = ParseCount(text);
  if (v.ok() && v.value() == 0) return Status::Invalid("must be at least 1");
  return v;
}

std::string CompactBytes(uint64_t b) {
  if (b == 0) return "0";
  if (b % kGiB == 0) return std::to_string(b / kGiB) + "GiB";
  if (b % kMiB == 0) return std::to_string(b / kMiB) + "MiB";
  if (b % kKiB == 0) return std::to_string(b / kKiB) + "KiB";
  return std::to_string(b);
}

std::string FormatBytes(uint64_t bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int i = 0;
  while (v >= 1024.0 && i < 5) {
    v /= 1024.0;
    ++i;
  }
  char buf[32];
  if (i == 0 || v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, kNames[i]);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g %s", v, kNames[i]);
  }
  return buf;
}

std::string FormatNs(double ns) {
  char buf[32];
  // Thresholds just below the next power of 1000, so that 999.7 us reads "1 ms", never "1e+03 us".
  if (ns < 999.5) {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  } else if (ns < 999.5e3) {
    std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  } else if (ns < 999.5e6) {
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  } else if (ns < 999.5e9) {
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f s", ns / 1e9);
  }
  return buf;
}

std::string FormatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1e4 ? "%.0f" : "%.4g", v);
  return buf;
}

}  // namespace ssdlab
