// What the report gives a reviewer beyond one drive's pages: the comparison of two drives (a
// table of each headline figure's difference with the spread of the steady rounds beside it, and
// side-by-side bars), the replay section's charts and units, and the report printed to PDF
// through a headless Chromium (with a one-line error and exit status 3 where there is none).
// The drives are simulated (the main job's review battery at a scale that takes seconds), so
// every figure is deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// printf's format of one value ("%+.1f%%": "+238.5%").
std::string Printf(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The charts' Vega-Lite specs of a report page, by chart id.
json SpecsOf(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"ssdlab-specs\">";
  size_t b = html.find(open);
  if (b == std::string::npos) return nullptr;
  b += open.size();
  size_t e = html.find("</script>", b);
  return json::parse(html.substr(b, e - b), nullptr, false);
}

// The spec of the first chart whose id starts with `stem` (null when none).
json ChartSpec(const json& specs, const std::string& stem) {
  if (!specs.is_object()) return nullptr;
  for (auto it = specs.begin(); it != specs.end(); ++it)
    if (it.key().rfind(stem + "-", 0) == 0) return it.value();
  return nullptr;
}

// The rows of the table whose id starts with `stem`, each a list of its cells' text; a cell's
// class is appended after a '|' ("+3.4%: larger ...|good num").
std::vector<std::vector<std::string>> TableRows(const std::string& html, const std::string& stem) {
  std::vector<std::vector<std::string>> rows;
  size_t b = html.find("<div class=\"table-wrap\" id=\"" + stem + "-");
  if (b == std::string::npos) return rows;
  size_t e = html.find("</table>", b);
  std::string table = html.substr(b, e - b);
  std::regex row_re("<tr>(.*?)</tr>"), cell_re("<td( class=\"([^\"]*)\")?>(.*?)</td>");
  for (std::sregex_iterator r(table.begin(), table.end(), row_re), end; r != end; ++r) {
    std::string row = (*r)[1];
    std::vector<std::string> cells;
    for (std::sregex_iterator c(row.begin(), row.end(), cell_re); c != end; ++c)
      cells.push_back((*c)[3].str() + ((*c)[2].matched ? "|" + (*c)[2].str() : ""));
    if (!cells.empty()) rows.push_back(cells);
  }
  return rows;
}

class ReportOut : public ::testing::Test {
 protected:
  // The main job's battery on the read-intensive drive twice (the simulator is deterministic:
  // the same figures) and on the mixed-use drive.
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = *dir_ / "o.db";
    for (auto [run, preset] :
         std::vector<std::pair<std::string, std::string>>{{"ri", "dc-sata-read-intensive"},
                                                          {"ri-again", "dc-sata-read-intensive"},
                                                          {"mixed", "dc-sata-mixed"}}) {
      Proc p =
          RunSsdlab({"pts", "--target", "sim:" + preset, "--spec", "review", "--db", db_, "--run",
                     run, "--time-scale", "4096", "--wdpc-capacity", "2x", "--progress", "none"});
      ASSERT_EQ(p.exit_code, 0) << p.err;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Report(const std::vector<std::string>& runs, const std::string& file) {
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), runs.begin(), runs.end());
    args.insert(args.end(), {"--db", db_, "-o", *dir_ / file});
    Proc p = RunSsdlab(args);
    EXPECT_EQ(p.exit_code, 0) << p.err;
    return ReadFile(*dir_ / file);
  }
  // A test's stored steady-state verdict of tracking variable `var`.
  static json Verdict(const std::string& run, const std::string& test, const std::string& var) {
    Proc p = RunSsdlab({"export", run, "--db", db_, "--json", "-"});
    EXPECT_EQ(p.exit_code, 0) << p.err;
    json doc = json::parse(p.out, nullptr, false);
    const json* t = FindTest(doc, test);
    if (!t) return nullptr;
    return (*t)["steady_state"]["variables"].value(var, json());
  }

  static TempDir* dir_;
  static std::string db_;
};
TempDir* ReportOut::dir_ = nullptr;
std::string ReportOut::db_;

