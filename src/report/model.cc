// The report model: sections of tables and Vega-Lite specs built from run documents.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "report/model_internal.h"
#include "report/pts_sections.h"
#include "results/ids.h"
#include "results/steady_state.h"

namespace ssdlab {
namespace report {

const json* FindTest(const json& doc, const std::string& name) {
  const json& tests = Get(doc, "tests");
  if (!tests.is_array()) return nullptr;
  for (const json& t : tests) {
    if (Str(t, "name") == name && !IsProfileTest(t)) return &t;
  }
  return nullptr;
}

json TableBlock(const std::string& id, const std::string& caption, json columns, json rows,
                json notes) {
  return {{"kind", "table"},         {"id", id},
          {"caption", caption},      {"columns", std::move(columns)},
          {"rows", std::move(rows)}, {"notes", std::move(notes)}};
}

json ChartBlock(const std::string& id, const std::string& caption, json spec) {
  return {{"kind", "chart"}, {"id", id}, {"caption", caption}, {"spec", std::move(spec)}};
}

json TextBlock(const std::string& text) { return {{"kind", "text"}, {"text", text}}; }

json RowBlock(json blocks) { return {{"kind", "row"}, {"blocks", std::move(blocks)}}; }

json GroupRow(const std::string& title) { return {{"group", title}}; }

json Cell(const std::string& text, const std::string& cls) {
  return {{"text", text}, {"class", cls}};
}

// ---------------------------------------------------------------- Vega-Lite helpers

json Spec(const std::string& title, json values, int width, int height) {
  return {{"title", title},
          {"width", width},
          {"height", height},
          {"data", {{"values", std::move(values)}}}};
}

json Q(const std::string& field, const std::string& title, bool log, bool zero) {
  json e = {{"field", field}, {"type", "quantitative"}, {"title", title}};
  if (log) {
    e["scale"] = {{"type", "log"}};
  } else if (!zero) {
    e["scale"] = {{"zero", false}};
  }
  return e;
}

json N(const std::string& field, const std::string& title, json sort) {
  json e = {{"field", field}, {"type", "nominal"}, {"title", title}};
  if (!sort.is_null()) e["sort"] = std::move(sort);
  return e;
}

json O(const std::string& field, const std::string& title, json sort) {
  json e = {{"field", field}, {"type", "ordinal"}, {"title", title}, {"axis", {{"labelAngle", 0}}}};
  if (!sort.is_null()) e["sort"] = std::move(sort);
  return e;
}

json DriveEnc() { return N("drive", "Drive"); }

// Lines with points, coloured by `series`; with several runs the drive is the dash pattern
// and the point shape.
json LineSpec(const std::string& title, json values, json x, json y, const std::string& series,
              const std::string& series_title, const Ctx& ctx, json series_sort,
              const std::string& order_field, int width, int height) {
  json s = Spec(title, std::move(values), width, height);
  s["mark"] = {{"type", "line"}, {"point", true}, {"tooltip", true}};
  json enc = {{"x", std::move(x)}, {"y", std::move(y)}};
  if (!series.empty()) enc["color"] = N(series, series_title, std::move(series_sort));
  if (ctx.multi) {
    if (series.empty()) {
      enc["color"] = DriveEnc();
    } else {
      enc["strokeDash"] = DriveEnc();
      enc["shape"] = DriveEnc();
    }
  }
  if (!order_field.empty()) enc["order"] = {{"field", order_field}, {"type", "quantitative"}};
  s["encoding"] = enc;
  return s;
}

json BarSpec(const std::string& title, json values, json x, json y, json color, const Ctx& ctx,
             const std::string& column, bool keep_color, int width, int height) {
  json s = Spec(title, std::move(values), width, height);
  s["mark"] = {{"type", "bar"}, {"tooltip", true}};
  const bool horizontal = Str(x, "type") == "quantitative";
  // Category names under vertical bars ("SEQ1M Q8T1") break at their spaces, one word a line,
  // so neighbours in narrow bands never run together.
  if (!horizontal && x.is_object() && !x.contains("axis")) x["axis"] = json::object();
  if (!horizontal && x["axis"].is_object() && !x["axis"].contains("labelExpr"))
    x["axis"]["labelExpr"] = "split(datum.label, ' ')";
  json enc = {{"x", std::move(x)}, {"y", std::move(y)}};
  if (!column.empty()) enc["column"] = {{"field", column}, {"type", "nominal"}, {"title", nullptr}};
  if (ctx.multi) {
    enc[horizontal ? "yOffset" : "xOffset"] = DriveEnc();
    if (!keep_color) color = DriveEnc();
  }
  if (!color.is_null()) enc["color"] = std::move(color);
  s["encoding"] = enc;
  return s;
}

json Section(const std::string& id, const std::string& title, const std::string& intro,
             json blocks) {
  return {{"id", id}, {"title", title}, {"intro", intro}, {"blocks", std::move(blocks)}};
}

void Append(json& blocks, const json& more) {
  for (const json& b : more) blocks.push_back(b);
}

json ThinSeries(const json& series, const std::string& t_key, const std::string& v_key, size_t n) {
  if (!series.is_array() || series.size() <= n || n == 0)
    return series.is_array() ? series : json::array();
  json out = json::array();
  const size_t k = (series.size() + n - 1) / n;
  for (size_t i = 0; i < series.size(); i += k) {
    double t = 0, v = 0;
    size_t m = 0;
    for (size_t j = i; j < std::min(series.size(), i + k); ++j, ++m) {
      t = Num(series[j], t_key);
      v += Num(series[j], v_key);
    }
    out.push_back({{t_key, t}, {v_key, v / static_cast<double>(m)}});
  }
  return out;
}

// ---------------------------------------------------------------- the full drive
FullDrive FullDriveOf(const ReportRun& r) { return FullDriveOfRun(r.doc); }

FullDrive FullDriveOfRun(const json& doc) {
  double n = Num(Get(Get(Get(doc, "context"), "config"), "options"), "time_scale", 1);
  FullDrive f{n >= 1 && n < 1e9 ? static_cast<uint32_t>(n) : 1u};
  if (!f.Scaled()) return f;
  f.capacity_ratio = f.scale;
  const json& details = Get(Get(Get(doc, "context"), "target"), "details");
  const double full = std::atof(Str(details, "capacity").c_str());
  const double simulated = std::atof(Str(details, "sim_user_bytes").c_str());
  if (full > 0 && simulated > 0) f.capacity_ratio = full / simulated;
  return f;
}

std::string FullDrive::Duration(double simulated_ns) const {
  if (!Scaled()) return FmtDurationNs(simulated_ns);
  // The spec's round duration divided to whole nanoseconds comes back a hair short ("60.0 s"
  // from 59.999998 s): the full drive's figure without trailing zeros ("60 s").
  std::string full = FmtDurationNs(simulated_ns * scale);
  const size_t dot = full.find('.'), space = full.find(' ');
  if (dot != std::string::npos && space != std::string::npos && dot < space) {
    size_t end = space;
    while (end > dot + 1 && full[end - 1] == '0') --end;
    if (end == dot + 1) end = dot;
    full.erase(end, space - end);
  }
  return full + " (" + FmtDurationNs(simulated_ns) + " simulated)";
}

std::string FullDrive::Capacity(uint64_t simulated_bytes) const {
  std::string full = FmtCapacity(static_cast<uint64_t>(std::llround(Bytes(simulated_bytes))));
  if (!Scaled()) return full;
  full.pop_back();  // the closing parenthesis
  return full + "; simulated: " + FmtInt(static_cast<double>(simulated_bytes)) + " bytes)";
}

std::string FullDrive::Sentence() const {
  if (!Scaled()) return "";
  return fmt::format(
      "simulated at 1/{0} of its blocks, every duration divided by {0}: the full drive's test in "
      "virtual time",
      scale);
}

namespace pts {

json RoundAxis() {
  return {{"field", "round"},
          {"type", "quantitative"},
          {"title", "Round"},
          {"scale", {{"zero", false}}},
          {"axis", {{"tickMinStep", 1}, {"format", "d"}}}};
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Tracking variables in readable units: bandwidth in MB/s, latency in microseconds.
double VarScale(const std::string& var) {
  if (EndsWith(var, " bw")) return 1e-6;
  if (EndsWith(var, " mean_ns")) return 1e-3;
  return 1;
}

std::string VarLabel(const std::string& var) {
  if (EndsWith(var, " bw")) return var.substr(0, var.size() - 3) + " MB/s";
  if (EndsWith(var, " mean_ns")) return var.substr(0, var.size() - 8) + " mean latency, µs";
  if (EndsWith(var, " iops")) return var.substr(0, var.size() - 5) + " IOPS";
  return var;
}

// "randread bs=4 KiB qd=8 jobs=16" -> "16 threads x QD 8"
std::string LoadText(const std::string& description) {
  auto grab = [&](const std::string& key) -> std::string {
    auto p = description.find(key);
    if (p == std::string::npos) return "";
    auto e = description.find(' ', p);
    return description.substr(p + key.size(),
                              e == std::string::npos ? std::string::npos : e - p - key.size());
  };
  std::string qd = grab("qd="), jobs = grab("jobs=");
  if (qd.empty() || jobs.empty()) return description;
  return jobs + (jobs == "1" ? " thread" : " threads") + " x QD " + qd;
}

json ThreadsParam(const std::vector<int>& threads) {
  json opts = json::array();
  for (int t : threads) opts.push_back(t);
  return json::array({{{"name", "threads"},
                       {"value", threads.empty() ? 1 : threads.front()},
                       {"bind", {{"input", "select"}, {"options", opts}, {"name", "Threads: "}}}}});
}

// ---------------------------------------------------------------- run facts

const json& Ctxt(const ReportRun& r) { return Get(r.doc, "context"); }
Result<results::PtsOptions> OptionsOf(const ReportRun& r) {
  const json& config = Get(Ctxt(r), "config");
  if (!Str(config, "kind").empty() || !config.contains("options"))
    return Status::NotFound("run '" + r.label + "' is not a PTS run");
  return results::PtsOptionsFromJson(config["options"]);
}

std::string PurgeOf(const ReportRun& r) {
  for (const json& t : Get(r.doc, "tests")) {
    const json& res = Get(t, "results");
    if (IsProfileTest(t)) {
      std::string p;
      for (const json& l : Get(res, "levels")) {
        if (p.empty()) p = Str(Get(l, "preparation"), "purge_method");
        const json& pts = Get(Get(l, "results"), "points");
        if (p.empty() && pts.is_array() && !pts.empty()) p = Str(pts[0], "purge_method");
      }
      if (!p.empty()) return p;
      continue;
    }
    std::string p = Str(res, "purge_method");
    if (p.empty() && Get(res, "by_block").is_array() && !Get(res, "by_block").empty())
      p = Str(Get(res, "by_block")[0], "purge_method");
    if (p.empty() && Get(res, "op_points").is_array() && !Get(res, "op_points").empty())
      p = Str(Get(res, "op_points")[0], "purge_method");
    if (!p.empty()) return p;
  }
  return "-";
}

namespace {
// The run's steady-state criteria; the defaults where it has no readable options.
SteadyStateCriteria CriteriaOf(const ReportRun& r) {
  auto o = OptionsOf(r);
  return o.ok() ? o->steady : SteadyStateCriteria{};
}
}  // namespace

double BandPct(const ReportRun& r) {
  const SteadyStateCriteria c = CriteriaOf(r);
  return c.rule == SteadyStateRule::kSnia ? c.max_range_pct / 2 : c.band_pct;
}

std::string RuleText(const ReportRun& r) {
  const SteadyStateCriteria c = CriteriaOf(r);
  if (c.rule == SteadyStateRule::kSnia) {
    return fmt::format(
        "window of {} rounds; data excursion <= {:g}% and slope excursion <= {:g}% of the window "
        "average (SNIA PTS)",
        c.window_rounds, c.max_range_pct, c.max_slope_pct);
  }
  return fmt::format(
      "window of {} rounds; least-squares line within {:g}%..{:g}% of the window average "
      "(reviewers' rule)",
      c.window_rounds, 100 - c.band_pct, 100 + c.band_pct);
}

std::string SpecName(const std::string& s) {
  if (s == "pts-e") return "SNIA PTS Enterprise 1.1";
  if (s == "pts-c") return "SNIA PTS 2.0.x (client)";
  if (s == "review") return "SNIA PTS-E 1.1 with the reviewers' deviations (docs/methodology.md)";
  return s.empty() ? "-" : s;
}

std::string VerdictText(const json& ss) {
  auto s = results::SteadyStateFromJson(ss);
  if (!s.ok()) return "damaged: " + s.status().message();
  if (!s->required || !ss.contains("variables")) return "no steady-state requirement";
  return results::VerdictLine(*s);
}

json VerdictCell(const json& ss) {
  std::string t = VerdictText(ss);
  auto s = results::SteadyStateFromJson(ss);
  if (!s.ok()) return Cell(t, "bad");
  if (!s->required || !ss.contains("variables")) return Cell(t, "muted");
  if (s->reached) return Cell(t, "good");
  return Cell(t, results::MissedSteadyState(*s) ? "bad" : "muted");
}

// One PTS test's section of the report: its title from the catalogue (results/pts_tests.h).

std::string TestTitle(const std::string& name) {
  for (const PtsSectionDef& t : PtsSections()) {
    if (name == t.name()) return t.title();
  }
  return name;
}

std::vector<std::string> TestsPresent(const Ctx& ctx) {
  std::vector<std::string> out;
  for (const PtsSectionDef& t : PtsSections()) {
    for (const ReportRun& r : ctx.runs) {
      if (FindTest(r.doc, t.name())) {
        out.push_back(t.name());
        break;
      }
    }
  }
  return out;
}

}  // namespace pts

namespace {

using namespace pts;  // NOLINT: the helpers shared with the PTS sections

// ---------------------------------------------------------------- overview

struct DeviceFacts {
  std::string vendor, model, serial, firmware, interface, write_cache, sectors, path;
  uint64_t capacity = 0;
};

DeviceFacts Device(const ReportRun& r) {
  const json& c = Ctxt(r);
  const json& target = Get(c, "target");
  const json& disk = Get(Get(c, "device"), "disk");
  const json& details = Get(target, "details");
  DeviceFacts d;
  bool sim = Str(target, "kind") == "sim";
  auto pick = [&](const char* disk_key, const char* target_key) {
    std::string v = Str(disk, disk_key);
    return v.empty() ? Str(target, target_key) : v;
  };
  d.vendor = Str(disk, "vendor", sim ? "ssdlab simulator" : "");
  d.model = pick("model", "model");
  if (sim) d.model = "sim:" + d.model + " (simulated)";
  d.serial = pick("serial", "serial");
  d.firmware = pick("firmware", "firmware");
  d.capacity = static_cast<uint64_t>(Num(target, "size_bytes", Num(disk, "capacity_bytes")));
  d.interface = Str(disk, "transport");
  if (d.interface.empty() && sim) {
    d.interface = Str(details, "interface");
    if (!Str(details, "link_mb_s").empty())
      d.interface += ", link " + Str(details, "link_mb_s") + " MB/s (modelled)";
  }
  if (d.interface.empty()) d.interface = Str(target, "kind");
  d.write_cache = Str(disk, "write_cache");
  if (d.write_cache.empty() && sim && !Str(details, "buffer").empty()) {
    d.write_cache =
        "modelled DRAM buffer of " + FmtInt(std::stod(Str(details, "buffer"))) + " bytes";
  }
  d.sectors = fmt::format("{:g} / {:g} bytes", Num(target, "logical_block_bytes"),
                          Num(target, "physical_block_bytes"));
  d.path = Str(target, "path") + " (" + Str(target, "kind") + ")";
  for (std::string* s : {&d.vendor, &d.model, &d.serial, &d.firmware, &d.write_cache}) {
    if (s->empty()) *s = "-";
  }
  return d;
}

// A run stored by `ssdlab import` (context "imported"): its set-up is what the file said.
bool Imported(const ReportRun& r) {
  const json& i = Get(Ctxt(r), "imported");
  return i.is_boolean() && i.get<bool>();
}

// "unknown" for an imported run (the file did not say), else `otherwise`.
std::string Unknown(const ReportRun& r, const std::string& otherwise) {
  return Imported(r) ? "unknown" : otherwise;
}

// "imported from r.json (fio fio-3.33, Sat Dec  5 21:03:44 2026)".
std::string ImportedSpec(const ReportRun& r) {
  const json& config = Get(Ctxt(r), "config");
  const json& fio = Get(config, "fio");
  std::string s = "imported from " + Str(config, "imported_from", "unknown");
  if (fio.is_object())
    s += fmt::format(" (fio {}, {})", Str(fio, "version", "unknown version"),
                     Str(fio, "time", "time unknown"));
  return s;
}

json OverviewSection(Ctx& ctx) {
  json cols = json::array({""});
  for (const ReportRun& r : ctx.runs) cols.push_back(r.label);
  json rows = json::array();
  auto row = [&](const std::string& name, auto fn) {
    json rw = json::array({name});
    for (const ReportRun& r : ctx.runs) rw.push_back(fn(r));
    rows.push_back(rw);
  };
  rows.push_back(GroupRow("Test platform"));
  // An imported run's context holds what its file said and nothing more: the rest is unknown.
  row("Host", [](const ReportRun& r) { return Str(Ctxt(r), "host", Unknown(r, "-")); });
  row("CPU", [](const ReportRun& r) {
    if (Imported(r) && !Get(Ctxt(r), "cpus").is_number()) return Unknown(r, "");
    return fmt::format("{} ({:g} CPUs)", Str(Ctxt(r), "cpu_model", "-"), Num(Ctxt(r), "cpus"));
  });
  row("Memory", [](const ReportRun& r) {
    if (Imported(r) && !Get(Ctxt(r), "memory_bytes").is_number()) return Unknown(r, "");
    return fmt::format("{:.1f} GiB", Num(Ctxt(r), "memory_bytes") / (1ull << 30));
  });
  row("OS, kernel", [](const ReportRun& r) {
    if (Imported(r) && Str(Ctxt(r), "os").empty()) return Unknown(r, "");
    return fmt::format("{} {}, {}", Str(Ctxt(r), "os"), Str(Ctxt(r), "kernel"),
                       Str(Ctxt(r), "arch"));
  });
  row("Tool", [](const ReportRun& r) {
    if (Imported(r))
      return Str(Ctxt(r), "tool").empty()
                 ? Unknown(r, "")
                 : fmt::format("{} {} (imported)", Str(Ctxt(r), "tool"),
                               Str(Ctxt(r), "tool_version", "unknown version"));
    return fmt::format("{} {} ({})", Str(Ctxt(r), "tool", "ssdlab"), Str(Ctxt(r), "tool_version"),
                       Str(Ctxt(r), "git_revision"));
  });
  rows.push_back(GroupRow("Device under test"));
  row("Vendor", [](const ReportRun& r) { return Device(r).vendor; });
  row("Model", [](const ReportRun& r) { return Device(r).model; });
  row("Serial number", [](const ReportRun& r) { return Device(r).serial; });
  row("Firmware", [](const ReportRun& r) { return Device(r).firmware; });
  row("Capacity", [](const ReportRun& r) {
    const uint64_t c = Device(r).capacity;
    return Imported(r) && c == 0 ? Unknown(r, "") : FullDriveOf(r).Capacity(c);
  });
  if (std::any_of(ctx.runs.begin(), ctx.runs.end(),
                  [](const ReportRun& r) { return FullDriveOf(r).Scaled(); })) {
    row("Time scale", [](const ReportRun& r) {
      FullDrive f = FullDriveOf(r);
      return f.Scaled() ? "Simulated at 1/" + std::to_string(f.scale) + " of its blocks, every " +
                              "duration divided by " + std::to_string(f.scale) +
                              ": the full drive's test in virtual time. Capacity, data written, " +
                              "positions and durations are the full drive's; rates and latencies " +
                              "are as measured."
                        : std::string("1 (as measured)");
    });
  }
  row("Sector size (logical / physical)",
      [](const ReportRun& r) { return Imported(r) ? Unknown(r, "") : Device(r).sectors; });
  row("Interface", [](const ReportRun& r) { return Device(r).interface; });
  row("Write cache", [](const ReportRun& r) { return Device(r).write_cache; });
  row("Target", [](const ReportRun& r) { return Device(r).path; });
  row("Purge method", [](const ReportRun& r) { return PurgeOf(r); });
  rows.push_back(GroupRow("Set-up parameters"));
  // A profile run has no PTS set-up: its own facts instead; a PTS run's come from its options.
  using results::PtsOptions;
  auto fact = [](const ReportRun& r, const char* key,
                 const std::function<std::string(const PtsOptions&)>& pts) {
    if (Imported(r)) return std::string(key) == "spec" ? ImportedSpec(r) : Unknown(r, "");
    json f = ProfileRunFacts(r);
    if (f.is_object()) return Str(f, key);
    auto o = OptionsOf(r);
    if (o.ok()) return pts(*o);
    return o.status().code() == Code::kNotFound ? std::string("-")
                                                : "damaged: " + o.status().message();
  };
  row("Specification", [&](const ReportRun& r) {
    return fact(r, "spec", [](const PtsOptions& o) { return SpecName(PtsSpecName(o.spec)); });
  });
  row("Data pattern", [](const ReportRun& r) {
    if (Imported(r)) return Unknown(r, "");
    const std::string d = Str(ProfileRunFacts(r), "data_pattern");
    return d.empty() ? std::string("random (incompressible)") : d;
  });
  row("Active range", [&](const ReportRun& r) {
    return fact(r, "active_range", [&](const PtsOptions& o) {
      return fmt::format(
          "{:g}% of the capacity (0 .. {})", o.active_range_pct,
          FmtInt(static_cast<double>(Device(r).capacity) * o.active_range_pct / 100));
    });
  });
  row("Preconditioning", [&](const ReportRun& r) {
    return fact(r, "preconditioning", [](const PtsOptions& o) {
      return fmt::format(
          "purge; SEQ 128KiB write of {:g}x the active range (workload independent); "
          "then the test stimulus until steady state (workload dependent)",
          o.wipc_multiple);
    });
  });
  row("Rounds", [&](const ReportRun& r) {
    return fact(r, "rounds", [](const PtsOptions& o) {
      std::string s = fmt::format("up to {} rounds; each cell {}", o.max_rounds,
                                  FullDriveOf(o).Duration(o.round_ns));
      if (o.iops_round_ns) s += " (IOPS: " + FullDriveOf(o).Duration(o.iops_round_ns) + ")";
      return s;
    });
  });
  row("Steady state", [&](const ReportRun& r) {
    return fact(r, "steady_state", [&](const PtsOptions&) { return RuleText(r); });
  });
  // A profile run stores these two under the same keys of its own options.
  auto raw_options = [](const ReportRun& r) -> const json& {
    return Get(Get(Ctxt(r), "config"), "options");
  };
  row("Percentiles", [&](const ReportRun& r) {
    auto o = OptionsOf(r);
    if (o.ok()) return ListNums(o->percentiles);
    std::string s;
    for (const json& p : Get(raw_options(r), "percentiles"))
      if (p.is_number()) s += (s.empty() ? "" : ", ") + fmt::format("{:g}", p.get<double>());
    return s;
  });
  row("Seed", [&](const ReportRun& r) {  // all 64 bits: a double would round it
    if (Imported(r)) return Unknown(r, "");
    auto o = OptionsOf(r);
    uint64_t seed = 1;
    if (o.ok()) {
      seed = o->seed;
    } else if (const json& raw = Get(raw_options(r), "seed");
               !raw.is_null() && !results::IdFromJson(raw, seed)) {
      return std::string("-");
    }
    return std::to_string(seed);
  });
  rows.push_back(GroupRow("Run"));
  row("Run name", [](const ReportRun& r) { return Str(Ctxt(r), "run"); });
  row("Status", [](const ReportRun& r) { return Str(Ctxt(r), "status"); });
  row("Started / finished (UTC)", [](const ReportRun& r) {
    return Str(Ctxt(r), "created_at") + " / " + Str(Ctxt(r), "finished_at");
  });
  row("Tests", [](const ReportRun& r) {
    std::string s;
    for (const json& t : Get(r.doc, "tests")) s += (s.empty() ? "" : ", ") + Str(t, "name");
    return s;
  });

  json blocks = json::array();
  blocks.push_back(TableBlock(
      "overview", "Test platform, device under test and set-up (SNIA report header)", cols, rows));

  // Steady-state verdicts of every PTS test (profiles have none).
  json vrows = json::array();
  for (const std::string& name : TestsPresent(ctx)) {
    json rw = json::array({TestTitle(name)});
    for (const ReportRun& r : ctx.runs) {
      if (ProfileRunFacts(r).is_object()) continue;
      rw.push_back(TestVerdictCell(r.doc, name));
    }
    vrows.push_back(rw);
  }
  json vcols = json::array({"Test"});
  for (const ReportRun& r : ctx.runs) {
    if (!ProfileRunFacts(r).is_object()) vcols.push_back(r.label);
  }
  if (!vrows.empty())
    blocks.push_back(TableBlock("verdicts", "Steady-state verdicts", vcols, vrows));
  return {{"id", "overview"}, {"title", "Test set-up"}, {"intro", ""}, {"blocks", blocks}};
}

// ---------------------------------------------------------------- simulator counters

// The last "sim" object in `j` in document order (arrays in time order; an object's members
// in key order, e.g. a profile item's "read" before its "write"), or null.
const json* LastSimObject(const json& j) {
  const json* last = nullptr;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const json* found = it.key() == "sim" && it->is_object() ? &*it : LastSimObject(*it);
      if (found) last = found;
    }
  } else if (j.is_array()) {
    for (const json& e : j) {
      if (const json* found = LastSimObject(e)) last = found;
    }
  }
  return last;
}

json SimSection(Ctx& ctx) {
  json rows = json::array(), arows = json::array();
  for (const ReportRun& r : ctx.runs) {
    if (Str(Get(Ctxt(r), "target"), "kind") != "sim") continue;
    for (const json& t : Get(r.doc, "tests")) {
      const json& res = Get(t, "results");
      const json* sim = nullptr;
      auto take = [&](const json& arr, const char* key) {
        if (arr.is_array() && !arr.empty() && Get(arr.back(), key).is_object())
          sim = &arr.back()[key];
      };
      take(Get(res, "cells"), "sim");
      take(Get(res, "per_round"), "sim");
      if (!sim && Get(res, "segments").is_array() && !Get(res, "segments").empty()) {
        const json& m = Get(Get(res, "segments").back(), "metrics");
        if (Get(m, "sim").is_object()) sim = &m["sim"];
      }
      if (!sim && Get(res, "by_block").is_array() && !Get(res, "by_block").empty())
        take(Get(Get(res, "by_block").back(), "cells"), "sim");
      if (!sim && Get(res, "wait_states").is_array() && !Get(res, "wait_states").empty()) {
        const json& m = Get(Get(res, "wait_states").back(), "return_to_baseline");
        if (Get(m, "sim").is_object()) sim = &m["sim"];
      }
      if (!sim && IsProfileTest(t)) sim = LastSimObject(res);  // each profile its own layout
      if (!sim) continue;
      if (Num(*sim, "array_members") > 0) {
        arows.push_back(json::array(
            {r.label, TestTitle(Str(t, "name")), FmtInt(Num(*sim, "array_members")),
             FmtInt(Num(*sim, "array_host_ios")), FmtInt(Num(*sim, "array_member_reads")),
             FmtInt(Num(*sim, "array_member_writes")),
             FmtNum(Num(*sim, "array_member_ios_per_host_io"), 3),
             FmtNum(Num(*sim, "array_member_write_bytes") / 1e9, 4)}));
      }
      rows.push_back(json::array(
          {r.label, TestTitle(Str(t, "name")), FmtNum(Num(*sim, "write_amplification"), 3),
           FmtInt(Num(*sim, "free_blocks")), FmtInt(Num(*sim, "free_blocks_min")),
           FmtInt(Num(*sim, "gc_page_copies")), FmtInt(Num(*sim, "erases")),
           FmtDurationNs(Num(*sim, "virtual_time_s") * 1e9)}));
    }
  }
  if (rows.empty()) return nullptr;
  json blocks = json::array();
  blocks.push_back(TableBlock(
      ctx.Id("sim-table"), "Counters of the simulated drive at the end of each test's last phase",
      json::array({"Drive", "Test", "Write amplification", "Free blocks", "Free blocks (min)",
                   "GC page copies", "Erases", "Virtual time"}),
      rows,
      json::array({"Figures come from the simulator's FTL model, not from a drive. Write "
                   "amplification: NAND pages written per host page."})));
  if (!arows.empty()) {
    blocks.push_back(TableBlock(
        ctx.Id("sim-array"),
        "Arrays of simulated drives: what the array's commands cost its members",
        json::array({"Array", "Test", "Members", "Array I/Os", "Member reads", "Member writes",
                     "Member I/Os per array I/O", "Written to members, GB"}),
        arows,
        json::array({"RAID 5 small writes read the old data and parity before writing both (4 "
                     "member I/Os); RAID 1/10 write every copy (2). The drive counters above "
                     "are sums over the members (free blocks: the member with fewest)."})));
  }
  return Section("sim", "Simulator counters",
                 "Internal state of the simulated SSD (sim:PRESET targets): garbage collection, "
                 "free blocks, write amplification.",
                 blocks);
}

// ---------------------------------------------------------------- temperature

json TemperatureSection(Ctx& ctx) {
  json blocks = json::array(), values = json::array(), trows = json::array();
  for (const ReportRun& r : ctx.runs) {
    double offset = 0;
    std::string reason;
    bool any = false;
    for (const json& t : Get(r.doc, "tests")) {
      const json& h = Get(Get(t, "results"), "health");
      if (!h.is_object()) continue;
      std::string src = Str(h, "source");
      if (src == "simulated") {
        reason = "simulated target: the model has no thermal sensor";
        continue;
      }
      if (src == "none" || src.empty()) {
        reason = Str(h, "reason", "the target has no temperature sensor or SMART");
        continue;
      }
      double end = 0;
      for (const json& s : Get(h, "samples")) {
        if (!Get(s, "temperature_c").is_number()) continue;
        any = true;
        end = std::max(end, Num(s, "t_s"));
        values.push_back({{"drive", r.label},
                          {"test", TestTitle(Str(t, "name"))},
                          {"time_min", R6((offset + Num(s, "t_s")) / 60)},
                          {"c", Num(s, "temperature_c")}});
      }
      offset += end;
      const json& ts = Get(h, "temperature");
      if (Num(ts, "samples") > 0) {
        trows.push_back(json::array({r.label, TestTitle(Str(t, "name")), src,
                                     FmtNum(Num(ts, "idle_c"), 3), FmtNum(Num(ts, "peak_c"), 3),
                                     FmtNum(Num(ts, "mean_c"), 3), FmtInt(Num(ts, "samples"))}));
      }
    }
    if (!any) {
      if (reason.empty()) reason = "the run holds no temperature samples";
      blocks.push_back(TextBlock(r.label + ": temperature was not sampled (" + reason + ")."));
    }
  }
  if (!values.empty()) {
    json s = LineSpec("Drive temperature during the run", values,
                      Q("time_min", "Time in the tests, minutes"),
                      Q("c", "Temperature, °C", false, false), "test", "Test", ctx);
    s["mark"] = {{"type", "line"}, {"tooltip", true}};
    blocks.push_back(ChartBlock(ctx.Id("temp"), "Temperature samples, tests in order", s));
    blocks.push_back(TableBlock(
        ctx.Id("temp-table"), "Temperature per test (°C; idle is the sample before the load)",
        json::array({"Drive", "Test", "Source", "Idle", "Peak", "Mean", "Samples"}), trows));
  }
  return Section("temperature", "Temperature", "", blocks);
}

}  // namespace
}  // namespace report

