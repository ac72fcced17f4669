#include "report/util.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace ssdlab::report {

const json& Get(const json& j, const std::string& key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

double Num(const json& j, const std::string& key, double def) {
  const json& v = Get(j, key);
  return v.is_number() ? v.get<double>() : def;
}

std::string Str(const json& j, const std::string& key, const std::string& def) {
  const json& v = Get(j, key);
  return v.is_string() ? v.get<std::string>() : def;
}

double R6(double x) {
  if (x == 0 || !std::isfinite(x)) return std::isfinite(x) ? x : 0;
  double mag = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::fabs(x)))));
  double r = std::round(x * mag) / mag;
  return std::fabs(r) < 1e-300 ? 0 : r;
}

std::string FmtInt(double v) {
  if (!std::isfinite(v)) return "-";
  long long n = std::llround(v);
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string FmtNum(double v, int sig) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) return "0";
  int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  int decimals = std::max(0, sig - 1 - mag);
  if (mag >= sig - 1) return FmtInt(v);
  return fmt::format("{:.{}f}", v, decimals);
}

std::string FmtUs(double ns) { return FmtNum(ns / 1000.0, 3); }

std::string FmtPct(double v, int decimals) { return fmt::format("{:.{}f}%", v, decimals); }

std::string FmtCapacity(uint64_t bytes) {
  return fmt::format("{} bytes ({:.1f} GB, {:.1f} GiB)", FmtInt(static_cast<double>(bytes)),
                     static_cast<double>(bytes) / 1e9, static_cast<double>(bytes) / (1ull << 30));
}

std::string FmtDurationNs(double ns) {
  double s = ns / 1e9;
  if (s < 1) return FmtNum(s * 1000, 3) + " ms";
  if (s < 120) return FmtNum(s, 3) + " s";
  if (s < 7200) return FmtNum(s / 60, 3) + " min";
  return FmtNum(s / 3600, 3) + " h";
}

std::string BlockLabel(uint64_t bytes) {
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + "KiB";
  return fmt::format("{:g}KiB", static_cast<double>(bytes) / 1024.0);
}

bool ParseCellName(const std::string& cell, double* read_pct, uint64_t* block_bytes) {
  auto rw = cell.find("rw=");
  auto bs = cell.find(" bs=");
  if (rw == std::string::npos || bs == std::string::npos || bs < rw) return false;
  std::string mix = cell.substr(rw + 3, bs - rw - 3);
  auto slash = mix.find('/');
  if (slash == std::string::npos) return false;
  char* end = nullptr;
  double r = std::strtod(mix.c_str(), &end);
  if (end == mix.c_str()) return false;
  std::string b = cell.substr(bs + 4);
  auto sp = b.find(' ');
  if (sp != std::string::npos) b = b.substr(0, sp);
  if (b.size() < 4 || b.substr(b.size() - 3) != "KiB") return false;
  double kib = std::strtod(b.c_str(), &end);
  if (end == b.c_str()) return false;
  *read_pct = r;
  *block_bytes = static_cast<uint64_t>(std::llround(kib * 1024));
  return true;
}

std::string MixLabel(double read_pct) { return fmt::format("{:g}/{:g}", read_pct, 100 - read_pct); }

std::string MixName(double read_pct) {
  if (read_pct >= 100) return "Read";
  if (read_pct <= 0) return "Write";
  return fmt::format("Read/write {:g}/{:g}%", read_pct, 100 - read_pct);
}

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace ssdlab::report
