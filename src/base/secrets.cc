#include "base/secrets.h"

#include <regex>

namespace ssdlab {

std::string MaskSecrets(const std::string& text) {
  // scheme://user:PASSWORD@ (the password may itself hold '@'; the authority ends at / ? #).
  static const std::regex kUserInfo(R"(([A-Za-z][A-Za-z0-9+.-]*://[^:/?#@\s]*):[^/?#\s]*@)");
  // password=VALUE, VALUE quoted ('...' with \' escapes) or up to a blank, '&' or '#'.
  static const std::regex kKeyword(R"((\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&#]*))",
                                   std::regex::icase);
  std::string out = std::regex_replace(text, kUserInfo, "$1:***@");
  return std::regex_replace(out, kKeyword, "$1***");
}

}  // namespace ssdlab
