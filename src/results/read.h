// Private to results/: typed reads of optional JSON keys, refusing a wrong type with Invalid
// naming "WHERE.KEY", and the writing of lists.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

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
inline Status Text(const nlohmann::json& j, const std::string& where, const std::string& key,
                   std::string& out) {
  return Read(
      j, where, key, "a text", [](const nlohmann::json& v) { return v.is_string(); }, out);
}
// `j` itself must be an object.
inline Status Object(const nlohmann::json& j, const std::string& where) {
  return j.is_object() ? Status::Ok() : Status::Invalid(where + " is not an object");
}
// Optional object `key` of `j` read by `from(value, "WHERE.KEY")` (a Result<T>) into `out`.
template <class T, class From>
Status Sub(const nlohmann::json& j, const std::string& where, const std::string& key, From from,
           T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  auto r = from(*it, where + "." + key);
  if (!r.ok()) return r.status();
  out = std::move(r).value();
  return Status::Ok();
}
// Optional list `key` of `j`, each element read by `from(element, "WHERE.KEY[i]")` (a
// Result<T>) and appended to `out`.
template <class T, class From>
Status List(const nlohmann::json& j, const std::string& where, const std::string& key, From from,
            std::vector<T>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  const std::string at = where + "." + key;
  if (!it->is_array()) return Status::Invalid(at + " is not a list");
  for (size_t i = 0; i < it->size(); ++i) {
    auto r = from((*it)[i], at + "[" + std::to_string(i) + "]");
    if (!r.ok()) return r.status();
    out.push_back(std::move(r).value());
  }
  return Status::Ok();
}
// [to_json(v)...] of `list`; without `to_json`, the public ToJson of T.
template <class T, class To>
nlohmann::json ListJson(const std::vector<T>& list, To to_json) {
  nlohmann::json out = nlohmann::json::array();
  for (const T& v : list) out.push_back(to_json(v));
  return out;
}
template <class T>
nlohmann::json ListJson(const std::vector<T>& list) {
  return ListJson(list, [](const T& v) { return ToJson(v); });
}
// A pair of numbers [a, b] (a list element: `where` names it).
template <class A, class B>
Result<std::pair<A, B>> NumberPair(const nlohmann::json& v, const std::string& where) {
  if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
    return Status::Invalid(where + " is not a pair of numbers");
  return std::pair<A, B>{v[0].get<A>(), v[1].get<B>()};
}

}  // namespace ssdlab::results::internal
