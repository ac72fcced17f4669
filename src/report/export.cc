// CSV export of one run: flat tables for spreadsheets and scripts.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "base/output_file.h"
#include "report/model_internal.h"

namespace ssdlab {
namespace report {
namespace {

using ojson = nlohmann::ordered_json;

std::string CsvField(const ojson& v) {
  std::string s;
  if (v.is_null()) return "";
  if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_number_float()) {
    s = fmt::format("{}", v.get<double>());
  } else {
    s = v.dump();
  }
  if (s.find_first_of(",\"\n") != std::string::npos) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  return s;
}

// Rows as flat objects; columns are the union of keys in first-seen order.
class CsvTable {
 public:
  void Add(const ojson& row) {
    for (auto& [k, v] : row.items()) {
      if (!seen_.count(k)) {
        seen_.insert(k);
        cols_.push_back(k);
      }
    }
    rows_.push_back(row);
  }
  bool empty() const { return rows_.empty(); }
  std::string Text() const {
    std::string out;
    for (size_t i = 0; i < cols_.size(); ++i) out += (i ? "," : "") + CsvField(cols_[i]);
    out += "\n";
    for (const ojson& r : rows_) {
      for (size_t i = 0; i < cols_.size(); ++i)
        out += (i ? "," : "") + CsvField(r.contains(cols_[i]) ? r[cols_[i]] : ojson());
      out += "\n";
    }
    return out;
  }

 private:
  std::vector<std::string> cols_;
  std::set<std::string> seen_;
  std::vector<ojson> rows_;
};

// Flattens PhaseMetrics ({total, read, write: {ios, iops, bw_bytes_per_s, lat_ns{...}}, sim})
// into `row` with prefixes "total_", "read_", "write_", "sim_".
void Flatten(const json& m, ojson& row) {
  for (const char* dir : {"total", "read", "write"}) {
    const json& d = Get(m, dir);
    if (!d.is_object()) continue;
    for (const char* k : {"ios", "iops", "bw_bytes_per_s"}) {
      if (d.contains(k)) row[std::string(dir) + "_" + k] = d[k];
    }
    for (auto& [k, v] : Get(d, "lat_ns").items()) row[std::string(dir) + "_lat_" + k + "_ns"] = v;
  }
  for (auto& [k, v] : Get(m, "sim").items()) row["sim_" + k] = v;
}

void CellRows(CsvTable& t, const json& cells, ojson base) {
  for (const json& c : cells) {
    ojson row = base;
    row["cell"] = Str(c, "cell");
    double rp;
    uint64_t bs;
    if (ParseCellName(Str(c, "cell"), &rp, &bs)) {
      row["read_pct"] = rp;
      row["block_bytes"] = bs;
    }
    row["workload"] = Str(Get(c, "workload"), "description");
    Flatten(c, row);
    t.Add(row);
  }
}

void CurveRows(CsvTable& t, const json& curves, ojson base) {
  for (const json& c : curves) {
    for (const json& p : Get(c, "points")) {
      ojson row = base;
      row["curve"] = Str(c, "curve");
      row["read_pct"] = Get(c, "read_pct");
      row["block_bytes"] = Get(c, "block_bytes");
      row["threads"] = Get(p, "threads");
      row["qd"] = Get(p, "qd");
      Flatten(p, row);
      t.Add(row);
    }
  }
}

}  // namespace
}  // namespace report

