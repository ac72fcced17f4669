// User profiles from TOML files (toml++). Strict: unknown keys, wrong types and bad values
// are rejected with the file, line and key.
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/units.h"
#include "suite/profile.h"
#include "workload/parse.h"

namespace ssdlab {
namespace {

std::string Where(const std::string& path, const toml::source_region& src) {
  return path + ":" + std::to_string(src.begin.line);
}

// Checks every key of `t` against `known`; the first unknown one is an error.
Status CheckKeys(const std::string& path, const toml::table& t, const std::set<std::string>& known,
                 const std::string& section) {
  for (auto&& [k, v] : t) {
    if (!known.count(std::string(k.str()))) {
      std::string list;
      for (const std::string& n : known) list += (list.empty() ? "" : ", ") + n;
      return Status::Invalid(Where(path, k.source()) + ": unknown key '" + std::string(k.str()) +
                             "' in " + section + " (known: " + list + ")");
    }
  }
  return Status::Ok();
}

// A value as text: strings as they are, integers and floats printed.
Result<std::string> Text(const std::string& path, const toml::node& n, const std::string& key) {
  if (auto s = n.as_string()) return s->get();
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto f = n.as_floating_point()) {
    std::ostringstream o;
    o << f->get();
    return o.str();
  }
  return Status::Invalid(Where(path, n.source()) + ": key '" + key +
                         "' must be a string or a number");
}

Result<uint32_t> Count(const std::string& path, const toml::node& n, const std::string& key) {
  auto i = n.as_integer();
  if (!i || i->get() < 1 || i->get() > 1 << 20)
    return Status::Invalid(Where(path, n.source()) + ": key '" + key +
                           "' must be a positive integer");
  return static_cast<uint32_t>(i->get());
}

Result<UserPhase> ParsePhase(const std::string& path, const toml::table& t, size_t index) {
  static const std::set<std::string> kKeys = {
      "name", "rw",    "rwmix_read", "bs",        "qd",   "jobs", "runtime",  "io_size",
      "ramp", "range", "dist",       "rate_iops", "data", "seed", "interval", "idle_after"};
  SSDLAB_RETURN_IF_ERROR(CheckKeys(path, t, kKeys, "[[phase]]"));
  UserPhase p;
  p.name = "phase " + std::to_string(index + 1);
  WorkloadArgs& a = p.args;
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string at = Where(path, v.source());
    if (key == "qd") {
      SSDLAB_ASSIGN_OR_RETURN(a.qd, Count(path, v, key));
      continue;
    }
    if (key == "jobs") {
      SSDLAB_ASSIGN_OR_RETURN(a.jobs, Count(path, v, key));
      continue;
    }
    SSDLAB_ASSIGN_OR_RETURN(std::string s, Text(path, v, key));
    if (key == "name")
      p.name = s;
    else if (key == "rw")
      a.rw = s;
    else if (key == "rwmix_read")
      a.rwmix_read = s;
    else if (key == "bs")
      a.bs = s;
    else if (key == "runtime")
      a.runtime = s;
    else if (key == "io_size")
      a.io_size = s;
    else if (key == "ramp")
      a.ramp = s;
    else if (key == "range")
      a.range = s;
    else if (key == "dist")
      a.dist = s;
    else if (key == "rate_iops")
      a.rate_iops = s;
    else if (key == "data")
      a.data = s;
    else if (key == "interval")
      a.interval = s;
    else if (key == "seed") {
      auto c = ParseCount(s);
      if (!c.ok()) return Status::Invalid(at + ": seed: " + c.status().message());
      a.seed = c.value();
    } else if (key == "idle_after") {
      auto d = ParseDurationNs(s);
      if (!d.ok()) return Status::Invalid(at + ": idle_after: " + d.status().message());
      p.idle_after_ns = d.value();
    }
  }
  // Syntax check now (against a nominal 1 TiB target) so errors name the line; the real
  // resolution happens against the target when the phase runs.
  auto probe = ResolveWorkload(a, 1ull << 40, 512);
  if (!probe.ok())
    return Status::Invalid(Where(path, t.source()) + ": phase '" + p.name +
                           "': " + probe.status().message());
  return p;
}

