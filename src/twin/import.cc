#include "twin/import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "base/units.h"

namespace ssdlab::twin {
namespace {

using nlohmann::json;

const char* const kHeader =
    "test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,"
    "lat_p99_99_us,lat_max_us,role,source";
const char* const kMetrics[] = {"iops",         "mb_s",          "lat_mean_us", "lat_p99_us",
                                "lat_p99_9_us", "lat_p99_99_us", "lat_max_us"};

// One CSV line into fields (RFC 4180 quotes). False on an unterminated quote.
bool SplitCsv(const std::string& line, std::vector<std::string>* out) {
  out->clear();
  std::string f;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        f += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        f += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out->push_back(f);
      f.clear();
    } else {
      f += c;
    }
  }
  out->push_back(f);
  return !quoted;
}

// What a number read from a file must be.
enum class Kind {
  kNonNegative,  // >= 0 (a count of I/Os, a curve position)
  kPositive,     // > 0 (a published figure: IOPS, MB/s, a latency)
  kCount,        // a whole number >= 1 (threads, queue depth)
  kPercent,      // 0 to 100
};

bool IsA(double v, Kind kind) {
  if (!std::isfinite(v) || v < 0) return false;
  switch (kind) {
    case Kind::kNonNegative:
      return true;
    case Kind::kPositive:
      return v > 0;
    case Kind::kCount:
      return v >= 1 && v == std::floor(v);
    case Kind::kPercent:
      return v <= 100;
  }
  return false;
}

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kNonNegative:
      return "a number >= 0";
    case Kind::kPositive:
      return "a number > 0";
    case Kind::kCount:
      return "a whole number >= 1";
    case Kind::kPercent:
      return "a percentage from 0 to 100";
  }
  return "";
}

// A JSON value as a message quotes it: short, on one line.
std::string Quoted(const json& v) {
  std::string t = v.dump();
  return t.size() > 40 ? t.substr(0, 37) + "..." : t;
}

// Reads a fio document's fields, each checked for its type and range; every error is one line
// naming the file, the job and the field ("r.json: job rr: read.clat_ns.mean is not ...").
class FioFields {
 public:
  explicit FioFields(std::string where) : where_(std::move(where)) {}

  // The object at `key` of `obj` (empty when absent).
  Result<json> Object(const json& obj, const std::string& key, const std::string& path) const {
    if (!obj.contains(key)) return json::object();
    const json& v = obj[key];
    if (!v.is_object())
      return Status::Invalid(where_ + path + key + " is not an object (" + Quoted(v) + ")");
    return v;
  }
  // The number at `key` of `obj` (0 when absent), of `kind`.
  Result<double> Number(const json& obj, const std::string& key, const std::string& path,
                        Kind kind) const {
    if (!obj.contains(key)) return 0.0;
    const json& v = obj[key];
    if (!v.is_number() || !IsA(v.get<double>(), kind))
      return Status::Invalid(where_ + path + key + " is not " + KindName(kind) + " (" + Quoted(v) +
                             ")");
    return v.get<double>();
  }
  // The text of option `key` of `opts` (`dflt` when absent): fio writes options as strings;
  // a number is taken as its text.
  Result<std::string> Option(const json& opts, const char* key, const std::string& dflt) const {
    if (!opts.contains(key)) return dflt;
    const json& v = opts[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number()) return v.dump();
    return Status::Invalid(where_ + "option " + key + " is not a string (" + Quoted(v) + ")");
  }
  Status Bad(const std::string& what) const { return Status::Invalid(where_ + what); }

 private:
  std::string where_;
};

std::vector<ImportedTest> Group(const std::vector<std::pair<std::string, json>>& cells) {
  std::vector<ImportedTest> out;
  std::map<std::string, size_t> index;
  for (const auto& [test, cell] : cells) {
    auto it = index.find(test);
    if (it == index.end()) {
      it = index.emplace(test, out.size()).first;
      out.push_back({test, {{"imported_cells", json::array()}}});
    }
    out[it->second].results["imported_cells"].push_back(cell);
  }
  return out;
}

}  // namespace

