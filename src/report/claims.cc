// Vendor claims: a strict reader of claims files (TOML through toml++) and the
// claimed-versus-measured section of the report.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/model_internal.h"
#include "results/phase_metrics.h"

namespace ssdlab {
namespace report {
namespace {

struct Unit {
  const char* name;
  double factor;  // to the canonical unit
};

struct Kind {
  const char* canonical;
  std::vector<Unit> units;
  bool bare_ok;  // a plain number means the canonical unit
};

const Kind kThroughput{
    "MB/s",
    {{"MB/s", 1}, {"GB/s", 1000}, {"MiB/s", 1.048576}, {"GiB/s", 1073.741824}, {"KB/s", 0.001}},
    false};
const Kind kIops{"IOPS", {{"IOPS", 1}, {"kIOPS", 1000}, {"KIOPS", 1000}}, false};
const Kind kTime{"us", {{"ns", 0.001}, {"us", 1}, {"µs", 1}, {"ms", 1000}, {"s", 1e6}}, false};
const Kind kBytes{"bytes",
                  {{"bytes", 1},
                   {"B", 1},
                   {"KB", 1e3},
                   {"MB", 1e6},
                   {"GB", 1e9},
                   {"TB", 1e12},
                   {"KiB", 1024.0},
                   {"MiB", 1048576.0},
                   {"GiB", 1073741824.0},
                   {"TiB", 1099511627776.0}},
                  false};
const Kind kTbw{"TB", {{"TB", 1}, {"PB", 1000}, {"GB", 0.001}}, false};
const Kind kDwpd{"DWPD", {{"DWPD", 1}}, true};
const Kind kYears{"years", {{"years", 1}, {"year", 1}, {"y", 1}}, false};
const Kind kHours{"hours", {{"hours", 1}, {"h", 1}}, false};
const Kind kWatts{"W", {{"W", 1}, {"mW", 0.001}}, false};

struct ClaimKey {
  const char* key;
  const Kind* kind;
  const char* title;
};

const std::vector<ClaimKey>& ClaimKeys() {
  static const std::vector<ClaimKey> k = {
      {"seq_read", &kThroughput, "Sequential read"},
      {"seq_write", &kThroughput, "Sequential write"},
      {"rnd4k_read", &kIops, "4KiB random read"},
      {"rnd4k_write", &kIops, "4KiB random write"},
      {"rnd8k_read", &kIops, "8KiB random read"},
      {"rnd8k_write", &kIops, "8KiB random write"},
      {"qos_read_p99", &kTime, "4KiB read latency, 99%"},
      {"qos_read_p99_9", &kTime, "4KiB read latency, 99.9%"},
      {"qos_read_p99_99", &kTime, "4KiB read latency, 99.99%"},
      {"qos_write_p99", &kTime, "4KiB write latency, 99%"},
      {"qos_write_p99_9", &kTime, "4KiB write latency, 99.9%"},
      {"qos_write_p99_99", &kTime, "4KiB write latency, 99.99%"},
      {"latency_read_typ", &kTime, "4KiB read latency, typical"},
      {"latency_write_typ", &kTime, "4KiB write latency, typical"},
      {"dwpd", &kDwpd, "Endurance, drive writes per day"},
      {"tbw", &kTbw, "Endurance, total bytes written"},
      {"warranty", &kYears, "Warranty"},
      {"mtbf", &kHours, "MTBF"},
      {"power_active", &kWatts, "Power, active"},
      {"power_idle", &kWatts, "Power, idle"},
  };
  return k;
}

const std::vector<std::string>& DriveKeys() {
  static const std::vector<std::string> k = {"vendor",    "model",       "part_number", "capacity",
                                             "interface", "form_factor", "source",      "notes"};
  return k;
}

template <typename T>
std::string Join(const T& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + std::string(i);
  return s;
}

std::string UnitList(const Kind& k) {
  std::vector<std::string> v;
  for (const Unit& u : k.units) v.push_back(u.name);
  return Join(v);
}

// "555 MB/s", "78k IOPS", "1.6TB", "5 years" -> value in the kind's canonical unit.
Result<double> ParseValue(const std::string& text, const Kind& kind, const std::string& where) {
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == ',' || text[i] == '_'))
    ++i;
  std::string num;
  for (size_t j = start; j < i; ++j) {
    if (text[j] != ',' && text[j] != '_') num += text[j];
  }
  if (num.empty()) return Status::Invalid(where + ": '" + text + "' does not start with a number");
  double v = std::stod(num);
  double mult = 1;
  std::string unit = text.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  while (!unit.empty() && unit.back() == ' ') unit.pop_back();
  // A multiplier glued to the number: "78k IOPS", "2M hours".
  if (i < text.size() && (text[i] == 'k' || text[i] == 'M') && unit.size() > 1 && unit[1] == ' ') {
    mult = text[i] == 'k' ? 1e3 : 1e6;
    unit = unit.substr(2);
    while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  }
  if (unit.empty()) {
    if (kind.bare_ok) return v * mult;
    return Status::Invalid(where + ": '" + text + "' needs a unit (" + UnitList(kind) + ")");
  }
  for (const Unit& u : kind.units) {
    if (unit == u.name) return v * mult * u.factor;
  }
  return Status::Invalid(where + ": unknown unit '" + unit + "' in '" + text + "' (" +
                         UnitList(kind) + ")");
}

}  // namespace
}  // namespace report

