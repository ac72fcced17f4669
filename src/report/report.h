// The review report: one self-contained HTML file with SNIA-style pages, Vega-Lite charts
// (the charting library is embedded in the binary; nothing is fetched at view time), tables
// like the reviews' (IOPS by block size x mix, latency percentiles, throughput), several runs
// side by side, and the vendor's claims beside the measured figures. Runs of `ssdlab profile`
// get one section per profile (CrystalDiskMark-, ATTO-, AS SSD-style tables and charts,
// surface, fileio, vdbench-style curves, fill levels, OP advisor), beside PTS runs or alone.
// Also CSV and JSON exports of one run.
//
// Data flow: Store::RunJson (one document per run) -> ReportModel (sections of tables
// and Vega-Lite specs with inline data; deterministic, golden-tested) -> HTML.
//
// Thread-compatible; no globals besides the embedded, immutable JavaScript.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab {

// One run as the report sees it: its run document (Store::RunJson) and the name shown in legends.
struct ReportRun {
  std::string label;   // e.g. "DC400 1600 GB" or "tiny (demo)"; unique within a report
  nlohmann::json doc;  // the run document
};

// Reads one run's document by name (Store::RunJson in the CLI, fixtures in tests).
using RunLoader = std::function<Result<nlohmann::json>(const std::string& run_name)>;

// Loads the named runs (in order) and gives each a legend label: the drive's model when the
// models differ, else "model (run)". Fails with the loader's error (NotFound names the run).
Result<std::vector<ReportRun>> LoadReportRuns(const RunLoader& load,
                                              const std::vector<std::string>& names);

// ---- Vendor claims (spec-sheet check) ----

// One claimed figure, normalised to the unit in `unit`.
struct Claim {
  std::string key;   // "seq_read", "rnd4k_write", "qos_read_p99_9", ...
  double value = 0;  // in `unit`
  std::string unit;  // "MB/s", "IOPS", "us", "bytes", "DWPD", "TB", "years", "W", "hours"
  std::string text;  // as written in the file, e.g. "555 MB/s"
  int line = 0;
};

struct Claims {
  std::string file;
  // [drive] facts as written: vendor, model, part_number, interface, form_factor, source,
  // notes, capacity (also parsed into capacity_bytes).
  std::map<std::string, std::string> drive;
  uint64_t capacity_bytes = 0;  // 0: not claimed
  std::vector<Claim> claims;    // in file order
};

// Parses a claims file (TOML subset, see specs/README.md): tables [drive] and [claims];
// values with units ("555 MB/s", "78000 IOPS", "78k IOPS", "400 us", "1.6TB", "5 years").
// Rejects unknown tables, keys and units, naming the key and its line.
Result<Claims> ParseClaims(const std::string& text, const std::string& file_name);
Result<Claims> LoadClaimsFile(const std::string& path);

// ---- The report ----

// ---- The digital twin (ssdlab report --twin) ----

// One figure of the run (twin/figures.h): measured, and simulated on the twin.
struct TwinFigure {
  std::string test;    // "iops", "tp", "lat", "lvi", "wsat", "hir"
  std::string name;    // e.g. "lat rnd rw=0/100 bs=4 KiB T1 Q1 lat_p99_us" (unique in the run)
  std::string metric;  // "iops", "mb_s", "lat_mean_us", ...
  double x = 0;        // wsat: capacities written; hir: wait in s; else 0
  double measured = 0, simulated = 0;  // simulated 0: the twin has no such figure
};

// A GC victim policy at the twin's numbers as `sim fit` judged it (the twin file's
// [fit].victim_policies): its training objective by the run's tests re-run with it, and the
// held-out figures' median relative error per test ("all" too).
struct TwinPolicy {
  std::string gc;
  double objective = 0;
  std::vector<std::pair<std::string, double>> held_out_errors;
};

// What the CLI computed on the twin (usecase/twin_runs.h): the figures side by side and the runs of
// the what-if questions, each a run document with its role: "op" (the OP advisor profile),
// "wsat" (WSAT to 4 capacities), "single", "raid10", "raid5" (IOPS and TP of one twin and of
// arrays of four). Sections: "Measured vs twin" and "What if (on the twin)".
struct TwinReport {
  std::string target;  // the twin as given
  std::string method;  // how the simulated figures were made, one sentence (shown)
  std::vector<TwinFigure> figures;
  std::vector<TwinPolicy> policies;                        // the twin's first; empty: none recorded
  std::vector<std::pair<std::string, ReportRun>> what_if;  // role, run
};

struct ReportOptions {
  std::string title;  // default: "SSD test report: <labels>"
  std::optional<Claims> claims;
  std::string generated_at;  // shown in the header; empty = not shown (golden tests)
  std::string tool_version;  // e.g. "ssdlab 0.1.0 (abc123)"
  std::optional<TwinReport> twin;
  // Throughput of the TP and XSR sections in MiB/s rather than MB/s (`report --units binary`);
  // claims stay in the datasheet's units.
  bool binary_units = false;
};