Result<std::vector<ImportedTest>> ParseFiguresCsv(const std::string& text,
                                                  const std::string& origin) {
  std::vector<std::pair<std::string, json>> cells;
  size_t pos = 0, line_no = 0;
  std::vector<std::string> f;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = origin + ":" + std::to_string(line_no) + ": ";
    if (line_no == 1) {
      if (line != kHeader)
        return Status::Invalid(where + "the header must be " + std::string(kHeader));
      continue;
    }
    if (line.empty()) continue;
    if (!SplitCsv(line, &f) || f.size() != 15)
      return Status::Invalid(where + "expected 15 fields, got " + std::to_string(f.size()));
    json cell;
    const std::string& test = f[0];
    if (test.empty()) return Status::Invalid(where + "test is empty");
    auto bs = ParseBytes(f[1]);
    if (!bs.ok() || bs.value() == 0)
      return Status::Invalid(where + "block_size '" + f[1] + "' is not a size");
    cell["block_bytes"] = bs.value();
    // A field's number: empty is not published (null); else of `kind`, or an error naming it.
    auto number = [&](const std::string& v, const char* name, bool required, Kind kind,
                      json* slot) -> Status {
      if (v.empty()) {
        if (required) return Status::Invalid(where + name + " is empty");
        *slot = nullptr;
        return Status::Ok();
      }
      auto d = ParseDouble(v);
      if (!d.ok() || !IsA(d.value(), kind))
        return Status::Invalid(where + name + " '" + v + "' is not " + KindName(kind));
      *slot = d.value();
      return Status::Ok();
    };
    SSDLAB_RETURN_IF_ERROR(number(f[2], "read_pct", true, Kind::kPercent, &cell["read_pct"]));
    SSDLAB_RETURN_IF_ERROR(number(f[3], "threads", false, Kind::kCount, &cell["threads"]));
    SSDLAB_RETURN_IF_ERROR(number(f[4], "qd", false, Kind::kCount, &cell["qd"]));
    SSDLAB_RETURN_IF_ERROR(number(f[5], "x", false, Kind::kNonNegative, &cell["x"]));
    bool any = false;
    for (int i = 0; i < 7; ++i) {
      json v;
      SSDLAB_RETURN_IF_ERROR(number(f[6 + i], kMetrics[i], false, Kind::kPositive, &v));
      if (!v.is_null()) {
        cell[kMetrics[i]] = v;
        any = true;
      }
    }
    if (!any) return Status::Invalid(where + "no figure given (iops, mb_s or a latency)");
    if (f[13] != "calibration" && f[13] != "predicted")
      return Status::Invalid(where + "role '" + f[13] + "' must be calibration or predicted");
    cell["role"] = f[13];
    cell["source"] = f[14];
    cell["sequential"] = test == "tp";
    cells.emplace_back(test, cell);
  }
  if (cells.empty()) return Status::Invalid(origin + ": no cells (only a header?)");
  return Group(cells);
}

