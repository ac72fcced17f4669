// Private to results/: typed reads of optional JSON keys, refusing a wrong type with Invalid
// naming "WHERE.KEY".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace ssdlab::results::internal {

// Reads optional key `key` of `j` into `out` when present (null counts as absent); Invalid
// naming the key when `fits` refuses the value.
template <class T, class Fits>
Status Read(const nlohmann::json& j, const std::string& where, const std::string& key,
            const char* want, Fits fits, T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!fits(*it)) return Status::Invalid(where + "." + key + " is not " + want);
  out = it->template get<T>();
  return Status::Ok();
}
// A non-negative number (a fractional one is read truncated).
inline bool IsCount(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return true;
  if (v.is_number_integer()) return v.get<int64_t>() >= 0;
  return v.is_number_float() && v.get<double>() >= 0;
}
template <class T>
Status Number(const nlohmann::json& j, const std::string& where, const std::string& key, T& out) {
  return Read(
      j, where, key, "a number", [](const nlohmann::json& v) { return v.is_number(); }, out);
}
template <class T>
Status Count(const nlohmann::json& j, const std::string& where, const std::string& key, T& out) {
  return Read(j, where, key, "a count", IsCount, out);
}
inline Status Flag(const nlohmann::json& j, const std::string& where, const std::string& key,
                   bool& out) {
  return Read(
      j, where, key, "true or false", [](const nlohmann::json& v) { return v.is_boolean(); }, out);
}
// `j` itself must be an object.
inline Status Object(const nlohmann::json& j, const std::string& where) {
  return j.is_object() ? Status::Ok() : Status::Invalid(where + " is not an object");
}

}  // namespace ssdlab::results::internal
