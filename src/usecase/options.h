// Options given as text (a command's flags, a stored run's arguments), parsed into typed
// options: an empty text leaves the option at its default; a bad one is a one-line Invalid
// naming the flag. The CLI registers the declarations on its command line (cli/flags.h
// AddOptionDefs); the use cases resolve and compare them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/units.h"

namespace ssdlab::usecase {

// A duration ("30s", "500ms", "2m") into nanoseconds.
Status DurationFlag(const std::string& flag, const std::string& text, uint64_t& out_ns);
// A size ("64KiB", "1GiB") above 0 into bytes.
Status BytesFlag(const std::string& flag, const std::string& text, uint64_t& out_bytes);

// A purge method of pts and profile: auto, secure-erase, format, sanitize, discard, none.
Status PurgeFlag(const std::string& flag, const std::string& text, std::string& out);

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

// "1s", "250ms", "0": a duration in the words a flag takes (ParseDurationNs reads it back).
std::string DurationText(uint64_t ns);

// One option of a command, declared once: its flag, its help, how its text sets the member of
// the resolved options O and, where it has one, a getter of its default from O's own defaults.
// The command line registers the declarations (AddOptionDefs: the getter's text is the default
// that --help and the man page show), a run stores the texts under StoredKey(flag)
// (OptionTextsJson), resolution applies them in declaration order (ApplyOptionDefs), and a
// resumed run applies a flag given again to its stored resolved options to see whether it
// changes them.
template <class O>
struct OptionDef {
  const char* flag;  // "--max-rounds"
  std::string help;  // without the default when `shown` gives it
  // REQUIRES: text is not empty. Invalid naming the flag when the text is bad.
  std::function<Status(const std::string& flag, const std::string& text, O& out)> set;
  // The default as the flag would take it, read from default options (O{}); unset: none shown
  // (the help says what happens without it).
  std::function<std::string(const O&)> shown = {};
  // A switch: given without a value; `set` gets the text "true".
  bool is_switch = false;
};
using OptionTexts = std::map<std::string, std::string>;  // flag -> text as given ("" = default)

// A switch that sets `member` of the options.
template <class O>
OptionDef<O> SwitchDef(const char* flag, std::string help, bool O::*member) {
  return {flag,
          std::move(help),
          [member](const std::string&, const std::string&, O& out) {
            out.*member = true;
            return Status::Ok();
          },
          {},
          true};
}

// The default `d` shows ("" = none).
template <class O>
std::string DefaultText(const OptionDef<O>& d) {
  return d.shown ? d.shown(O{}) : std::string();
}

// "--max-rounds" -> "max_rounds": the key of the flag's text in a run's stored arguments.
inline std::string StoredKey(const std::string& flag) {
  std::string key = flag.substr(flag.rfind("--", 0) == 0 ? 2 : 0);
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

template <class O>
Status ApplyOptionDefs(const std::vector<OptionDef<O>>& defs, const OptionTexts& texts, O& out) {
  for (const OptionDef<O>& d : defs) {
    auto t = texts.find(d.flag);
    if (t != texts.end() && !t->second.empty())
      SSDLAB_RETURN_IF_ERROR(d.set(d.flag, t->second, out));
  }
  return Status::Ok();
}

template <class O>
nlohmann::json OptionTextsJson(const std::vector<OptionDef<O>>& defs, const OptionTexts& texts) {
  nlohmann::json out = nlohmann::json::object();
  for (const OptionDef<O>& d : defs) {
    auto t = texts.find(d.flag);
    out[StoredKey(d.flag)] = t == texts.end() ? std::string() : t->second;
  }
  return out;
}

template <class O>
const OptionDef<O>* FindOptionDef(const std::vector<OptionDef<O>>& defs, const std::string& flag) {
  for (const OptionDef<O>& d : defs) {
    if (flag == d.flag) return &d;
  }
  return nullptr;
}

}  // namespace ssdlab::usecase