namespace {

// fio's rw values, and whether each is random.
const std::map<std::string, bool>& FioRw() {
  static const std::map<std::string, bool> kRw = {
      {"read", false},    {"write", false},    {"rw", false},   {"readwrite", false},
      {"randread", true}, {"randwrite", true}, {"randrw", true}};
  return kRw;
}

// One direction of one fio job entry, from the one latency quantity it is read from: fio's
// `lat_ns` (submission to completion) when fio gives its percentiles (--lat_percentiles=1),
// else `clat_ns` (completion latency).
struct FioPart {
  double ios = 0, iops = 0, bw_bytes_s = 0, io_bytes = 0;
  bool lat = false;  // the quantity is lat_ns (else clat_ns)
  double lat_n = 0, mean_ns = 0, min_ns = 0, max_ns = 0;
  json percentiles = json::object();  // fio's {"99.000000": ns} of the quantity
  bool has_bins = false;              // --output-format=json+: the quantity's bins
  std::map<uint64_t, uint64_t> bins;  // bin value in ns -> I/Os
};

Result<FioPart> ReadPart(const FioFields& in, const json& job, const std::string& dir) {
  FioPart p;
  SSDLAB_ASSIGN_OR_RETURN(json d, in.Object(job, dir, ""));
  const std::string at = dir + ".";
  SSDLAB_ASSIGN_OR_RETURN(p.ios, in.Number(d, "total_ios", at, Kind::kNonNegative));
  SSDLAB_ASSIGN_OR_RETURN(p.iops, in.Number(d, "iops", at, Kind::kNonNegative));
  SSDLAB_ASSIGN_OR_RETURN(double kib_s, in.Number(d, "bw", at, Kind::kNonNegative));
  SSDLAB_ASSIGN_OR_RETURN(double bytes_s, in.Number(d, "bw_bytes", at, Kind::kNonNegative));
  SSDLAB_ASSIGN_OR_RETURN(p.io_bytes, in.Number(d, "io_bytes", at, Kind::kNonNegative));
  p.bw_bytes_s = d.contains("bw_bytes") ? bytes_s : kib_s * 1024;
  SSDLAB_ASSIGN_OR_RETURN(json clat, in.Object(d, "clat_ns", at));
  SSDLAB_ASSIGN_OR_RETURN(json lat, in.Object(d, "lat_ns", at));
  p.lat = lat.contains("percentile") || (!d.contains("clat_ns") && d.contains("lat_ns"));
  const json& q = p.lat ? lat : clat;
  const std::string qat = at + (p.lat ? "lat_ns." : "clat_ns.");
  SSDLAB_ASSIGN_OR_RETURN(p.mean_ns, in.Number(q, "mean", qat, Kind::kNonNegative));
  SSDLAB_ASSIGN_OR_RETURN(p.min_ns, in.Number(q, "min", qat, Kind::kNonNegative));
  SSDLAB_ASSIGN_OR_RETURN(p.max_ns, in.Number(q, "max", qat, Kind::kNonNegative));
  SSDLAB_ASSIGN_OR_RETURN(p.lat_n, in.Number(q, "N", qat, Kind::kNonNegative));
  if (!q.contains("N")) p.lat_n = p.ios;
  SSDLAB_ASSIGN_OR_RETURN(p.percentiles, in.Object(q, "percentile", qat));
  for (auto& [key, value] : p.percentiles.items()) {
    SSDLAB_RETURN_IF_ERROR(
        in.Number(p.percentiles, key, qat + "percentile.", Kind::kNonNegative).status());
    auto pct = ParseDouble(key);
    if (!pct.ok() || !IsA(pct.value(), Kind::kPercent))
      return in.Bad(qat + "percentile key '" + key + "' is not a percentage");
  }
  SSDLAB_ASSIGN_OR_RETURN(json bins, in.Object(q, "bins", qat));
  p.has_bins = q.contains("bins");
  for (auto& [key, value] : bins.items()) {
    auto ns = ParseCount(key);
    SSDLAB_ASSIGN_OR_RETURN(double n, in.Number(bins, key, qat + "bins.", Kind::kNonNegative));
    if (!ns.ok() || n != std::floor(n))
      return in.Bad(qat + "bins." + key + " is not a latency in ns with a whole count");
    p.bins[ns.value()] += static_cast<uint64_t>(n);
  }
  return p;
}

// fio's percentile `pct` of `bins` as fio computes it (stat.c calc_clat_percentiles): the first
// bin at which the running count reaches pct/100 of all.
uint64_t BinPercentile(const std::map<uint64_t, uint64_t>& bins, uint64_t n, double pct) {
  const long double want = static_cast<long double>(pct) / 100.0 * static_cast<long double>(n);
  uint64_t sum = 0, last = 0;
  for (const auto& [ns, count] : bins) {
    sum += count;
    last = ns;
    if (static_cast<long double>(sum) >= want) return ns;
  }
  return last;
}

// The figures of `parts` together (fio's group totals, or a mixed job's directions): IOPS and
// bandwidth summed, the mean weighted by each part's I/Os, the extremes the extremes, and the
// percentiles fio's own for one part, recomputed from the merged bins for several (json+),
// else not given (a note says why).
json Figures(const std::vector<const FioPart*>& parts) {
  json f = json::object();
  double iops = 0, bw = 0, ios = 0, bytes = 0, n = 0, weighted = 0, lo = 0, hi = 0;
  std::vector<const FioPart*> used;
  for (const FioPart* p : parts) {
    iops += p->iops;
    bw += p->bw_bytes_s;
    ios += p->ios;
    bytes += p->io_bytes;
    if (p->lat_n <= 0) continue;
    lo = used.empty() ? p->min_ns : std::min(lo, p->min_ns);
    hi = std::max(hi, p->max_ns);
    n += p->lat_n;
    weighted += p->mean_ns * p->lat_n;
    used.push_back(p);
  }
  f["iops"] = iops;
  f["mb_s"] = bw / 1e6;
  f["ios"] = ios;
  f["bytes"] = bytes;
  if (used.empty()) return f;
  const bool lat = used.front()->lat;
  for (const FioPart* p : used)
    if (p->lat != lat) {
      f["notes"] = json::array({"no latency: its parts give different quantities (lat, clat)"});
      return f;
    }
  f["latency"] = lat ? "lat" : "clat";
  // One part's mean as fio gives it; several weighted by their I/Os.
  f["lat_mean_us"] = (used.size() == 1 ? used.front()->mean_ns : weighted / n) / 1e3;
  f["lat_min_us"] = lo / 1e3;
  f["lat_max_us"] = hi / 1e3;
  bool bins = true;
  std::map<uint64_t, uint64_t> merged;
  for (const FioPart* p : used) {
    bins &= p->has_bins;
    for (const auto& [ns, count] : p->bins) merged[ns] += count;
  }
  json pct = json::object();
  if (bins && !merged.empty()) {
    uint64_t total = 0;
    json hist = json::array();
    for (const auto& [ns, count] : merged) {
      total += count;
      hist.push_back({ns, count});
    }
    f["histogram_ns"] = hist;
    for (auto& [key, value] : used.front()->percentiles.items())
      pct[key] = BinPercentile(merged, total, ParseDouble(key).value());
  } else if (used.size() == 1) {
    pct = used.front()->percentiles;
  } else if (!used.front()->percentiles.empty()) {
    f["notes"] = json::array(
        {"no percentiles: fio's percentiles of several jobs or directions cannot be combined "
         "without its latency bins (fio --output-format=json+)"});
  }
  if (!pct.empty()) f["lat_percentiles_ns"] = pct;
  const char* const kPct[][2] = {{"50.000000", "lat_p50_us"},
                                 {"90.000000", "lat_p90_us"},
                                 {"99.000000", "lat_p99_us"},
                                 {"99.900000", "lat_p99_9_us"},
                                 {"99.990000", "lat_p99_99_us"}};
  for (const auto& [key, metric] : kPct)
    if (pct.contains(key)) f[metric] = pct[key].get<double>() / 1e3;
  return f;
}

// A fio job's workload, from its options (the global ones under its own).
struct FioWorkload {
  json options;
  bool random = false;
  double read_pct = 100;
  uint64_t block_bytes = 0, qd = 1, numjobs = 1;
};

Result<FioWorkload> ReadWorkload(const FioFields& in, const json& job, const json& global) {
  FioWorkload w;
  SSDLAB_ASSIGN_OR_RETURN(w.options, in.Object(job, "job options", ""));
  for (auto& [k, v] : global.items())
    if (!w.options.contains(k)) w.options[k] = v;
  const json& opts = w.options;
  SSDLAB_ASSIGN_OR_RETURN(std::string rw_default, in.Option(opts, "readwrite", "read"));
  SSDLAB_ASSIGN_OR_RETURN(std::string rw, in.Option(opts, "rw", rw_default));
  if (rw.find("trim") != std::string::npos) return in.Bad("trim jobs are not imported");
  auto known = FioRw().find(rw);
  if (known == FioRw().end())
    return in.Bad("rw '" + rw +
                  "' is not one of read, write, rw, readwrite, randread, "
                  "randwrite, randrw");
  w.random = known->second;
  if (rw == "write" || rw == "randwrite") w.read_pct = 0;
  if (rw == "rw" || rw == "readwrite" || rw == "randrw") {
    // fio: rwmixread=R is rwmixwrite=100-R; either may be given.
    std::optional<double> read, write;
    for (const char* key : {"rwmixread", "rwmixwrite"}) {
      if (!opts.contains(key)) continue;
      SSDLAB_ASSIGN_OR_RETURN(std::string text, in.Option(opts, key, ""));
      auto m = ParseDouble(text);
      if (!m.ok() || !IsA(m.value(), Kind::kPercent))
        return in.Bad(std::string(key) + " '" + text + "' is not " + KindName(Kind::kPercent));
      (std::string(key) == "rwmixread" ? read : write) = m.value();
    }
    if (read && write && *read + *write != 100)
      return in.Bad(
          fmt::format("rwmixread {:g} and rwmixwrite {:g} do not add up to 100", *read, *write));
    w.read_pct = read ? *read : write ? 100 - *write : 50;
  }
  SSDLAB_ASSIGN_OR_RETURN(std::string bs_default, in.Option(opts, "blocksize", "4k"));
  SSDLAB_ASSIGN_OR_RETURN(std::string bs_text, in.Option(opts, "bs", bs_default));
  auto bs = ParseBytes(bs_text);
  if (!bs.ok() || bs.value() == 0) return in.Bad("bs '" + bs_text + "' is not a size > 0");
  w.block_bytes = bs.value();
  uint64_t* counts[2] = {&w.qd, &w.numjobs};
  const char* const kCounts[2] = {"iodepth", "numjobs"};
  for (int i = 0; i < 2; ++i) {
    SSDLAB_ASSIGN_OR_RETURN(std::string text, in.Option(opts, kCounts[i], "1"));
    auto c = ParseCount(text);
    if (!c.ok() || c.value() == 0)
      return in.Bad(std::string(kCounts[i]) + " '" + text + "' is not " + KindName(Kind::kCount));
    *counts[i] = c.value();
  }
  return w;
}

// One fio job entry of `jobs[]`, read.
struct FioEntry {
  std::string name;
  int64_t groupid = 0;
  FioWorkload w;
  FioPart read, write;
};

// The cells of one job's entries (one with group_reporting or numjobs=1; one per clone
// without): fio's group totals (scope "group"), and each entry (scope "job") when there are
// several; each as "total" and, for a mixed job, also per direction.
void AddCells(const std::vector<const FioEntry*>& es, const std::string& origin,
              std::vector<std::pair<std::string, json>>& cells) {
  const FioEntry& first = *es.front();
  const uint64_t threads = es.size() > 1 ? es.size() : first.w.numjobs;
  const std::string test = !first.w.random                   ? "tp"
                           : first.w.qd == 1 && threads == 1 ? "lat"
                                                             : "iops";
  auto cell = [&](const std::vector<const FioPart*>& parts, const std::string& dir,
                  const std::string& scope, int job, uint64_t t) {
    json c = {
        {"block_bytes", first.w.block_bytes},
        {"read_pct", first.w.read_pct},
        {"threads", t},
        {"qd", first.w.qd},
        {"x", nullptr},
        {"sequential", !first.w.random},
        {"role", "calibration"},
        {"direction", dir},
        {"scope", scope},
        {"source", origin + ": fio job " + first.name +
                       (job >= 0 ? fmt::format(" (entry {} of {})", job + 1, es.size()) : "")},
        {"fio_job", first.name},
        {"fio_groupid", first.groupid},
        {"fio_options", first.w.options},
        {"filename", first.w.options.value("filename", json(nullptr))}};
    if (job >= 0) c["fio_entry"] = job;
    c.update(Figures(parts));
    cells.emplace_back(test, c);
  };
  auto emit = [&](const std::vector<const FioEntry*>& group, const std::string& scope, int job,
                  uint64_t t) {
    std::vector<const FioPart*> all, reads, writes;
    for (const FioEntry* e : group) {
      all.insert(all.end(), {&e->read, &e->write});
      reads.push_back(&e->read);
      writes.push_back(&e->write);
    }
    cell(all, "total", scope, job, t);
    double r = 0, w = 0;
    for (const FioEntry* e : group) r += e->read.ios, w += e->write.ios;
    if (r > 0 && w > 0) {
      cell(reads, "read", scope, job, t);
      cell(writes, "write", scope, job, t);
    }
  };
  emit(es, "group", -1, threads);
  if (es.size() > 1)
    for (size_t i = 0; i < es.size(); ++i) emit({es[i]}, "job", static_cast<int>(i), 1);
}

}  // namespace

