#include "base/strings.h"

namespace ssdlab {

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (;;) {
    const size_t pos = s.find(sep);
    out.emplace_back(s.substr(0, pos));
    if (pos == std::string_view::npos) return out;
    s.remove_prefix(pos + 1);
  }
}

std::vector<std::string> SplitNonEmpty(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (std::string& f : Split(s, sep))
    if (!f.empty()) out.push_back(std::move(f));
  return out;
}

size_t SplitN(std::string_view s, char sep, std::string_view* out, size_t max) {
  size_t n = 0;
  while (n + 1 < max) {
    const size_t p = s.find(sep);
    if (p == std::string_view::npos) break;
    out[n++] = s.substr(0, p);
    s.remove_prefix(p + 1);
  }
  out[n++] = s;
  return n;
}

std::string_view Trim(std::string_view s, std::string_view chars) {
  while (!s.empty() && chars.find(s.front()) != std::string_view::npos) s.remove_prefix(1);
  return TrimRight(s, chars);
}

std::string_view TrimRight(std::string_view s, std::string_view chars) {
  while (!s.empty() && chars.find(s.back()) != std::string_view::npos) s.remove_suffix(1);
  return s;
}

std::string_view LeadingDigits(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  return s.substr(0, n);
}

}  // namespace ssdlab