using report::json;

Result<std::vector<ReportRun>> LoadReportRuns(const RunLoader& load,
                                              const std::vector<std::string>& names) {
  std::vector<ReportRun> runs;
  for (const std::string& n : names) {
    for (const ReportRun& r : runs) {
      if (report::Str(report::Get(r.doc, "context"), "run") == n)
        return Status::Invalid("run '" + n + "' is named twice");
    }
    auto doc = load(n);
    if (!doc.ok()) return doc.status();
    runs.push_back({"", std::move(doc.value())});
  }
  std::vector<std::string> models;
  for (const ReportRun& r : runs) {
    const json& c = report::Get(r.doc, "context");
    std::string m = report::Str(report::Get(report::Get(c, "device"), "disk"), "model");
    if (m.empty()) m = report::Str(report::Get(c, "target"), "model");
    if (m.empty()) m = report::Str(report::Get(c, "target"), "path");
    if (report::Str(report::Get(c, "target"), "kind") == "sim") m = "sim:" + m;
    models.push_back(m);
  }
  std::set<std::string> distinct(models.begin(), models.end());
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string run = report::Str(report::Get(runs[i].doc, "context"), "run");
    runs[i].label = distinct.size() == runs.size() && runs.size() > 1
                        ? models[i]
                        : models[i] + " (" + run + ")";
  }
  return runs;
}