Result<std::vector<ImportedTest>> ParseFioJson(const std::string& text, const std::string& origin) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Status::Invalid(origin + ": not JSON (fio --output-format=json)");
  if (doc.contains("schema_version") && doc.contains("context") && doc.contains("results") &&
      !doc.contains("jobs"))
    return Status::Invalid(origin +
                           ": an `ssdlab run --json` document, not fio's output; store a run as "
                           "it is measured with `ssdlab run --db DB`");
  if (!doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    return Status::Invalid(origin + ": no jobs[] (not fio's JSON output?)");
  const FioFields top(origin + ": ");
  SSDLAB_ASSIGN_OR_RETURN(json global, top.Object(doc, "global options", ""));
  std::vector<FioEntry> entries;
  const json& jobs = doc["jobs"];
  for (size_t i = 0; i < jobs.size(); ++i) {
    const json& job = jobs[i];
    const std::string at = "jobs[" + std::to_string(i) + "]";
    if (!job.is_object()) return top.Bad(at + " is not an object (" + Quoted(job) + ")");
    FioEntry e;
    e.name = at;
    if (job.contains("jobname")) {
      if (!job["jobname"].is_string())
        return top.Bad(at + ".jobname is not a string (" + Quoted(job["jobname"]) + ")");
      e.name = job["jobname"].get<std::string>();
    }
    const FioFields in(origin + ": job " + e.name + ": ");
    SSDLAB_ASSIGN_OR_RETURN(double gid, in.Number(job, "groupid", "", Kind::kNonNegative));
    e.groupid = static_cast<int64_t>(gid);
    SSDLAB_ASSIGN_OR_RETURN(e.w, ReadWorkload(in, job, global));
    SSDLAB_ASSIGN_OR_RETURN(e.read, ReadPart(in, job, "read"));
    SSDLAB_ASSIGN_OR_RETURN(e.write, ReadPart(in, job, "write"));
    if (e.read.iops + e.write.iops <= 0) return in.Bad("no I/Os (iops 0)");
    entries.push_back(std::move(e));
  }
  // The clones of one job (numjobs without group_reporting): its entries of one group, name and
  // options, in the order fio wrote them.
  std::vector<std::vector<const FioEntry*>> groups;
  for (const FioEntry& e : entries) {
    auto same = [&](const std::vector<const FioEntry*>& g) {
      return g.front()->groupid == e.groupid && g.front()->name == e.name &&
             g.front()->w.options == e.w.options;
    };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) {
      groups.push_back({&e});
    } else {
      it->push_back(&e);
    }
  }
  std::vector<std::pair<std::string, json>> cells;
  for (const auto& g : groups) AddCells(g, origin, cells);
  return Group(cells);
}

Result<json> FioProvenance(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Status::Invalid("not JSON");
  json p = json::object();
  for (const auto& [from, to] : {std::pair<const char*, const char*>{"fio version", "version"},
                                 {"time", "time"},
                                 {"timestamp", "timestamp"},
                                 {"timestamp_ms", "timestamp_ms"},
                                 {"global options", "global_options"}})
    if (doc.contains(from)) p[to] = doc[from];
  return p;
}

}  // namespace ssdlab::twin
