#include "twin/import.h"

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
    auto number = [&](const std::string& v, const char* name, bool required, json* slot) -> Status {
      if (v.empty()) {
        if (required) return Status::Invalid(where + name + " is empty");
        *slot = nullptr;
        return Status::Ok();
      }
      auto d = ParseDouble(v);
      if (!d.ok() || d.value() < 0)
        return Status::Invalid(where + name + " '" + v + "' is not a number >= 0");
      *slot = d.value();
      return Status::Ok();
    };
    SSDLAB_RETURN_IF_ERROR(number(f[2], "read_pct", true, &cell["read_pct"]));
    if (cell["read_pct"].get<double>() > 100)
      return Status::Invalid(where + "read_pct '" + f[2] + "' is above 100");
    SSDLAB_RETURN_IF_ERROR(number(f[3], "threads", false, &cell["threads"]));
    SSDLAB_RETURN_IF_ERROR(number(f[4], "qd", false, &cell["qd"]));
    SSDLAB_RETURN_IF_ERROR(number(f[5], "x", false, &cell["x"]));
    bool any = false;
    for (int i = 0; i < 7; ++i) {
      json v;
      SSDLAB_RETURN_IF_ERROR(number(f[6 + i], kMetrics[i], false, &v));
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

Result<std::vector<ImportedTest>> ParseFioJson(const std::string& text, const std::string& origin) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Status::Invalid(origin + ": not JSON (fio --output-format=json)");
  if (!doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    return Status::Invalid(origin + ": no jobs[] (not fio's JSON output?)");
  const json global = doc.value("global options", json::object());
  std::vector<std::pair<std::string, json>> cells;
  for (const json& job : doc["jobs"]) {
    const std::string name = job.value("jobname", "?");
    const std::string where = origin + ": job " + name + ": ";
    json opts = global;
    const json job_opts = job.value("job options", json::object());
    for (auto& [k, v] : job_opts.items()) opts[k] = v;
    auto opt = [&](const char* k, const std::string& dflt) {
      return opts.contains(k) && opts[k].is_string() ? opts[k].get<std::string>() : dflt;
    };
    const std::string rw = opt("rw", opt("readwrite", "read"));
    const bool random = rw.rfind("rand", 0) == 0;
    double read_pct = 100;
    if (rw == "write" || rw == "randwrite") read_pct = 0;
    if (rw == "rw" || rw == "readwrite" || rw == "randrw") {
      auto m = ParseDouble(opt("rwmixread", "50"));
      if (!m.ok()) return Status::Invalid(where + "rwmixread is not a number");
      read_pct = m.value();
    }
    if (rw.find("trim") != std::string::npos)
      return Status::Invalid(where + "trim jobs are not imported");
    auto bs = ParseBytes(opt("bs", opt("blocksize", "4k")));
    if (!bs.ok()) return Status::Invalid(where + "bs is not a size");
    auto qd = ParseCount(opt("iodepth", "1"));
    auto jobs = ParseCount(opt("numjobs", "1"));
    if (!qd.ok() || !jobs.ok()) return Status::Invalid(where + "iodepth or numjobs malformed");
    json cell = {{"block_bytes", bs.value()},
                 {"read_pct", read_pct},
                 {"threads", jobs.value()},
                 {"qd", qd.value()},
                 {"x", nullptr},
                 {"sequential", !random},
                 {"role", "calibration"},
                 {"source", origin + ": fio job " + name}};
    double iops = 0, bw = 0, lat_sum = 0, ios = 0;
    json pct;
    for (const char* dir : {"read", "write"}) {
      const json& d = job.value(dir, json::object());
      const double n = d.value("total_ios", 0.0);
      iops += d.value("iops", 0.0);
      bw += d.value("bw_bytes", d.value("bw", 0.0) * 1024);
      const json& lat = d.value("clat_ns", json::object());
      lat_sum += d.value("lat_ns", lat).value("mean", 0.0) * n;
      ios += n;
      if (n > 0 && lat.contains("percentile") && pct.is_null()) pct = lat["percentile"];
    }
    if (iops <= 0) return Status::Invalid(where + "no I/Os (iops 0)");
    cell["iops"] = iops;
    cell["mb_s"] = bw / 1e6;
    if (ios > 0) cell["lat_mean_us"] = lat_sum / ios / 1e3;
    if (pct.is_object() && read_pct > 0 && read_pct < 100) pct = nullptr;  // one direction only
    if (pct.is_object()) {
      if (pct.contains("99.000000")) cell["lat_p99_us"] = pct["99.000000"].get<double>() / 1e3;
      if (pct.contains("99.900000")) cell["lat_p99_9_us"] = pct["99.900000"].get<double>() / 1e3;
      if (pct.contains("99.990000")) cell["lat_p99_99_us"] = pct["99.990000"].get<double>() / 1e3;
    }
    const std::string test = !random ? "tp" : qd.value() == 1 && jobs.value() == 1 ? "lat" : "iops";
    cells.emplace_back(test, cell);
  }
  return Group(cells);
}

}  // namespace ssdlab::twin
