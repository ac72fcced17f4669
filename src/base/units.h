// Parsing and printing of sizes, durations and percentages.
//
// Sizes: a number (fractions allowed if the result is a whole number of bytes) followed by
// an optional unit. Binary units: KiB MiB GiB TiB PiB and the bare letters k K m M g G t T
// (fio's convention: "4k" is 4096). Decimal units: kB KB MB GB TB PB (powers of 1000, as
// drive vendors use: "1.6TB" is 1,600,000,000,000 bytes). "B" or nothing means bytes.
// Durations: a number with ns, us, ms, s, m, h (bare number: seconds).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ssdlab {

Result<uint64_t> ParseBytes(std::string_view text);
Result<uint64_t> ParseDurationNs(std::string_view text);
// "70" or "70%" -> 70.0; must lie in [0, 100].
Result<double> ParsePercent(std::string_view text);
// The one parser of counts: a non-negative integer without unit, decimal digits only (no sign,
// no whitespace, no suffix; leading zeros allowed). Errors: "empty count", "'X' is not a count",
// "count 'X' is too large" (above 18446744073709551609, 2^64 - 7: refused, never wrapped).
Result<uint64_t> ParseCount(std::string_view text);
// ParseCount, and 0 refused: "must be at least 1".
Result<uint64_t> ParsePositiveCount(std::string_view text);
// Parses a finite double (no unit).
Result<double> ParseDouble(std::string_view text);

// "4 KiB", "1.5 GiB": binary units, at most 4 significant digits.
std::string FormatBytes(uint64_t bytes);
// A size as a flag takes it, which ParseBytes reads back to the same bytes: in the largest
// binary unit that divides it ("16MiB", "4KiB", "1GiB"), else in bytes ("1000", "0").
std::string CompactBytes(uint64_t bytes);
// "12.3 us", "4.56 ms", "3.2 s".
std::string FormatNs(double ns);
// A figure with four significant digits and never an exponent: 213000 -> "213000", 4.6483 ->
// "4.648".
std::string FormatNumber(double v);

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;
inline constexpr uint64_t kNsPerUs = 1000;
inline constexpr uint64_t kNsPerMs = 1000 * 1000;
inline constexpr uint64_t kNsPerS = 1000 * 1000 * 1000;

}  // namespace ssdlab
