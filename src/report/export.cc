// CSV export of one run: flat tables for spreadsheets and scripts.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "base/output_file.h"
#include "report/model_internal.h"
#include "results/hir.h"
#include "results/lvi.h"
#include "results/matrix.h"
#include "results/op.h"
#include "results/phase_metrics.h"
#include "results/profile.h"
#include "results/pts_tests.h"
#include "results/sweep.h"
#include "results/tp.h"
#include "results/wsat.h"
#include "results/xsr.h"

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

// Flattens a phase's figures into `row` with prefixes "total_", "read_", "write_" (latency keys
// in the stored order: max, mean, min, then the percentiles) and "sim_".
void Flatten(const results::PhaseMetrics& m, ojson& row) {
  const std::pair<const char*, const results::DirectionMetrics*> dirs[] = {
      {"total", &m.total}, {"read", &m.read}, {"write", &m.write}};
  for (const auto& [dir, dp] : dirs) {
    const results::DirectionMetrics& d = *dp;
    const std::string p = dir;
    row[p + "_ios"] = d.ios;
    row[p + "_iops"] = d.iops;
    row[p + "_bw_bytes_per_s"] = d.bw_bytes_per_s;
    row[p + "_lat_max_ns"] = d.lat_ns.max;
    row[p + "_lat_mean_ns"] = d.lat_ns.mean;
    row[p + "_lat_min_ns"] = d.lat_ns.min;
    for (const auto& [k, v] : d.lat_ns.percentiles) row[p + "_lat_" + k + "_ns"] = v;
  }
  for (const auto& [k, v] : m.counters) row[m.counters_name + "_" + k] = v;
}

void CellRows(CsvTable& t, const std::vector<results::CellResult>& cells) {
  for (const results::CellResult& c : cells) {
    ojson row;
    row["cell"] = c.cell;
    double rp;
    uint64_t bs;
    if (ParseCellName(c.cell, &rp, &bs)) {
      row["read_pct"] = rp;
      row["block_bytes"] = bs;
    }
    row["workload"] = c.workload.description;
    Flatten(c.metrics, row);
    t.Add(row);
  }
}

void CurveRows(CsvTable& t, const std::vector<results::Curve>& curves, const ojson& base) {
  for (const results::Curve& c : curves) {
    for (const results::CurvePoint& p : c.points) {
      ojson row = base;
      row["curve"] = c.curve;
      row["read_pct"] = c.read_pct;
      row["block_bytes"] = c.block_bytes;
      row["threads"] = p.threads;
      row["qd"] = p.qd;
      Flatten(p.metrics, row);
      t.Add(row);
    }
  }
}