Result<Claims> ParseClaims(const std::string& text, const std::string& file_name) {
  using namespace report;
  toml::table doc;
  try {
    doc = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    return Status::Invalid(
        fmt::format("{}:{}: {}", file_name, e.source().begin.line, std::string(e.description())));
  }
  Claims c;
  c.file = file_name;
  for (auto&& [k, node] : doc) {
    std::string table(k.str());
    int line = static_cast<int>(k.source().begin.line);
    if (table != "drive" && table != "claims") {
      return Status::Invalid(
          fmt::format("{}:{}: unknown key '{}' (the file has tables [drive] and [claims])",
                      file_name, line, table));
    }
    const toml::table* t = node.as_table();
    if (!t)
      return Status::Invalid(
          fmt::format("{}:{}: '{}' must be a table: [{}]", file_name, line, table, table));
    for (auto&& [kk, v] : *t) {
      std::string key(kk.str());
      int kline = static_cast<int>(kk.source().begin.line);
      std::string where = fmt::format("{}:{}: {}.{}", file_name, kline, table, key);
      std::string sval;
      if (auto s = v.value<std::string>()) {
        sval = *s;
      } else if (auto d = v.value<double>()) {
        sval = fmt::format("{:g}", *d);
      } else {
        return Status::Invalid(where + ": expected a string or a number");
      }
      if (table == "drive") {
        if (std::find(DriveKeys().begin(), DriveKeys().end(), key) == DriveKeys().end()) {
          return Status::Invalid(fmt::format("{}:{}: unknown key '{}' in [drive] ({})", file_name,
                                             kline, key, Join(DriveKeys())));
        }
        if (key == "capacity") {
          SSDLAB_ASSIGN_OR_RETURN(double b, ParseValue(sval, kBytes, where));
          c.capacity_bytes = static_cast<uint64_t>(std::llround(b));
        }
        c.drive[key] = sval;
        continue;
      }
      const ClaimKey* ck = nullptr;
      for (const ClaimKey& x : ClaimKeys()) {
        if (key == x.key) ck = &x;
      }
      if (!ck) {
        std::vector<std::string> names;
        for (const ClaimKey& x : ClaimKeys()) names.push_back(x.key);
        return Status::Invalid(fmt::format("{}:{}: unknown key '{}' in [claims] ({})", file_name,
                                           kline, key, Join(names)));
      }
      SSDLAB_ASSIGN_OR_RETURN(double val, ParseValue(sval, *ck->kind, where));
      if (!(val > 0)) return Status::Invalid(where + ": must be above 0");
      c.claims.push_back({key, val, ck->kind->canonical, sval, kline});
    }
  }
  std::sort(c.claims.begin(), c.claims.end(),
            [](const Claim& a, const Claim& b) { return a.line < b.line; });
  return c;
}

Result<Claims> LoadClaimsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Invalid("--spec " + path + ": cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseClaims(ss.str(), path);
}

