// A declarative field table for the typed result documents: a type lists each of its fields
// once (JSON key, member, kind) and the one table gives both its writing (ToJson) and its
// reading (FromJson), with the same wording of errors in every document.
//
// Use, in the .cc of the type (in namespace ssdlab::results, or with fields:: qualified):
//
//   namespace f = fields;
//   constexpr auto kSample = f::Object<Sample>(  // struct Sample { double t_s, iops; };
//       f::Number("t_s", &Sample::t_s), f::Number("iops", &Sample::iops));
//   constexpr auto kPoint = f::Object<Point>(
//       f::Text("name", &Point::name),                     // std::string
//       f::Count("seed", &Point::seed),                    // std::optional<uint64_t>
//       f::Flag("done", &Point::done),                     // bool
//       f::List("samples", &Point::samples, kSample),      // std::vector<Sample>
//       f::Sub("metrics", &Point::metrics, f::Via<PhaseMetricsFromJson>()),  // {...}
//       f::Inline(&Point::figures, f::Via<PhaseMetricsFromJson>()));  // its keys beside
//   SSDLAB_FIELDS_JSON(Point, PointFromJson, kPoint)  // ToJson(const Point&), PointFromJson
//
// Fields (the factories take the key, then a pointer to the member):
//   Number(key, m)   any number; the member's arithmetic type (a double is written as one)
//   Count(key, m)    a non-negative number; an unsigned member (a fractional one truncated)
//   Id(key, m)       a 64-bit id (a seed): written as a decimal string, read from either form
//   Flag(key, m)     true or false
//   Text(key, m)     a JSON string
//   Sub(key, m, c)   a nested value by codec `c`: Object<U>(...), Via<FromJson>(), MapOf(c2)
//   List(key, m, c)  a JSON list (std::vector<E>), each element by codec `c`
//   Inline(m, c)     member `m` by codec `c`, its keys standing beside the others
//   At<T>(key, c)    a nested object whose keys fill members of T itself (context.target.path)
//   Merge<T>(c)      keys that a codec of T itself writes and reads beside the others
// A member of type std::optional<V> is optional: written only when set, read when present.
// Codecs: NumberOf<V>(), CountOf<V>(), FlagOf(), TextOf(), PairOf<A, B>() ([a, b]),
// ListOf(c), MapOf(c, keep) (an object of named values; `keep` skips entries), Object<T>(...),
// Via<FromJson>() (a type with its own public ToJson and FromJson, found beside the type).
//
// Reading: the object must be one ("WHERE is not an object"); a key that is missing or null
// keeps the member's default; a value of the wrong type is Invalid "WHERE.KEY is not KIND",
// KIND one of "a number", "a count", "true or false", "a text", "an object", "a list",
// "a pair of numbers"; list elements are named "WHERE.KEY[i]", map entries "WHERE.KEY.NAME".
// Keys the table does not list are ignored. Writing: every listed key in the table's order (a
// later field overwrites an earlier one's key: Inline first, then the keys it must not keep);
// the member's C++ type gives the JSON number's type (uint64_t -> unsigned, double -> float).
//
// A codec is any value with `nlohmann::json Write(const V&) const` and
// `Status Read(const nlohmann::json&, const std::string& where, V&) const`; Object<T>(...)
// also has `Result<T> Parse(json, where)`. The tables are literal types: declare them
// `constexpr` in the .cc that owns the type, and reach another file's type through its public
// FromJson with Via<...>() (never another file's table: no static initialisation order).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/status.h"
#include "results/ids.h"