namespace report {
namespace {

// ---------------------------------------------------------------- the page's size

// Every string of `j` but its data values (field names, expressions), for LeanChart's search.
void SpecStrings(const json& j, std::string& out) {
  if (j.is_string()) {
    out += j.get<std::string>() + '\x1f';
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "data") continue;
      out += it.key() + '\x1f';
      SpecStrings(it.value(), out);
    }
  } else if (j.is_array()) {
    for (const json& x : j) SpecStrings(x, out);
  }
}

// True when field `f` is named anywhere in the spec's strings: as a field, in an expression
// ("datum.f", "datum['f']") or a tooltip.
bool Named(const std::string& strings, const std::string& f) {
  for (size_t p = strings.find(f); p != std::string::npos; p = strings.find(f, p + 1)) {
    const char before = p == 0 ? '\x1f' : strings[p - 1];
    const char after = p + f.size() < strings.size() ? strings[p + f.size()] : '\x1f';
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if (!word(before) && !word(after)) return true;
  }
  return false;
}

bool DrawsLines(const json& spec) {
  auto line = [](const json& s) {
    const json& m = Get(s, "mark");
    return m == "line" || Str(m, "type") == "line";
  };
  if (line(spec)) return true;
  for (const json& l : Get(spec, "layer"))
    if (line(l)) return true;
  return false;
}

}  // namespace