namespace report {
namespace {

struct Measured {
  bool ok = false;
  double value = 0;  // in the claim's canonical unit
  std::string how;
  bool higher_is_better = true;
  std::string why_not;  // when !ok
};

const json* LatCell(const ReportRun& r, double read_pct, uint64_t bs) {
  const json* t = FindTest(r.doc, "lat");
  if (!t) return nullptr;
  for (const json& c : Get(Get(*t, "results"), "cells")) {
    double rp;
    uint64_t b;
    if (ParseCellName(Str(c, "cell"), &rp, &b) && rp == read_pct && b == bs) return &c;
  }
  return nullptr;
}

Measured Measure(const ReportRun& r, const Claim& claim) {
  Measured m;
  const std::string& k = claim.key;
  if (k == "seq_read" || k == "seq_write") {
    bool read = k == "seq_read";
    const json* t = FindTest(r.doc, "tp");
    if (!t) {
      m.why_not = "no throughput test in the run";
      return m;
    }
    for (const json& b : Get(Get(*t, "results"), "by_block")) {
      for (const json& c : Get(b, "cells")) {
        double rp;
        uint64_t bs;
        if (!ParseCellName(Str(c, "cell"), &rp, &bs) || rp != (read ? 100 : 0)) continue;
        auto metrics = results::PhaseMetricsFromJson(c, "tp cell " + Str(c, "cell"));
        if (!metrics.ok()) {
          m.why_not = metrics.status().message();
          return m;
        }
        double v = metrics->total.bw_bytes_per_s / 1e6;
        if (v > m.value) {
          m.value = v;
          m.how = "TP, SEQ " + BlockLabel(bs) + (read ? " read, " : " write, ") +
                  Str(Get(c, "workload"), "description");
          m.ok = true;
        }
      }
    }
    if (!m.ok) m.why_not = "no sequential cell of that direction";
    return m;
  }
  if (k.rfind("rnd", 0) == 0) {
    uint64_t bs = (k[3] == '8' ? 8 : 4) * 1024;
    bool read = k.find("read") != std::string::npos;
    const json* t = FindTest(r.doc, "iops");
    if (!t) {
      m.why_not = "no IOPS test in the run";
      return m;
    }
    for (const json& c : Get(Get(*t, "results"), "cells")) {
      double rp;
      uint64_t b;
      if (ParseCellName(Str(c, "cell"), &rp, &b) && b == bs && rp == (read ? 100 : 0)) {
        auto metrics = results::PhaseMetricsFromJson(c, "iops cell " + Str(c, "cell"));
        if (!metrics.ok()) {
          m.why_not = metrics.status().message();
          return m;
        }
        m.ok = true;
        m.value = metrics->total.iops;
        m.how = "IOPS test, steady state, " + Str(Get(c, "workload"), "description");
      }
    }
    if (!m.ok)
      m.why_not = "the IOPS test has no " + BlockLabel(bs) + (read ? " 100/0" : " 0/100") + " cell";
    return m;
  }
  if (k.rfind("qos_", 0) == 0 || k.rfind("latency_", 0) == 0) {
    bool read = k.find("read") != std::string::npos;
    std::string stat = "mean";
    if (k.rfind("qos_", 0) == 0) stat = k.substr(k.find("_p") + 1);
    const json* c = LatCell(r, read ? 100 : 0, 4096);
    m.higher_is_better = false;
    if (!c) {
      m.why_not = "no latency test with a 4KiB " + std::string(read ? "100/0" : "0/100") + " cell";
      return m;
    }
    auto metrics = results::PhaseMetricsFromJson(*c, "lat cell " + Str(*c, "cell"));
    if (!metrics.ok()) {
      m.why_not = metrics.status().message();
      return m;
    }
    const results::LatencySummaryNs& l = (read ? metrics->read : metrics->write).lat_ns;
    const auto p = l.percentiles.find(stat);
    if (stat != "mean" && p == l.percentiles.end()) {
      m.why_not = "the run did not record the " + stat + " percentile";
      return m;
    }
    m.ok = true;
    m.value = (stat == "mean" ? l.mean : p->second) / 1000;
    m.how = "LAT test, " + Str(Get(*c, "workload"), "description") + ", " +
            (stat == "mean" ? "mean" : stat);
    return m;
  }
  m.why_not = "not measured by a PTS run";
  return m;
}

std::string FmtClaim(double v, const std::string& unit) {
  if (unit == "IOPS") return FmtInt(v) + " IOPS";
  if (unit == "us") return v >= 1000 ? FmtNum(v / 1000, 3) + " ms" : FmtNum(v, 3) + " µs";
  if (unit == "MB/s") return FmtNum(v, 4) + " MB/s";
  if (unit == "bytes") return FmtCapacity(static_cast<uint64_t>(v));
  return fmt::format("{:g} {}", v, unit);
}

}  // namespace

json ClaimsSection(Ctx& ctx, const Claims& claims) {
  json cols = json::array({"Claim", "Claimed"});
  for (const ReportRun& r : ctx.runs) {
    cols.push_back("Measured: " + r.label);
    cols.push_back("Difference");
    cols.push_back("Met");
  }
  json rows = json::array();
  json notes = json::array();
  auto title_of = [](const std::string& key) {
    for (const ClaimKey& x : ClaimKeys()) {
      if (key == x.key) return std::string(x.title);
    }
    return key;
  };
  int met = 0, judged = 0;
  if (claims.capacity_bytes) {
    json rw = json::array({"User capacity", FmtCapacity(claims.capacity_bytes)});
    for (const ReportRun& r : ctx.runs) {
      // A time-scaled run stands for the full drive: its capacity is the one claimed.
      const FullDrive full = FullDriveOf(r);
      const uint64_t simulated =
          static_cast<uint64_t>(Num(Get(Get(r.doc, "context"), "target"), "size_bytes"));
      double cap = full.Bytes(static_cast<double>(simulated));
      rw.push_back(full.Capacity(simulated));
      rw.push_back(FmtPct(100 * (cap - static_cast<double>(claims.capacity_bytes)) /
                              static_cast<double>(claims.capacity_bytes),
                          1));
      bool ok = cap >= static_cast<double>(claims.capacity_bytes);
      rw.push_back(ok ? Cell("yes", "good") : Cell("no", "bad"));
      ++judged;
      met += ok;
    }
    rows.push_back(rw);
  }
  std::map<std::string, double> by_key;
  for (const Claim& c : claims.claims) by_key[c.key] = c.value;
  for (const Claim& c : claims.claims) {
    json rw = json::array({title_of(c.key), FmtClaim(c.value, c.unit)});
    std::string how;
    for (const ReportRun& r : ctx.runs) {
      Measured m = Measure(r, c);
      if (!m.ok) {
        rw.push_back(Cell(m.why_not, "muted"));
        rw.push_back("");
        rw.push_back(Cell("-", "muted"));
        continue;
      }
      if (how.empty()) how = m.how;
      rw.push_back(FmtClaim(m.value, c.unit));
      double diff = 100 * (m.value - c.value) / c.value;
      rw.push_back(fmt::format("{:+.1f}%", diff));
      bool ok = m.higher_is_better ? m.value >= c.value : m.value <= c.value;
      rw.push_back(ok ? Cell("yes", "good") : Cell("no", "bad"));
      ++judged;
      met += ok;
    }
    rows.push_back(rw);
    if (!how.empty()) notes.push_back(title_of(c.key) + ": measured as " + how + ".");
  }
  // Endurance: TBW = DWPD x capacity x 365 x warranty years.
  if (by_key.count("dwpd") && by_key.count("warranty") && claims.capacity_bytes) {
    double tbw = by_key["dwpd"] * static_cast<double>(claims.capacity_bytes) / 1e12 * 365 *
                 by_key["warranty"];
    std::string line = fmt::format(
        "Endurance: {:g} DWPD x {:.0f} GB x 365 x {:g} years = {:.0f} TB written", by_key["dwpd"],
        static_cast<double>(claims.capacity_bytes) / 1e9, by_key["warranty"], tbw);
    if (by_key.count("tbw")) line += fmt::format(" (claimed TBW {:.0f} TB)", by_key["tbw"]);
    notes.push_back(line + ".");
  }
  notes.push_back(
      "Throughput and IOPS claims are met when the measured figure is at least the claim, latency "
      "claims when it is at most the claim. Vendors often quote fresh-drive or burst figures; the "
      "PTS figures are steady state.");
  std::string who = claims.drive.count("model") ? claims.drive.at("model") : claims.file;
  if (claims.drive.count("vendor")) who = claims.drive.at("vendor") + " " + who;
  json blocks = json::array();
  blocks.push_back(TableBlock(
      ctx.Id("claims"),
      fmt::format("Claimed ({}) versus measured: {} of {} judged claims met", who, met, judged),
      cols, rows, notes));
  json facts = json::array();
  for (const auto& [k, v] : claims.drive) facts.push_back(json::array({k, v}));
  if (!facts.empty()) {
    blocks.push_back(TableBlock(
        ctx.Id("claims-drive"),
        "The datasheet's drive (" + std::filesystem::path(claims.file).filename().string() + ")",
        json::array({"Fact", "Datasheet"}), facts));
  }
  return {{"id", "claims"},
          {"title", "Claimed versus measured"},
          {"intro", "The vendor's datasheet figures beside the figures this run measured."},
          {"blocks", blocks}};
}

}  // namespace report
}  // namespace ssdlab