namespace ssdlab::results::fields {

using nlohmann::json;

// ---------------------------------------------------------------- scalar codecs

inline bool IsNumber(const json& v) { return v.is_number(); }
// A non-negative number (a fractional one is read truncated).
inline bool IsCount(const json& v) {
  if (v.is_number_unsigned()) return true;
  if (v.is_number_integer()) return v.get<int64_t>() >= 0;
  return v.is_number_float() && v.get<double>() >= 0;
}
inline bool IsFlag(const json& v) { return v.is_boolean(); }
inline bool IsText(const json& v) { return v.is_string(); }

// A value of one JSON type, read with get<V>() once `fits` accepts it.
template <class V>
struct ScalarCodec {
  const char* want;  // "a number": the end of the error's sentence
  bool (*fits)(const json&);
  json Write(const V& v) const { return json(v); }
  Status Read(const json& j, const std::string& where, V& out) const {
    if (!fits(j)) return Status::Invalid(where + " is not " + want);
    out = j.template get<V>();
    return Status::Ok();
  }
};
template <class V>
constexpr ScalarCodec<V> NumberOf() {
  return {"a number", IsNumber};
}
template <class V>
constexpr ScalarCodec<V> CountOf() {
  return {"a count", IsCount};
}
constexpr ScalarCodec<bool> FlagOf() { return {"true or false", IsFlag}; }
constexpr ScalarCodec<std::string> TextOf() { return {"a text", IsText}; }

// A 64-bit identifier (a seed): written as a decimal string, read from a string or a number
// (results/ids.h).
struct IdCodec {
  json Write(const uint64_t& v) const { return IdJson(v); }
  Status Read(const json& j, const std::string& where, uint64_t& out) const {
    if (!IdFromJson(j, out)) return Status::Invalid(where + " is not an id (a decimal string)");
    return Status::Ok();
  }
};
constexpr IdCodec IdOf() { return {}; }

// ---------------------------------------------------------------- compound codecs

// A list, each element by `element` ("WHERE[i]").
template <class C>
struct ListCodec {
  C element;
  template <class E>
  json Write(const std::vector<E>& list) const {
    json out = json::array();
    for (const E& v : list) out.push_back(element.Write(v));
    return out;
  }
  template <class E>
  Status Read(const json& j, const std::string& where, std::vector<E>& out) const {
    if (!j.is_array()) return Status::Invalid(where + " is not a list");
    out.clear();
    for (size_t i = 0; i < j.size(); ++i) {
      E v{};
      SSDLAB_RETURN_IF_ERROR(element.Read(j[i], where + "[" + std::to_string(i) + "]", v));
      out.push_back(std::move(v));
    }
    return Status::Ok();
  }
};
template <class C>
constexpr ListCodec<C> ListOf(C element) {
  return {element};
}

// An object of named values, each by `value` ("WHERE.NAME"); entries `keep` refuses are
// skipped (with Inline, the other keys of the same object).
template <class C>
struct MapCodec {
  C value;
  bool (*keep)(const std::string& name, const json& v) = nullptr;
  template <class V>
  json Write(const std::map<std::string, V>& map) const {
    json out = json::object();
    for (const auto& [k, v] : map) out[k] = value.Write(v);
    return out;
  }
  template <class V>
  Status Read(const json& j, const std::string& where, std::map<std::string, V>& out) const {
    if (!j.is_object()) return Status::Invalid(where + " is not an object");
    out.clear();
    for (const auto& [k, v] : j.items()) {
      if (keep && !keep(k, v)) continue;
      SSDLAB_RETURN_IF_ERROR(value.Read(v, where + "." + k, out[k]));
    }
    return Status::Ok();
  }
};
template <class C>
constexpr MapCodec<C> MapOf(C value, bool (*keep)(const std::string&, const json&) = nullptr) {
  return {value, keep};
}

// A pair of numbers [a, b].
template <class A, class B>
struct PairCodec {
  json Write(const std::pair<A, B>& p) const { return json::array({p.first, p.second}); }
  Status Read(const json& j, const std::string& where, std::pair<A, B>& out) const {
    if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number())
      return Status::Invalid(where + " is not a pair of numbers");
    out = {j[0].template get<A>(), j[1].template get<B>()};
    return Status::Ok();
  }
};
template <class A, class B>
constexpr PairCodec<A, B> PairOf() {
  return {};
}

// A type with its own public pair: `From(json, where)` (a Result<V>) and ToJson(const V&),
// found beside V.
template <auto From>
struct ViaCodec {
  using V = std::remove_cvref_t<decltype(From(json(), std::string()).value())>;
  json Write(const V& v) const { return ToJson(v); }
  Status Read(const json& j, const std::string& where, V& out) const {
    auto r = From(j, where);
    if (!r.ok()) return r.status();
    out = std::move(r).value();
    return Status::Ok();
  }
};
template <auto From>
constexpr ViaCodec<From> Via() {
  return {};
}

// ---------------------------------------------------------------- fields

namespace detail {
template <class M>
struct Unwrap {
  using type = M;
  static constexpr bool kOptional = false;
};
template <class V>
struct Unwrap<std::optional<V>> {
  using type = V;
  static constexpr bool kOptional = true;
};

// `v` under `key` of `out`; no key: `v`'s own keys merged into `out`.
inline void Put(const char* key, json v, json& out) {
  if (key) {
    out[key] = std::move(v);
  } else {
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = std::move(it.value());
  }
}
// `read(value, "WHERE.KEY")` when `key` holds a value; no key: `read(j, where)`.
template <class Read>
Status ReadKey(const char* key, const json& j, const std::string& where, Read read) {
  if (!key) return read(j, where);
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  return read(*it, where + "." + key);
}
}  // namespace detail

// Member `member` of T under `key` by `codec`; no key (Inline): the codec's object is merged
// into T's. M = std::optional<V>: the codec is V's, the key written only when set.
template <class T, class M, class C>
struct MemberField {
  const char* key;  // nullptr: Inline
  M T::*member;
  C codec;