json LeanChart(json spec, size_t max_per_series, size_t* drawn, size_t* total) {
  *drawn = *total = 0;
  if (!spec.is_object() || !Get(Get(spec, "data"), "values").is_array()) return spec;
  json& values = spec["data"]["values"];
  *drawn = *total = values.size();
  if (values.empty()) return spec;
  std::string strings;
  SpecStrings(spec, strings);
  // Fields nothing in the spec names are never drawn (a mark's tooltip shows its encodings).
  std::set<std::string> unused;
  for (const json& row : values)
    for (auto it = row.begin(); it != row.end(); ++it)
      if (!unused.count(it.key()) && !Named(strings, it.key())) unused.insert(it.key());
  for (json& row : values)
    for (const std::string& f : unused) row.erase(f);
  // Lines: each series (the rows sharing every text field) at most `max_per_series` points, the
  // lowest and highest y of each run of neighbours, and its first and last.
  const std::string y = Str(Get(Get(spec, "encoding"), "y"), "field");
  if (y.empty() || !DrawsLines(spec) || spec.contains("params") || values.size() <= max_per_series)
    return spec;
  std::map<std::string, std::vector<size_t>> series;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string key;
    for (auto it = values[i].begin(); it != values[i].end(); ++it)
      if (it.value().is_string()) key += it.key() + '=' + it.value().get<std::string>() + '\x1f';
    series[key].push_back(i);
  }
  std::vector<bool> keep(values.size(), false);
  const size_t buckets = std::max<size_t>(1, max_per_series / 2);
  for (const auto& [key, rows] : series) {
    if (rows.size() <= max_per_series) {
      for (size_t i : rows) keep[i] = true;
      continue;
    }
    keep[rows.front()] = keep[rows.back()] = true;
    const size_t k = (rows.size() + buckets - 1) / buckets;
    for (size_t b = 0; b < rows.size(); b += k) {
      size_t lo = rows[b], hi = rows[b];
      for (size_t j = b; j < std::min(rows.size(), b + k); ++j) {
        if (Num(values[rows[j]], y) < Num(values[lo], y)) lo = rows[j];
        if (Num(values[rows[j]], y) > Num(values[hi], y)) hi = rows[j];
      }
      keep[lo] = keep[hi] = true;
    }
  }
  json kept = json::array();
  for (size_t i = 0; i < values.size(); ++i)
    if (keep[i]) kept.push_back(std::move(values[i]));
  *drawn = kept.size();
  values = std::move(kept);
  return spec;
}