// Two drives: one row per headline figure of every test, each drive's steady-state mean with
// the spread of its steady rounds, and the second drive's difference in percent, marked as
// larger than the noise (and better or worse) or within it; bars of every figure, side by side.
TEST_F(ReportOut, TwoDrivesGetATableOfDifferencesWithTheNoiseAndSideBySideBars) {
  std::string html = Report({"ri", "mixed"}, "compare.html");
  auto rows = TableRows(html, "compare-table");
  ASSERT_GE(rows.size(), 9u) << "a row per headline figure of iops, tp, lat, lvi, wsat, ...";
  // The IOPS test's figure, computed here from the stored verdicts.
  const std::string var = "rw=0/100 bs=4KiB iops";
  json a = Verdict("ri", "iops", var), b = Verdict("mixed", "iops", var);
  ASSERT_TRUE(a.is_object() && b.is_object());
  const double diff = (b["mean"].get<double>() / a["mean"].get<double>() - 1) * 100;
  const double noise = std::max(a["range_pct"].get<double>(), b["range_pct"].get<double>());
  ASSERT_GT(std::fabs(diff), noise) << "the two drives differ beyond the noise";
  const auto& iops = rows[0];
  ASSERT_EQ(iops.size(), 5u);
  EXPECT_EQ(iops[0], "IOPS");
  EXPECT_EQ(iops[1], "rw=0/100 bs=4KiB IOPS");
  EXPECT_TRUE(Has(iops[2], Printf("IOPS (rounds within %.1f%%)", a["range_pct"].get<double>())))
      << iops[2];
  EXPECT_EQ(iops[4], Printf("%+.1f%%", diff) + ": larger than the noise (" +
                         Printf("%.1f%%", noise) + ")|" + (diff > 0 ? "good" : "bad") + " num");
  // Latency: lower is better, so a lower mean is marked good.
  bool lat = false;
  for (const auto& r : rows) {
    if (r[0] != "Latency" || r.size() != 5) continue;
    lat = true;
    EXPECT_TRUE(Has(r[2], " µs (rounds within ")) << r[2];
    if (Has(r[4], "larger than the noise"))
      EXPECT_TRUE(Has(r[4], r[4][0] == '-' ? "|good" : "|bad")) << r[4];
  }
  EXPECT_TRUE(lat);
  // The bars: every figure of both drives as a percent of the first, with the steady rounds'
  // range.
  json bars = ChartSpec(SpecsOf(html), "compare-bars");
  ASSERT_TRUE(bars.is_object());
  const json& values = bars["data"]["values"];
  EXPECT_EQ(values.size(), 2 * rows.size());
  for (const json& v : values) {
    if (v["figure"] != "iops: rw=0/100 bs=4KiB IOPS") continue;
    const double pct =
        v["drive"].get<std::string>().find("mixed") != std::string::npos ? 100 + diff : 100.0;
    EXPECT_NEAR(v["pct"].get<double>(), pct, 0.01 * pct) << v.dump();
    EXPECT_LE(v["lo"].get<double>(), v["pct"].get<double>());
    EXPECT_GE(v["hi"].get<double>(), v["pct"].get<double>());
  }
  // One drive alone has no comparison.
  EXPECT_TRUE(TableRows(Report({"ri"}, "one.html"), "compare-table").empty());
}

// The same drive twice: every difference is within the noise, and says so.
TEST_F(ReportOut, TheSameDriveTwiceDiffersWithinTheNoise) {
  auto rows = TableRows(Report({"ri", "ri-again"}, "same.html"), "compare-table");
  ASSERT_GE(rows.size(), 9u);
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 5u);
    EXPECT_TRUE(Has(r[4], "+0.0%: within the noise (")) << r[1] << ": " << r[4];
    EXPECT_TRUE(Has(r[4], "|muted")) << r[4];
  }
}