// The report as data: {"title", "subtitle", "runs": [...], "sections": [{"id", "title",
// "intro", "blocks": [...]}]}. A block is {"kind": "table", "id", "caption", "columns",
// "rows", "notes"}, {"kind": "chart", "id", "caption", "spec": Vega-Lite}, {"kind": "text",
// "text"} or {"kind": "row", "blocks": [...]} (side by side). Deterministic: same runs and
// options, same bytes.
nlohmann::json BuildReportModel(const std::vector<ReportRun>& runs, const ReportOptions& options);

// The self-contained HTML page of a model, with vega, vega-lite and vega-embed inline.
std::string RenderReportHtml(const nlohmann::json& model);

// Versions of the embedded charting libraries, e.g. {"vega": "6.4.0", ...}.
nlohmann::json EmbeddedLibraryVersions();

// ---- Time-scaled runs (the report, and the terminal summaries of `profile`) ----

namespace report {

// The full drive a run stands for. A simulated drive at 1/N of its blocks with every duration
// of the test divided by N (`--time-scale N`, stored as the run's options' time_scale, PTS and
// profile runs alike) runs the full drive's test in virtual time: its capacity, data written,
// positions and durations are N times the simulated ones, its rates and latencies are the full
// drive's. The report gives the full drive's figures through this type and nowhere multiplies
// by the scale itself. scale 1: the figures as measured.
struct FullDrive {
  uint32_t scale = 1;
  // The full drive's capacity over the simulated one (the simulator's identity gives both: its
  // details' capacity and sim_user_bytes; a scaled drive rounds to whole blocks, so this is
  // near, not at, the scale); the scale when either is missing.
  double capacity_ratio = 1;
  bool Scaled() const { return scale > 1; }
  // Data written, positions and capacities: the full drive's share of the same fraction.
  double Bytes(double simulated_bytes) const { return simulated_bytes * capacity_ratio; }
  double Seconds(double simulated_s) const { return simulated_s * scale; }
  // "60 s (1.88 s simulated)"; FmtDurationNs(simulated_ns) when not scaled.
  std::string Duration(double simulated_ns) const;
  // "1,600,321,314,816 bytes (1600.3 GB, 1490.4 GiB; simulated: 50,008,985,600 bytes)".
  std::string Capacity(uint64_t simulated_bytes) const;
  // "simulated at 1/32 of its blocks, every duration divided by 32: the full drive's test in
  // virtual time"; "" when not scaled.
  std::string Sentence() const;
};
// The full drive a run document (Store::RunJson, or a command's --json document) stands for:
// its stored options' time_scale (1 when absent or not a number >= 1) and its target's
// capacities.
FullDrive FullDriveOfRun(const nlohmann::json& run_doc);

}  // namespace report

// ---- Headline figures (the comparison section and `ssdlab show`) ----

// One headline figure of a PTS test: a tracked variable's mean over the steady-state window its
// verdict judged, in the report's unit, with the window's lowest and highest round and its data
// excursion (highest minus lowest round as a percent of the mean).
struct HeadlineFigure {
  std::string variable;  // as tracked: "rw=0/100 bs=4KiB iops"
  std::string cell;      // the variable without its metric: "rw=0/100 bs=4KiB"
  std::string label;     // "rw=0/100 bs=4KiB IOPS", "rw=100/0 bs=128KiB MB/s"
  std::string unit;      // "IOPS", "MB/s" ("MiB/s" with binary units), "µs"
  double mean = 0, lo = 0, hi = 0, spread_pct = 0;
  bool lower_is_better = false;  // latencies
};
// The headline figures of one test of a run document (its `tests[i]`), ordered by variable:
// none when it has no steady-state verdict (or a damaged one) or no positive mean. The figures
// the comparison table shows and `show` prints, computed here once.
std::vector<HeadlineFigure> HeadlineFigures(const nlohmann::json& test, bool binary_units = false);
// "23,759 IOPS", "535.4 MB/s", "74.5 µs": the mean with 4 significant digits and its unit.
std::string HeadlineValue(const HeadlineFigure& f);
// The figures as a JSON array of {"variable", "label", "unit", "mean", "lo", "hi",
// "spread_pct"} (`show --json`, `--progress json`'s verdicts).
nlohmann::json HeadlinesJson(const std::vector<HeadlineFigure>& figures);

// ---- Exports ----

// Writes one CSV per table of the run into `dir` (created if missing; its parent must exist):
// summary.csv, rounds.csv and one per test (iops.csv, tp.csv, lat.csv, lvi.csv, wsat.csv,
// hir.csv, xsr.csv, dirth.csv, ecw.csv, op.csv) as the run holds them; a profile run
// gives profile_summary.csv (every summary figure at each fill level). Returns the files.
// Every file ExportRunCsv may write into `dir`, whatever the run holds (DIR/NAME.csv): what a
// command checks before it exports.
std::vector<std::string> ExportCsvPaths(const std::string& dir);
Result<std::vector<std::string>> ExportRunCsv(const nlohmann::json& run_doc,
                                              const std::string& dir);

}  // namespace ssdlab