namespace {

// LeanChart on every chart of `blocks` (rows too), its caption saying how many points it draws
// when it draws fewer than it has.
void LeanCharts(json& blocks) {
  for (json& b : blocks) {
    if (Str(b, "kind") == "row") LeanCharts(b["blocks"]);
    if (Str(b, "kind") != "chart") continue;
    size_t drawn = 0, total = 0;
    b["spec"] = LeanChart(std::move(b["spec"]), kMaxPointsPerSeries, &drawn, &total);
    if (drawn < total)
      b["caption"] = Str(b, "caption") +
                     fmt::format(
                         " (drawn: {} of {} points, the lowest and highest of each run of "
                         "neighbours; every point is in the CSV and JSON export)",
                         FmtInt(static_cast<double>(drawn)), FmtInt(static_cast<double>(total)));
  }
}

}  // namespace
}  // namespace report

json BuildReportModel(const std::vector<ReportRun>& runs, const ReportOptions& options) {
  report::Ctx ctx{runs, runs.size() > 1};
  ctx.binary_units = options.binary_units;
  // The PTS sections and the claims check show the PTS runs only (a profile run would be a
  // column of "not run"); ids stay unique across both contexts.
  std::vector<ReportRun> pts_runs;
  for (const ReportRun& r : runs) {
    if (!report::ProfileRunFacts(r).is_object()) pts_runs.push_back(r);
  }
  report::Ctx pts{pts_runs, pts_runs.size() > 1};
  pts.binary_units = options.binary_units;
  json model;
  std::string labels;
  for (const ReportRun& r : runs) labels += (labels.empty() ? "" : " vs ") + r.label;
  model["title"] = options.title.empty() ? "SSD test report: " + labels : options.title;
  model["subtitle"] = runs.size() > 1 ? "Side by side: " + labels : "Drive: " + labels;
  // A time-scaled run says so in the header, once: every figure below is the full drive's.
  for (const ReportRun& r : runs) {
    const std::string sentence = report::FullDriveOf(r).Sentence();
    if (sentence.empty()) continue;
    model["subtitle"] = model["subtitle"].get<std::string>() + "; " +
                        (runs.size() > 1 ? r.label + ": " : "") + sentence;
  }
  model["generated_at"] = options.generated_at;
  model["tool_version"] = options.tool_version;
  json rs = json::array();
  for (const ReportRun& r : runs)
    rs.push_back({{"label", r.label}, {"run", report::Str(report::Get(r.doc, "context"), "run")}});
  model["runs"] = rs;
  json sections = json::array();
  auto add = [&](json s) {
    if (s.is_object() && !s["blocks"].empty()) sections.push_back(std::move(s));
  };
  add(report::OverviewSection(ctx));
  pts.next_id = ctx.next_id;
  if (options.claims) add(report::ClaimsSection(pts_runs.empty() ? ctx : pts, *options.claims));
  add(report::pts::CompareSection(pts));
  // Only the tests a run holds: a test no run holds takes no block id (the others' ids do not
  // depend on which tests the catalogue has).
  const std::vector<std::string> present = report::pts::TestsPresent(pts);
  for (const report::PtsSectionDef& t : report::PtsSections()) {
    if (std::find(present.begin(), present.end(), t.name()) != present.end())
      add(t.build(pts, t.name()));
  }
  ctx.next_id = std::max(ctx.next_id, pts.next_id);
  for (json& s : report::ProfileSections(ctx)) add(std::move(s));
  for (json& s : report::ImportedSections(ctx)) add(std::move(s));
  add(report::AppSection(ctx));
  add(report::RunSection(ctx));
  add(report::ReplaySection(ctx));
  add(report::PlpSection(ctx));
  add(report::TraceStatsSection(ctx));
  if (options.twin)
    for (json& s : report::TwinSections(ctx, *options.twin)) add(std::move(s));
  add(report::SimSection(ctx));
  add(report::TemperatureSection(ctx));
  for (json& s : sections) report::LeanCharts(s["blocks"]);
  model["sections"] = sections;
  return model;
}

}  // namespace ssdlab
