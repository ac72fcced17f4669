// Private to report/: building blocks of the report model shared by its source files.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"
#include "report/util.h"

namespace ssdlab::report {

struct Ctx {
  const std::vector<ReportRun>& runs;
  bool multi = false;
  int next_id = 0;
  bool binary_units = false;  // ReportOptions::binary_units
  // Throughput in the report's unit: MB/s (decimal, the datasheets'), or MiB/s when binary.
  double Rate(double bytes_per_s) const { return bytes_per_s / (binary_units ? 1048576.0 : 1e6); }
  const char* RateUnit() const { return binary_units ? "MiB/s" : "MB/s"; }
  std::string Id(const std::string& stem) { return stem + "-" + std::to_string(++next_id); }
};

// FullDriveOfRun of the run's document.
FullDrive FullDriveOf(const ReportRun& r);

// The test of that name in a run document, or nullptr.
const json* FindTest(const json& doc, const std::string& name);

json TableBlock(const std::string& id, const std::string& caption, json columns, json rows,
                json notes = json::array());
json ChartBlock(const std::string& id, const std::string& caption, json spec);
json TextBlock(const std::string& text);
json RowBlock(json blocks);
// A table row that heads a group of rows.
json GroupRow(const std::string& title);
// A cell with a CSS class ("good", "bad", "muted").
json Cell(const std::string& text, const std::string& cls);

// The claims-versus-measured section (empty json when there are no claims).
json ClaimsSection(Ctx& ctx, const Claims& claims);

// A section: {"id", "title", "intro", "blocks"}.
json Section(const std::string& id, const std::string& title, const std::string& intro,
             json blocks);
// Appends every block of `more` to `blocks`.
void Append(json& blocks, const json& more);
// At most `n` samples of a time series [{t_key, v_key, ...}]: each the mean of `v_key` over a
// run of consecutive samples, at the run's last `t_key`. Shorter series come back as they are.
json ThinSeries(const json& series, const std::string& t_key, const std::string& v_key, size_t n);

// The page's size: a chart's spec as drawn. Its rows lose the fields nothing in the spec names;
// a line chart without selections keeps at most `max_per_series` points of each series (the
// rows sharing every text field): the lowest and highest y of each run of neighbours, and the
// first and last point. `drawn` and `total`: its rows after and before. The run's documents
// and exports keep every point.
inline constexpr size_t kMaxPointsPerSeries = 300;
json LeanChart(json spec, size_t max_per_series, size_t* drawn, size_t* total);

// ---- Vega-Lite spec helpers (chart sizes in pixels) ----

inline constexpr int kWide = 620, kTall = 300, kNarrow = 400, kShort = 240;

// {"title", "width", "height", "data": {"values"}}: a spec without mark and encoding.
json Spec(const std::string& title, json values, int width, int height);
// Encodings: quantitative (log scale, or a scale without zero), nominal, ordinal (labels level).
json Q(const std::string& field, const std::string& title, bool log = false, bool zero = true);
json N(const std::string& field, const std::string& title, json sort = nullptr);
json O(const std::string& field, const std::string& title, json sort = nullptr);
// The nominal "drive" field: the legend naming each run.
json DriveEnc();
// Lines with points, coloured by `series` (may be empty); with several runs (ctx.multi) the
// drive is the dash pattern and point shape (or the colour when there is no series). Rows
// must carry "drive" when ctx.multi. `order_field` orders the points along a line.
json LineSpec(const std::string& title, json values, json x, json y, const std::string& series,
              const std::string& series_title, const Ctx& ctx, json series_sort = nullptr,
              const std::string& order_field = "", int width = kWide, int height = kTall);
// Bars of `y` by `x`, coloured by `color` (null: one colour). With several runs the drives
// stand side by side (xOffset, or yOffset when `x` is the quantitative axis of horizontal
// bars) and colour the bars unless `keep_color` (then `color` stacks within a drive's bar).
// `column`: a field to facet by ("" none). Category names along the x axis of vertical bars
// break at their spaces, one word a line (axis labelExpr), unless `x` sets its own.
json BarSpec(const std::string& title, json values, json x, json y, json color, const Ctx& ctx,
             const std::string& column = "", bool keep_color = false, int width = 220,
             int height = kTall);

// ---- Review-lab profiles (profiles.cc) ----

// True for a test stored by `ssdlab profile` (results with "kind" and "levels"); FindTest
// never returns one, so a user profile named like a PTS test is not taken for it.
bool IsProfileTest(const json& test);
// One section per profile (all vdbench-style curves share one), runs side by side; in the
// order the runs hold them. Empty array when no run holds a profile.
json ProfileSections(Ctx& ctx);
// Facts of a profile run (or an application run) for the report header: {"spec",
// "preconditioning", "rounds", "steady_state", "active_range"}; null for a PTS run.
json ProfileRunFacts(const ReportRun& run);

// ---- Application tests (apps.cc) ----

// ProfileRunFacts of an application run.
json AppRunFacts(const ReportRun& run);
// The application tests of every run: a table (TPS, QPS, latency percentiles, device figures,
// versions), TPS and latency per second, and the drive's IOPS and utilisation per second.
// Null when no run holds one.
json AppSection(Ctx& ctx);

// ---- Trace replays (replay.cc) ----

// ProfileRunFacts of a replay run.
json ReplayRunFacts(const ReportRun& run);
// The replays of every run: what was replayed, lag and whether it kept up, recorded against
// replayed latency (table and bars), a timed replay's lag and IOPS over time (lag_series).
// Null when no run holds one.
json ReplaySection(Ctx& ctx);
// Power-loss campaigns (report/plp.cc): a stored `ssdlab plp` run's test, its run facts, and
// the section of findings by cut and class with power-on-to-ready.
json PlpRunFacts(const ReportRun& run);
json PlpSection(Ctx& ctx);
// The same for `ssdlab trace stats` runs: a table of the figures and the suggested run flags,
// bars of the block-size histogram and of the skew. Null when no run holds one.
json TraceStatsRunFacts(const ReportRun& run);
json TraceStatsSection(Ctx& ctx);

// ---- Single workloads (run.cc) ----

// ProfileRunFacts of a `run` run, with "data_pattern" (its workload's data).
json RunRunFacts(const ReportRun& run);
// The `run` runs side by side: per direction IOPS, MB/s and latency (table and bars). Null when
// no run holds one.
json RunSection(Ctx& ctx);

// ---- Imported figures (imported.cc) ----

// One section per imported test (table of the cells as published, bars or curves of their
// figures), runs side by side. Empty array when no run holds one.
json ImportedSections(Ctx& ctx);

// ---- The digital twin (twin.cc) ----

// "Measured vs twin" (when the twin report has figures) and "What if (on the twin)" (when it
// has what-if runs); an empty array when neither.
json TwinSections(Ctx& ctx, const TwinReport& twin);

}  // namespace ssdlab::report
