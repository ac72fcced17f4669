#include "twin/import.h"

#include <cmath>
#include <map>

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

// One fio job as a cell: its test name and the cell, or an error naming the field.
Result<std::pair<std::string, json>> FioCell(const json& job, const json& global,
                                             const std::string& name, const std::string& origin) {
  const FioFields in(origin + ": job " + name + ": ");
  SSDLAB_ASSIGN_OR_RETURN(json opts, in.Object(job, "job options", ""));
  for (auto& [k, v] : global.items())
    if (!opts.contains(k)) opts[k] = v;
  SSDLAB_ASSIGN_OR_RETURN(std::string rw_default, in.Option(opts, "readwrite", "read"));
  SSDLAB_ASSIGN_OR_RETURN(std::string rw, in.Option(opts, "rw", rw_default));
  if (rw.find("trim") != std::string::npos) return in.Bad("trim jobs are not imported");
  auto known = FioRw().find(rw);
  if (known == FioRw().end())
    return in.Bad("rw '" + rw +
                  "' is not one of read, write, rw, readwrite, randread, "
                  "randwrite, randrw");
  const bool random = known->second;
  double read_pct = 100;
  if (rw == "write" || rw == "randwrite") read_pct = 0;
  if (rw == "rw" || rw == "readwrite" || rw == "randrw") {
    SSDLAB_ASSIGN_OR_RETURN(std::string mix, in.Option(opts, "rwmixread", "50"));
    auto m = ParseDouble(mix);
    if (!m.ok() || !IsA(m.value(), Kind::kPercent))
      return in.Bad("rwmixread '" + mix + "' is not " + KindName(Kind::kPercent));
    read_pct = m.value();
  }
  SSDLAB_ASSIGN_OR_RETURN(std::string bs_default, in.Option(opts, "blocksize", "4k"));
  SSDLAB_ASSIGN_OR_RETURN(std::string bs_text, in.Option(opts, "bs", bs_default));
  auto bs = ParseBytes(bs_text);
  if (!bs.ok() || bs.value() == 0) return in.Bad("bs '" + bs_text + "' is not a size > 0");
  uint64_t counts[2] = {1, 1};
  const char* const kCounts[2] = {"iodepth", "numjobs"};
  for (int i = 0; i < 2; ++i) {
    SSDLAB_ASSIGN_OR_RETURN(std::string text, in.Option(opts, kCounts[i], "1"));
    auto c = ParseCount(text);
    if (!c.ok() || c.value() == 0)
      return in.Bad(std::string(kCounts[i]) + " '" + text + "' is not " + KindName(Kind::kCount));
    counts[i] = c.value();
  }
  const uint64_t qd = counts[0], jobs = counts[1];
  json cell = {{"block_bytes", bs.value()},
               {"read_pct", read_pct},
               {"threads", jobs},
               {"qd", qd},
               {"x", nullptr},
               {"sequential", !random},
               {"role", "calibration"},
               {"source", origin + ": fio job " + name}};
  double iops = 0, bw = 0, lat_sum = 0, ios = 0;
  json pct;
  for (const std::string dir : {"read", "write"}) {
    SSDLAB_ASSIGN_OR_RETURN(json d, in.Object(job, dir, ""));
    const std::string at = dir + ".";
    SSDLAB_ASSIGN_OR_RETURN(double n, in.Number(d, "total_ios", at, Kind::kNonNegative));
    SSDLAB_ASSIGN_OR_RETURN(double dir_iops, in.Number(d, "iops", at, Kind::kNonNegative));
    SSDLAB_ASSIGN_OR_RETURN(double kib_s, in.Number(d, "bw", at, Kind::kNonNegative));
    SSDLAB_ASSIGN_OR_RETURN(double bytes_s, in.Number(d, "bw_bytes", at, Kind::kNonNegative));
    iops += dir_iops;
    bw += d.contains("bw_bytes") ? bytes_s : kib_s * 1024;
    SSDLAB_ASSIGN_OR_RETURN(json clat, in.Object(d, "clat_ns", at));
    SSDLAB_ASSIGN_OR_RETURN(json total, in.Object(d, "lat_ns", at));
    const bool has_total = d.contains("lat_ns");
    SSDLAB_ASSIGN_OR_RETURN(
        double mean, in.Number(has_total ? total : clat, "mean",
                               at + (has_total ? "lat_ns." : "clat_ns."), Kind::kNonNegative));
    lat_sum += mean * n;
    ios += n;
    SSDLAB_ASSIGN_OR_RETURN(json p, in.Object(clat, "percentile", at + "clat_ns."));
    for (auto& [key, value] : p.items())
      SSDLAB_RETURN_IF_ERROR(
          in.Number(p, key, at + "clat_ns.percentile.", Kind::kNonNegative).status());
    if (n > 0 && !p.empty() && pct.is_null()) pct = p;
  }
  if (iops <= 0) return in.Bad("no I/Os (iops 0)");
  cell["iops"] = iops;
  cell["mb_s"] = bw / 1e6;
  if (ios > 0) cell["lat_mean_us"] = lat_sum / ios / 1e3;
  if (pct.is_object() && read_pct > 0 && read_pct < 100) pct = nullptr;  // one direction only
  if (pct.is_object()) {
    const char* const kPct[][2] = {
        {"99.000000", "lat_p99_us"}, {"99.900000", "lat_p99_9_us"}, {"99.990000", "lat_p99_99_us"}};
    for (const auto& [key, metric] : kPct) {
      if (pct.contains(key)) cell[metric] = pct[key].get<double>() / 1e3;  // checked above
    }
  }
  const std::string test = !random ? "tp" : qd == 1 && jobs == 1 ? "lat" : "iops";
  return std::make_pair(test, cell);
}

}  // namespace

Result<std::vector<ImportedTest>> ParseFioJson(const std::string& text, const std::string& origin) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Status::Invalid(origin + ": not JSON (fio --output-format=json)");
  if (!doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    return Status::Invalid(origin + ": no jobs[] (not fio's JSON output?)");
  const FioFields top(origin + ": ");
  SSDLAB_ASSIGN_OR_RETURN(json global, top.Object(doc, "global options", ""));
  std::vector<std::pair<std::string, json>> cells;
  const json& jobs = doc["jobs"];
  for (size_t i = 0; i < jobs.size(); ++i) {
    const json& job = jobs[i];
    const std::string at = "jobs[" + std::to_string(i) + "]";
    if (!job.is_object()) return top.Bad(at + " is not an object (" + Quoted(job) + ")");
    std::string name = at;
    if (job.contains("jobname")) {
      if (!job["jobname"].is_string())
        return top.Bad(at + ".jobname is not a string (" + Quoted(job["jobname"]) + ")");
      name = job["jobname"].get<std::string>();
    }
    SSDLAB_ASSIGN_OR_RETURN(auto cell, FioCell(job, global, name, origin));
    cells.push_back(std::move(cell));
  }
  return Group(cells);
}

}  // namespace ssdlab::twin