  void Write(const T& t, json& out) const {
    const M& v = t.*member;
    if constexpr (detail::Unwrap<M>::kOptional) {
      if (v) detail::Put(key, codec.Write(*v), out);
    } else {
      detail::Put(key, codec.Write(v), out);
    }
  }
  Status Read(const json& j, const std::string& where, T& t) const {
    return detail::ReadKey(key, j, where, [&](const json& v, const std::string& at) -> Status {
      M& out = t.*member;
      if constexpr (detail::Unwrap<M>::kOptional) {
        typename detail::Unwrap<M>::type value{};
        SSDLAB_RETURN_IF_ERROR(codec.Read(v, at, value));
        out = std::move(value);
        return Status::Ok();
      } else {
        return codec.Read(v, at, out);
      }
    });
  }
};

// T itself under `key` by `codec`, a codec of T (At); no key (Merge): the codec's object is
// merged into T's.
template <class T, class C>
struct SelfField {
  const char* key;  // nullptr: Merge
  C codec;
  void Write(const T& t, json& out) const { detail::Put(key, codec.Write(t), out); }
  Status Read(const json& j, const std::string& where, T& t) const {
    return detail::ReadKey(
        key, j, where, [&](const json& v, const std::string& at) { return codec.Read(v, at, t); });
  }
};

template <class T, class M>
constexpr auto Number(const char* key, M T::*member) {
  using V = typename detail::Unwrap<M>::type;
  return MemberField<T, M, ScalarCodec<V>>{key, member, NumberOf<V>()};
}
template <class T, class M>
constexpr auto Count(const char* key, M T::*member) {
  using V = typename detail::Unwrap<M>::type;
  return MemberField<T, M, ScalarCodec<V>>{key, member, CountOf<V>()};
}
template <class T, class M>
constexpr auto Id(const char* key, M T::*member) {
  return MemberField<T, M, IdCodec>{key, member, IdOf()};
}
template <class T, class M>
constexpr auto Flag(const char* key, M T::*member) {
  return MemberField<T, M, ScalarCodec<bool>>{key, member, FlagOf()};
}
template <class T, class M>
constexpr auto Text(const char* key, M T::*member) {
  return MemberField<T, M, ScalarCodec<std::string>>{key, member, TextOf()};
}
template <class T, class M, class C>
constexpr auto Sub(const char* key, M T::*member, C codec) {
  return MemberField<T, M, C>{key, member, codec};
}
template <class T, class M, class C>
constexpr auto List(const char* key, M T::*member, C element) {
  return MemberField<T, M, ListCodec<C>>{key, member, ListOf(element)};
}
template <class T, class M, class C>
constexpr auto Inline(M T::*member, C codec) {
  return MemberField<T, M, C>{nullptr, member, codec};
}
template <class T, class C>
constexpr auto At(const char* key, C codec) {
  return SelfField<T, C>{key, codec};
}
template <class T, class C>
constexpr auto Merge(C codec) {
  return SelfField<T, C>{nullptr, codec};
}

// ---------------------------------------------------------------- objects

// An object of T: its fields in order.
template <class T, class... F>
struct ObjectCodec {
  std::tuple<F...> table;

  json Write(const T& t) const {
    json out = json::object();
    std::apply([&](const auto&... f) { (f.Write(t, out), ...); }, table);
    return out;
  }
  Status Read(const json& j, const std::string& where, T& t) const {
    if (!j.is_object()) return Status::Invalid(where + " is not an object");
    Status s;
    std::apply([&](const auto&... f) { (void)((s = f.Read(j, where, t)).ok() && ...); }, table);
    return s;
  }
  Result<T> Parse(const json& j, const std::string& where) const {
    T t{};
    SSDLAB_RETURN_IF_ERROR(Read(j, where, t));
    return t;
  }
};
template <class T, class... F>
constexpr ObjectCodec<T, F...> Object(F... field) {
  return {std::tuple<F...>(field...)};
}

}  // namespace ssdlab::results::fields

// Defines the public pair of TYPE from its table TABLE (an Object<TYPE>(...)):
// `nlohmann::json ToJson(const TYPE&)` and
// `Result<TYPE> FROM_JSON(const nlohmann::json& j, const std::string& where)`.
#define SSDLAB_FIELDS_JSON(TYPE, FROM_JSON, TABLE)                            \
  nlohmann::json ToJson(const TYPE& v) { return TABLE.Write(v); }             \
  Result<TYPE> FROM_JSON(const nlohmann::json& j, const std::string& where) { \
    return TABLE.Parse(j, where);                                             \
  }