// A replay's section writes µs as the rest of the report does, and charts the recorded and the
// replayed latency as cumulative distributions (recorded: the trace's percentiles; replayed:
// every I/O, from its histogram).
TEST_F(ReportOut, ReplaySectionChartsRecordedAgainstReplayedLatencyInMicroseconds) {
  std::string csv;
  uint64_t ts = 128166372003061629ULL;
  for (int i = 0; i < 2000; ++i) {
    ts += 500;  // 50 us apart (MSR's 100 ns ticks)
    csv += std::to_string(ts) + ",hm,0," + (i % 3 ? "Read" : "Write") + "," +
           std::to_string((static_cast<uint64_t>(i) * 7919 % 100000) * 4096 + (uint64_t{1} << 40)) +
           ",4096," + std::to_string(1000 + i % 50) + "\n";
  }
  std::ofstream(*dir_ / "msr.csv") << csv;
  Proc p = RunSsdlab({"replay", *dir_ / "msr.csv", "--target", "sim:tiny", "--remap", "modulo",
                      "--db", db_, "--run", "rep"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::string html = Report({"rep"}, "replay.html");
  // The section's text.
  const size_t begin = html.find("<section id=\"sec-replay\">");
  ASSERT_NE(begin, std::string::npos);
  const std::string text = html.substr(begin, html.find("</section>", begin) - begin);
  EXPECT_TRUE(Has(text, "Trace replays (latency in µs)"));
  EXPECT_TRUE(Has(text, "against replayed latency, µs"));
  EXPECT_FALSE(Has(text, ", us")) << "µs everywhere";
  EXPECT_FALSE(Has(text, "in us)")) << "µs everywhere";
  json specs = SpecsOf(html);
  ASSERT_TRUE(specs.is_object());
  EXPECT_FALSE(Has(specs.dump(), "Latency, us")) << "µs on the charts' axes";
  json cdf = ChartSpec(specs, "replay-cdf");
  ASSERT_TRUE(cdf.is_object()) << "the recorded vs replayed latency CDF";
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  for (const json& v : cdf["data"]["values"])
    series[v["series"].get<std::string>()].push_back(
        {v["lat_us"].get<double>(), v["pct"].get<double>()});
  for (const char* s : {"read, recorded", "read, replayed", "write, recorded", "write, replayed"}) {
    ASSERT_TRUE(series.count(s)) << s;
    EXPECT_NEAR(series[s].back().second, 100, 1e-9) << s << " ends at every I/O";
    for (size_t i = 1; i < series[s].size(); ++i) {
      EXPECT_GE(series[s][i].first, series[s][i - 1].first) << s;
      EXPECT_GT(series[s][i].second, series[s][i - 1].second) << s;
    }
  }
  // The trace's recorded response times are 100.0-104.9 µs (1000-1049 ticks of 100 ns).
  EXPECT_NEAR(series["read, recorded"].back().first, 104.9, 0.01);
  EXPECT_EQ(cdf["encoding"]["x"]["title"], "Latency, µs");
}

// The page's size: the main job's battery on one drive was a 2.8 MB page, most of it the charts'
// data (every field of every round, every point); each chart now carries the fields it draws
// and at most 300 points a series, while the export keeps every round.
TEST_F(ReportOut, LongSeriesAreThinnedForTheChartsAndKeptInTheExport) {
  std::string html = Report({"ri"}, "size.html");
  EXPECT_LT(html.size(), 2000000u);
  json wsat_lat = ChartSpec(SpecsOf(html), "wsat-lat");
  ASSERT_TRUE(wsat_lat.is_object());
  std::map<std::string, size_t> per_stat;
  for (const json& v : wsat_lat["data"]["values"]) {
    per_stat[v["stat"].get<std::string>()]++;
    EXPECT_EQ(v.size(), 3u) << "time, statistic and latency only: " << v.dump();
  }
  ASSERT_FALSE(per_stat.empty());
  for (const auto& [stat, n] : per_stat) EXPECT_LE(n, 302u) << stat;
  EXPECT_TRUE(Has(html,
                  " points, the lowest and highest of each run of neighbours; every point "
                  "is in the CSV and JSON export)"));
  Proc p = RunSsdlab({"export", "ri", "--db", db_, "--json", "-"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json doc = json::parse(p.out, nullptr, false);
  const json* wsat = FindTest(doc, "wsat");
  ASSERT_NE(wsat, nullptr);
  EXPECT_GT((*wsat)["rounds"].size(), 600u) << "every round in the export";
}

// `ls --json`: the runs as one JSON array, null where a run has no damage.
TEST_F(ReportOut, LsJsonListsTheRunsAsOneDocument) {
  Proc p = RunSsdlab({"ls", "--db", db_, "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json runs = json::parse(p.out, nullptr, false);
  ASSERT_TRUE(runs.is_array()) << p.out;
  std::vector<std::string> names;
  for (const json& r : runs) {
    names.push_back(r["name"]);
    if (r["kind"] != "pts") continue;
    EXPECT_EQ(r["status"], "done") << r.dump();
    EXPECT_TRUE(r["damage"].is_null()) << r.dump();
    EXPECT_TRUE(Has(r["target"].get<std::string>(), "sim:dc-sata-")) << r.dump();
    EXPECT_TRUE(r["created_at"].is_string()) << r.dump();
  }
  for (const char* n : {"ri", "ri-again", "mixed"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n << " in " << p.out;
}

// `--progress json`: "none" is null, never -1 (no ETA or steady-state distance yet, no cell).
TEST_F(ReportOut, ProgressJsonSaysNoneWithNull) {
  std::string err_path = *dir_ / "progress.err";
  pid_t pid = StartSsdlab(
      {"pts", "--target", "sim:dc-sata-read-intensive", "--spec", "review", "--tests", "iops",
       "--db", *dir_ / "progress.db", "--time-scale", "4096", "--progress", "json"},
      *dir_ / "progress.out", err_path);
  ASSERT_EQ(Wait(pid), 0) << ReadFile(err_path);
  std::string err = ReadFile(err_path);
  size_t events = 0, nulls = 0;
  for (size_t b = 0, e; b < err.size(); b = e + 1) {
    e = err.find('\n', b);
    if (e == std::string::npos) e = err.size();
    json j = json::parse(err.substr(b, e - b), nullptr, false);
    ASSERT_TRUE(j.is_object()) << "a line that is not JSON: " << err.substr(b, e - b);
    const std::string stage = j["stage"];
    if (stage == "note" || stage == "end" || stage == "verdict") continue;  // not progress
    ++events;
    for (const char* k : {"steady_distance_pct", "eta_test_s", "eta_battery_s"}) {
      ASSERT_TRUE(j.contains(k)) << j.dump();
      EXPECT_TRUE(j[k].is_null() || j[k].get<double>() >= 0) << k << ": " << j.dump();
      nulls += j[k].is_null();
    }
    for (const char* k : {"cell", "message"})
      EXPECT_TRUE(j[k].is_null() || !j[k].get<std::string>().empty()) << k << ": " << j.dump();
  }
  EXPECT_GT(events, 10u);
  EXPECT_GT(nulls, 0u) << "the purge and preconditioning have no ETA";
}

// `report --pdf FILE` prints the report through the headless Chromium found on PATH.
TEST_F(ReportOut, PdfThroughHeadlessChromium) {
  if (!fs::exists("/usr/bin/chromium"))
    GTEST_SKIP() << "Debian's chromium is not installed (scripts/deps.sh installs it)";
  Proc p = RunSsdlab(
      {"report", "ri", "--db", db_, "-o", *dir_ / "pdf.html", "--pdf", *dir_ / "report.pdf"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::string pdf = ReadFile(*dir_ / "report.pdf");
  EXPECT_EQ(pdf.substr(0, 5), "%PDF-");
  EXPECT_GT(pdf.size(), 100000u) << "every page of the report, charts drawn";
  EXPECT_TRUE(fs::exists(*dir_ / "pdf.html"));
  // Nothing of Chromium's left beside the PDF.
  for (const auto& e : fs::directory_iterator(dir_->path()))
    EXPECT_FALSE(Has(e.path().filename().string(), "report.pdf.ssdlab-")) << e.path();
}

// With no Chromium on PATH: one line naming --pdf, exit status 3, nothing written.
TEST_F(ReportOut, PdfWithoutChromiumIsOneLineAndExitStatus3) {
  fs::create_directories(*dir_ / "empty-bin");
  std::string out;
  int rc = Shell("PATH=" + (*dir_ / "empty-bin") + " " + SSDLAB_BINARY + " report ri --db " + db_ +
                     " -o " + (*dir_ / "nopdf.html") + " --pdf " + (*dir_ / "no.pdf"),
                 &out);
  EXPECT_EQ(rc, 3) << out;
  EXPECT_EQ(CountLines(out), 1) << out;
  EXPECT_TRUE(Has(out, "--pdf " + (*dir_ / "no.pdf") + ": no headless Chromium on PATH")) << out;
  EXPECT_FALSE(fs::exists(*dir_ / "no.pdf"));
  EXPECT_FALSE(fs::exists(*dir_ / "nopdf.html"));
}

}  // namespace
}  // namespace ssdlab::test