// The rows of PTS test `name` (results `res`, as stored) in `files`; a damaged document is
// Invalid naming the test and the key.
Status TestRows(const std::string& name, const json& res, std::map<std::string, CsvTable>& files) {
  const std::string where = name + ".results";
  CsvTable& t = files[name];
  if (name == "iops" || name == "lat") {
    SSDLAB_ASSIGN_OR_RETURN(auto m, results::MatrixResultsFromJson(res, where));
    CellRows(t, m.cells);
  } else if (name == "dirth" || name == "ecw") {
    SSDLAB_ASSIGN_OR_RETURN(auto s, results::SweepResultsFromJson(res, where));
    CellRows(t, s.cells);
    for (const results::SweepPoint& p : s.selected) {
      for (const auto& [low, count] : p.histogram)
        files[name + "_histograms"].Add({{"point", p.point}, {"lower_ns", low}, {"count", count}});
    }
  } else if (name == "tp") {
    SSDLAB_ASSIGN_OR_RETURN(auto tp, results::TpResultsFromJson(res, where));
    for (const results::TpBlock& b : tp.by_block) CellRows(t, b.cells);
  } else if (name == "lvi") {
    SSDLAB_ASSIGN_OR_RETURN(auto l, results::LviResultsFromJson(res, where));
    CurveRows(t, l.curves, ojson::object());
  } else if (name == "op") {
    SSDLAB_ASSIGN_OR_RETURN(auto o, results::OpResultsFromJson(res, where));
    for (const results::OpPoint& p : o.op_points)
      CurveRows(t, p.curves, {{"op_pct", p.op_pct}, {"range_bytes", p.range_bytes}});
  } else if (name == "wsat") {
    SSDLAB_ASSIGN_OR_RETURN(auto w, results::WsatResultsFromJson(res, where));
    for (const results::WsatRound& p : w.per_round) {
      ojson row = {{"round", p.round},
                   {"time_s", p.time_s},
                   {"written_bytes", p.written_bytes},
                   {"written_capacities", p.written_capacities}};
      Flatten(p.metrics, row);
      t.Add(row);
    }
  } else if (name == "hir") {
    SSDLAB_ASSIGN_OR_RETURN(auto h, results::HirResultsFromJson(res, where));
    for (const results::HirWaitState& w : h.wait_states) {
      for (const results::HirCycle& c : w.cycles) {
        t.Add({{"wait_ns", w.wait_ns},
               {"cycle", c.cycle},
               {"iops", c.iops},
               {"mean_ns", c.mean_ns},
               {"max_ns", c.max_ns}});
      }
    }
  } else if (name == "run" || name == "replay") {
    // One phase (`run --db`, `replay --db`): its figures beside its workload. A replay stored
    // before its results held the phase has no "results" and no row.
    if (!Get(res, "results").is_object()) return Status::Ok();
    json figures = res["results"];
    if (Get(res, "measured_ns").is_number()) figures["measured_ns"] = res["measured_ns"];
    SSDLAB_ASSIGN_OR_RETURN(auto m, results::PhaseMetricsFromJson(figures, where));
    ojson row = {{"test", name}, {"workload", Str(Get(res, "workload"), "description")}};
    row["measured_ns"] = m.measured_ns;
    row["interrupted"] = Get(res, "interrupted");
    Flatten(m, row);
    files["run"].Add(row);
  } else if (name == "xsr") {
    SSDLAB_ASSIGN_OR_RETURN(auto x, results::XsrResultsFromJson(res, where));
    for (const results::XsrSegment& s : x.segments) {
      for (const auto& [ts, bw] : s.series_bw)
        t.Add({{"segment", s.name}, {"t_s", ts}, {"bw_bytes_per_s", bw}});
    }
  }
  return Status::Ok();
}

}  // namespace
}  // namespace report

namespace {

// Every table ExportRunCsv writes: the shared ones, one per test of the catalogue
// (results/pts_tests.h), and the sweeps' histograms TestRows adds.
const std::vector<std::string>& CsvTableNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"summary", "rounds", "profile_summary", "run"};
    for (const std::string& t : results::PtsTestNames()) out.push_back(t);
    for (const char* t : {"dirth_histograms", "ecw_histograms"}) out.push_back(t);
    return out;
  }();
  return names;
}

}  // namespace

std::vector<std::string> ExportCsvPaths(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& name : CsvTableNames())
    out.push_back((std::filesystem::path(dir) / (name + ".csv")).string());
  return out;
}

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
      SSDLAB_ASSIGN_OR_RETURN(auto p, results::ProfileResultsFromJson(res, name + ".results"));
      for (const results::ProfileLevel& l : p.levels) {
        for (const results::SummaryFigure& m : l.summary) {
          files["profile_summary"].Add({{"test", name},
                                        {"kind", p.kind},
                                        {"fill_pct", l.fill_pct ? ojson(*l.fill_pct) : ojson()},
                                        {"metric", m.metric},
                                        {"value", m.value}});
        }
      }
      continue;
    }
    SSDLAB_RETURN_IF_ERROR(TestRows(name, res, files));
  }
  std::vector<std::string> written;
  for (auto& [name, table] : files) {
    if (table.empty()) continue;
    const std::vector<std::string>& known = CsvTableNames();
    if (std::find(known.begin(), known.end(), name) == known.end())
      return Status::Error(Code::kInternal, "export: table " + name +
                                                " is not in the list of "
                                                "CSV files checked before writing");
    fs::path p = d / (name + ".csv");
    if (Status st = WriteOutputFile("--csv", p.string(), table.Text()); !st.ok()) return st;
    written.push_back(p.string());
  }
  return written;
}

}  // namespace ssdlab
