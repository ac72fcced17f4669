// Private to results/: reads beside read.h's: lists of numbers and texts, and optional values
// (absent or null leaves the std::optional empty).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/read.h"

namespace ssdlab::results::internal {

inline Result<double> NumberAt(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number()) return Status::Invalid(where + " is not a number");
  return v.get<double>();
}
inline Result<std::string> TextAt(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) return Status::Invalid(where + " is not a text");
  return v.get<std::string>();
}
inline Status Numbers(const nlohmann::json& j, const std::string& where, const std::string& key,
                      std::vector<double>& out) {
  return List(j, where, key, NumberAt, out);
}
inline Status Texts(const nlohmann::json& j, const std::string& where, const std::string& key,
                    std::vector<std::string>& out) {
  return List(j, where, key, TextAt, out);
}
// Optional key `key` read by `read(j, where, key, T&)` (a read.h reader) into `out`.
template <class T, class ReadFn>
Status Optional(const nlohmann::json& j, const std::string& where, const std::string& key,
                ReadFn read, std::optional<T>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  T v{};
  SSDLAB_RETURN_IF_ERROR(read(j, where, key, v));
  out = std::move(v);
  return Status::Ok();
}
// The value of `v`, or null.
template <class T>
nlohmann::json OrNull(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace ssdlab::results::internal