Result<CurveMix> ParseCurve(const std::string& path, const toml::table& t,
                            const std::string& name) {
  static const std::set<std::string> kKeys = {"base", "pattern", "read_pct", "bs",
                                              "dist", "threads", "source"};
  SSDLAB_RETURN_IF_ERROR(CheckKeys(path, t, kKeys, "[curve]"));
  CurveMix m;
  m.threads = 32;
  m.source = "user profile " + path;
  if (auto b = t["base"]) {
    auto s = b.value<std::string>();
    const CurveMix* found = nullptr;
    for (const CurveMix& x : BuiltinCurveMixes()) {
      if (s && x.name == *s) found = &x;
    }
    if (!found)
      return Status::Invalid(Where(path, b.node()->source()) + ": base: unknown curve '" +
                             s.value_or("?") + "'");
    m = *found;
    m.source = "user profile " + path + " based on " + found->name + " (" + found->source + ")";
  }
  m.name = name;
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    std::string at = Where(path, v.source());
    if (key == "base" || key == "source") {
      if (key == "source" && v.as_string()) m.source = v.as_string()->get();
      continue;
    }
    if (key == "threads") {
      SSDLAB_ASSIGN_OR_RETURN(m.threads, Count(path, v, key));
      continue;
    }
    SSDLAB_ASSIGN_OR_RETURN(std::string s, Text(path, v, key));
    if (key == "pattern") {
      if (s != "random" && s != "sequential")
        return Status::Invalid(at + ": pattern must be \"random\" or \"sequential\"");
      m.sequential = s == "sequential";
    } else if (key == "read_pct") {
      auto p = ParsePercent(s);
      if (!p.ok()) return Status::Invalid(at + ": read_pct: " + p.status().message());
      m.read_pct = p.value();
    } else if (key == "bs") {
      auto b = ParseBlockSizes(s);
      if (!b.ok()) return Status::Invalid(at + ": bs: " + b.status().message());
      m.block_sizes = b.value();
    } else if (key == "dist") {
      auto d = ParseDistribution(s);
      if (!d.ok()) return Status::Invalid(at + ": dist: " + d.status().message());
      m.dist = d.value();
    }
  }
  return m;
}

}  // namespace

Result<ProfileDef> LoadProfileFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("profile file " + path + " cannot be read");
  std::stringstream buf;
  buf << in.rdbuf();
  toml::table root;
  try {
    root = toml::parse(buf.str(), path);
  } catch (const toml::parse_error& e) {
    return Status::Invalid(Where(path, e.source()) + ": " + std::string(e.description()));
  }
  static const std::set<std::string> kTop = {"name", "description", "phase", "curve"};
  SSDLAB_RETURN_IF_ERROR(CheckKeys(path, root, kTop, "the top level"));
  ProfileDef d;
  d.file = path;
  d.name = std::filesystem::path(path).stem().string();
  if (auto n = root["name"]) {
    if (!n.is_string())
      return Status::Invalid(Where(path, n.node()->source()) + ": key 'name' must be a string");
    d.name = *n.value<std::string>();
  }
  if (auto n = root["description"]) {
    if (!n.is_string())
      return Status::Invalid(Where(path, n.node()->source()) +
                             ": key 'description' must be a string");
    d.description = *n.value<std::string>();
  }
  bool has_phase = root.contains("phase"), has_curve = root.contains("curve");
  if (has_phase == has_curve)
    return Status::Invalid(path +
                           ": a profile file needs either [[phase]] tables or one [curve] table");
  if (has_phase) {
    const toml::array* arr = root["phase"].as_array();
    if (!arr || arr->empty())
      return Status::Invalid(Where(path, root["phase"].node()->source()) +
                             ": 'phase' must be [[phase]] tables");
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::table* t = (*arr)[i].as_table();
      if (!t)
        return Status::Invalid(Where(path, (*arr)[i].source()) +
                               ": 'phase' entries must be tables");
      SSDLAB_ASSIGN_OR_RETURN(UserPhase p, ParsePhase(path, *t, i));
      d.phases.push_back(std::move(p));
    }
    d.kind = "user";
    if (d.description.empty())
      d.description = "user profile of " + std::to_string(d.phases.size()) + " phases";
  } else {
    const toml::table* t = root["curve"].as_table();
    if (!t)
      return Status::Invalid(Where(path, root["curve"].node()->source()) +
                             ": 'curve' must be a [curve] table");
    SSDLAB_ASSIGN_OR_RETURN(d.curve, ParseCurve(path, *t, d.name));
    d.kind = "curve";
    if (d.description.empty()) d.description = "user curve: " + d.curve.source;
  }
  return d;
}

}  // namespace ssdlab
