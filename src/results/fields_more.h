// Private to results/: fields beside results/fields.h's, for documents that write null for what
// is not there: Nullable(key, m) (a std::optional<V> member written as null when unset, read as
// unset from null or a missing key) and Raw(key, m) (a free-form nlohmann::json member, as
// stored).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "results/fields.h"

namespace ssdlab::results::fields {

template <class T, class V, class C>
struct NullableField {
  const char* key;
  std::optional<V> T::*member;
  C codec;
  void Write(const T& t, json& out) const {
    const std::optional<V>& v = t.*member;
    out[key] = v ? codec.Write(*v) : json(nullptr);
  }
  Status Read(const json& j, const std::string& where, T& t) const {
    return detail::ReadKey(key, j, where, [&](const json& v, const std::string& at) -> Status {
      V value{};
      SSDLAB_RETURN_IF_ERROR(codec.Read(v, at, value));
      t.*member = std::move(value);
      return Status::Ok();
    });
  }
};
template <class T, class V, class C>
constexpr auto Nullable(const char* key, std::optional<V> T::*member, C codec) {
  return NullableField<T, V, C>{key, member, codec};
}

// Any JSON value, kept as it is.
struct RawCodec {
  json Write(const json& v) const { return v; }
  Status Read(const json& j, const std::string&, json& out) const {
    out = j;
    return Status::Ok();
  }
};
template <class T>
constexpr auto Raw(const char* key, json T::*member) {
  return MemberField<T, json, RawCodec>{key, member, RawCodec{}};
}

}  // namespace ssdlab::results::fields
