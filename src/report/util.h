// Private helpers of the report module: safe JSON access, number formatting, cell names.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ssdlab::report {

using json = nlohmann::json;

// j[key] when j is an object holding key, else a null json (never throws).
const json& Get(const json& j, const std::string& key);
// A number at j[key], or `def` when missing / null / not a number.
double Num(const json& j, const std::string& key, double def = 0);
std::string Str(const json& j, const std::string& key, const std::string& def = "");

// Rounds to 6 significant digits (smaller inline data, stable golden files).
double R6(double x);

// "203,743"
std::string FmtInt(double v);
// Latency in microseconds from nanoseconds, 3 significant digits: "182", "5.21", "0.071".
std::string FmtUs(double ns);
// A general number with `sig` significant digits, no exponent below 1e15.
std::string FmtNum(double v, int sig = 4);
std::string FmtPct(double v, int decimals = 1);
// "1,600,321,314,816 bytes (1600.3 GB, 1490.4 GiB)"
std::string FmtCapacity(uint64_t bytes);
// "5 s", "1.5 min", "2 h"
std::string FmtDurationNs(double ns);
// "4KiB" / "1MiB" style from bytes as the suite names cells ("4KiB", "1024KiB", "0.5KiB").
std::string BlockLabel(uint64_t bytes);

// A PTS cell name "rw=65/35 bs=4KiB": read percent and block bytes. False if not of that form.
bool ParseCellName(const std::string& cell, double* read_pct, uint64_t* block_bytes);
// "65/35"
std::string MixLabel(double read_pct);
// Seed-style names: "Read", "Write", "Read/write 70/30%".
std::string MixName(double read_pct);

std::string HtmlEscape(const std::string& s);

}  // namespace ssdlab::report