Result<std::vector<std::string>> ExportRunCsv(const nlohmann::json& doc, const std::string& dir) {
  using namespace report;
  namespace fs = std::filesystem;
  fs::path d(dir);
  fs::path parent = d.parent_path();
  if (!parent.empty() && !fs::is_directory(parent))
    return Status::Invalid("--csv " + dir + ": directory " + parent.string() + " does not exist");
  std::error_code ec;
  if (!fs::is_directory(d)) {
    fs::create_directory(d, ec);
    if (ec)
      return Status::Invalid("--csv " + dir + ": cannot create the directory: " + ec.message());
  }
  std::map<std::string, CsvTable> files;
  for (const json& t : Get(doc, "tests")) {
    std::string name = Str(t, "name");
    const json& ss = Get(t, "steady_state");
    ojson srow = {{"test", name}, {"status", Str(t, "status")}};
    for (const char* k :
         {"reached", "rounds_run", "window", "window_first_round", "mean", "range_pct",
          "slope_excursion_pct", "band_excursion_pct", "slope", "intercept"}) {
      srow[k] = Get(ss, k);
    }
    files["summary"].Add(srow);
    for (const json& rd : Get(t, "rounds")) {
      for (auto& [k, v] : Get(rd, "tracking").items()) {
        if (!v.is_number()) continue;
        ojson row = {{"test", name},
                     {"round", Get(rd, "round")},
                     {"op_pct", Get(rd, "op_pct")},
                     {"variable", k},
                     {"value", v}};
        files["rounds"].Add(row);
      }
    }
    const json& res = Get(t, "results");
    if (IsProfileTest(t)) {
      // Every summary figure of a profile at each fill level (null: the target as found).
      for (const json& l : Get(res, "levels")) {
        for (const json& m : Get(l, "summary")) {
          files["profile_summary"].Add({{"test", name},
                                        {"kind", Str(res, "kind")},
                                        {"fill_pct", Get(l, "fill_pct")},
                                        {"metric", Get(m, "metric")},
                                        {"value", Get(m, "value")}});
        }
      }
      continue;
    }
    if (name == "iops" || name == "lat" || name == "dirth" || name == "ecw")
      CellRows(files[name], Get(res, "cells"), ojson::object());
    if (name == "tp") {
      for (const json& b : Get(res, "by_block"))
        CellRows(files[name], Get(b, "cells"), ojson::object());
    }
    if (name == "lvi") CurveRows(files[name], Get(res, "curves"), ojson::object());
    if (name == "op") {
      for (const json& p : Get(res, "op_points"))
        CurveRows(files[name], Get(p, "curves"),
                  {{"op_pct", Get(p, "op_pct")}, {"range_bytes", Get(p, "range_bytes")}});
    }
    if (name == "wsat") {
      for (const json& p : Get(res, "per_round")) {
        ojson row = {{"round", Get(p, "round")},
                     {"time_s", Get(p, "time_s")},
                     {"written_bytes", Get(p, "written_bytes")},
                     {"written_capacities", Get(p, "written_capacities")}};
        Flatten(p, row);
        files[name].Add(row);
      }
    }
    if (name == "hir") {
      for (const json& w : Get(res, "wait_states")) {
        for (const json& c : Get(w, "cycles")) {
          files[name].Add({{"wait_ns", Get(w, "wait_ns")},
                           {"cycle", Get(c, "cycle")},
                           {"iops", Get(c, "iops")},
                           {"mean_ns", Get(c, "mean_ns")},
                           {"max_ns", Get(c, "max_ns")}});
        }
      }
    }
    if (name == "xsr") {
      for (const json& s : Get(res, "segments")) {
        for (const json& p : Get(s, "series_bw")) {
          if (p.is_array() && p.size() >= 2)
            files[name].Add({{"segment", Str(s, "name")}, {"t_s", p[0]}, {"bw_bytes_per_s", p[1]}});
        }
      }
    }
    if (name == "dirth" || name == "ecw") {
      for (const json& s : Get(res, "selected")) {
        for (const json& b : Get(s, "histogram")) {
          if (b.is_array() && b.size() >= 2)
            files[name + "_histograms"].Add(
                {{"point", Str(s, "point")}, {"lower_ns", b[0]}, {"count", b[1]}});
        }
      }
    }
  }
  std::vector<std::string> written;
  for (auto& [name, table] : files) {
    if (table.empty()) continue;
    fs::path p = d / (name + ".csv");
    if (Status st = WriteOutputFile("--csv", p.string(), table.Text()); !st.ok()) return st;
    written.push_back(p.string());
  }
  return written;
}

}  // namespace ssdlab
