// Report model golden tests on a small fixed results database built with the Store API,
// claims-file parsing, HTML self-containment and CSV export.
//
// Golden files live in src/report/testdata/. After an intended change of the report, rewrite
// them with: SSDLAB_UPDATE_GOLDEN=1 ./report_test  (and review the diff).
#include "report/report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "report/model_internal.h"
#include "report/pts_sections.h"
#include "results/pts_tests.h"
#include "store/store.h"

namespace ssdlab {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("ssdlab_report_test_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

json Lat(double base_ns) {
  return {{"mean", base_ns},    {"min", base_ns / 4},   {"max", base_ns * 20},
          {"p99", base_ns * 3}, {"p99_9", base_ns * 5}, {"p99_99", base_ns * 9}};
}

json Dir(double iops, double bs, double lat_ns) {
  return {
      {"ios", iops * 20}, {"iops", iops}, {"bw_bytes_per_s", iops * bs}, {"lat_ns", Lat(lat_ns)}};
}

json Sim(double wa, double free_blocks) {
  return {{"write_amplification", wa},
          {"free_blocks", free_blocks},
          {"free_blocks_min", free_blocks - 1},
          {"gc_page_copies", 1000 * wa},
          {"erases", 40 * wa},
          {"virtual_time_s", 100 * wa}};
}

// PhaseMetrics-like metrics of a cell with `read_pct` reads.
json Metrics(double iops, double read_pct, double bs, double lat_ns, double scale) {
  json m = {{"read", Dir(iops * read_pct / 100, bs, lat_ns)},
            {"write", Dir(iops * (100 - read_pct) / 100, bs, lat_ns * 2)},
            {"total", Dir(iops, bs, lat_ns * (1 + (100 - read_pct) / 100))},
            {"measured_ns", 20000000000}};
  m["sim"] = Sim(1.5 * scale, 12);
  return m;
}

std::string Bs(uint64_t b) { return std::to_string(b / 1024) + "KiB"; }
std::string MixL(double r) {
  std::ostringstream o;
  o << r << "/" << 100 - r;
  return o.str();
}

json Cell(double read_pct, uint64_t bs, double iops, double lat_ns, double scale, int threads = 16,
          int qd = 8) {
  json c = Metrics(iops * scale, read_pct, static_cast<double>(bs), lat_ns / scale, scale);
  c["cell"] = "rw=" + MixL(read_pct) + " bs=" + Bs(bs);
  c["workload"] = {{"description", std::string(read_pct == 100 ? "randread"
                                               : read_pct == 0 ? "randwrite"
                                                               : "randrw") +
                                       " bs=" + Bs(bs) + " qd=" + std::to_string(qd) +
                                       " jobs=" + std::to_string(threads)},
                   {"seed", 1}};
  return c;
}

json Verdict(bool reached, int rounds, int first, double mean) {
  json v = {{"reached", reached},
            {"rounds_run", rounds},
            {"window", 4},
            {"window_first_round", first},
            {"mean", mean},
            {"range_pct", 3.5},
            {"slope_excursion_pct", 1.25},
            {"band_excursion_pct", 0.625},
            {"slope", -mean / 200},
            {"intercept", mean * 1.01}};
  return v;
}

json SteadyState(const std::string& var, bool reached, int rounds, int first, double mean) {
  json ss = Verdict(reached, rounds, first, mean);
  ss["variables"] = {{var, Verdict(reached, rounds, first, mean)}};
  ss["tracking"] = json::array({var});
  return ss;
}

json Rounds(const std::string& var, const std::vector<double>& values) {
  json r = json::array();
  for (size_t i = 0; i < values.size(); ++i)
    r.push_back({{"round", i + 1}, {"tracking", {{var, values[i]}}}});
  return r;
}

json Curves(double scale) {
  json curves = json::array();
  for (double rp : {100.0, 70.0, 0.0}) {
    json pts = json::array();
    for (int t : {1, 2}) {
      for (int q : {1, 4, 16}) {
        json p = Metrics(1000.0 * t * q * scale * (rp + 20) / 100, rp, 4096,
                         80000.0 * q * t / scale, scale);
        p["threads"] = t;
        p["qd"] = q;
        pts.push_back(p);
      }
    }
    curves.push_back({{"curve", "rw=" + MixL(rp) + " bs=4KiB"},
                      {"read_pct", rp},
                      {"block_bytes", 4096},
                      {"points", pts}});
  }
  return curves;
}

void AddTest(Store& s, int64_t run, int seq, const std::string& name, const json& ss, json results,
             const json& rounds) {
  auto id = s.BeginTest(run, seq, name, json::object());
  ASSERT_TRUE(id.ok());
  results["rounds"] = rounds;
  ASSERT_TRUE(s.FinishTest(id.value(), ss, results).ok());
}

// One fixed run: every test with a few cells. `scale` makes a second, faster drive.
void AddRun(Store& s, const std::string& name, const std::string& model, double scale, bool sim) {
  TargetInfo ti;
  ti.path = sim ? "sim:" + model : "/dev/sdz";
  ti.kind = sim ? "sim" : "block";
  ti.size_bytes = 1600321314816ull;
  ti.logical_block_bytes = 512;
  ti.physical_block_bytes = 4096;
  ti.model = model;
  ti.serial = "SN-" + model;
  ti.firmware = "FW1";
  json options = {{"spec", "review"},
                  {"round_ns", 60000000000},
                  {"max_rounds", 25},
                  {"steady_state",
                   {{"rule", "review-band"},
                    {"window", 4},
                    {"band_pct", 10},
                    {"max_range_pct", 20},
                    {"max_slope_pct", 10}}},
                  {"wipc_multiple", 2},
                  {"active_range_pct", 100},
                  {"seed", 1},
                  {"percentiles", {99, 99.9, 99.99}},
                  {"iops_block_bytes", {131072, 8192, 4096}},
                  {"iops_read_pcts", {100, 65, 0}},
                  {"tp_block_bytes", {1048576, 131072}},
                  {"lat_block_bytes", {4096, 8192}},
                  {"lat_read_pcts", {100, 70, 0}},
                  {"lvi_threads", {1, 2}},
                  {"lvi_qds", {1, 4, 16}},
                  {"lvi_block_bytes", {4096}},
                  {"lvi_read_pcts", {100, 70, 0}},
                  {"lvi_warmup_ns", 5000000000},
                  {"lvi_measure_ns", 30000000000},
                  {"wsat_round_ns", 60000000000},
                  {"wsat_capacity_multiple", 4},
                  {"wsat_max_rounds", 1200},
                  {"hir_wait_ns", {5000000000, 10000000000}},
                  {"hir_cycles", 2},
                  {"hir_write_ns", 5000000000},
                  {"hir_baseline_ns", 1800000000000},
                  {"dirth_threads", {2, 1}},
                  {"dirth_qds", {2, 1}},
                  {"dirth_histogram_ns", 600000000000},
                  {"dirth_max_mean_ns", 5000000},
                  {"op_pcts", {30}}};
  json context = {{"tool", "ssdlab"},
                  {"tool_version", "0.1.0"},
                  {"git_revision", "fixture"},
                  {"host", "lab1"},
                  {"os", "Linux"},
                  {"kernel", "6.1.0"},
                  {"arch", "x86_64"},
                  {"cpu_model", "Intel Xeon E5-2660 v3"},
                  {"cpus", 20},
                  {"memory_bytes", 34359738368ull}};
  context["target"] = {
      {"path", ti.path},
      {"kind", ti.kind},
      {"size_bytes", ti.size_bytes},
      {"logical_block_bytes", 512},
      {"physical_block_bytes", 4096},
      {"model", model},
      {"serial", ti.serial},
      {"firmware", "FW1"},
      {"details", sim ? json{{"interface", "sata"}, {"link_mb_s", "550"}, {"buffer", "1048576"}}
                      : json::object()}};
  context["device"] = sim ? json(nullptr)
                          : json{{"disk",
                                  {{"vendor", "ATA"},
                                   {"model", model},
                                   {"serial", ti.serial},
                                   {"firmware", "FW1"},
                                   {"transport", "sata"},
                                   {"write_cache", "write back"}}}};
  auto run = s.CreateRun(name, "pts", {{"options", options}}, context, ti);
  ASSERT_TRUE(run.ok());
  int64_t id = run.value();
  ASSERT_TRUE(s.SetRunStatus(id, "done").ok());
  std::string purge = sim ? "simulator factory-fresh state" : "ATA secure erase";
  int seq = 0;
  // IOPS
  {
    json cells = json::array();
    for (double rp : {100.0, 65.0, 0.0}) {
      for (uint64_t bs : {131072ull, 8192ull, 4096ull})
        cells.push_back(Cell(
            rp, bs, 800000.0 / static_cast<double>(bs / 1024 + 2) * (rp + 30) / 100, 60000, scale));
    }
    json health = {
        {"source", sim ? "simulated" : "hwmon"},
        {"reason", ""},
        {"interval_s", 1.0},
        {"samples",
         sim ? json::array()
             : json::array({{{"t_s", 0}, {"temperature_c", 41}, {"source", "hwmon"}},
                            {{"t_s", 60}, {"temperature_c", 47}, {"source", "hwmon"}},
                            {{"t_s", 120}, {"temperature_c", 49}, {"source", "hwmon"}}})},
        {"temperature", sim ? json{{"samples", 0}}
                            : json{{"samples", 3},
                                   {"idle_c", 41},
                                   {"peak_c", 49},
                                   {"mean_c", 45.67},
                                   {"min_c", 41}}}};
    AddTest(s, id, seq++, "iops", SteadyState("rw=0/100 bs=4KiB iops", true, 5, 1, 48000 * scale),
            {{"purge_method", purge},
             {"range_bytes", ti.size_bytes},
             {"cells", cells},
             {"health", health}},
            Rounds("rw=0/100 bs=4KiB iops",
                   {52000 * scale, 48500 * scale, 48000 * scale, 47800 * scale, 47900 * scale}));
  }
  // Throughput
  {
    json by_block = json::array();
    json rounds = json::array();
    for (uint64_t bs : {1048576ull, 131072ull}) {
      json cells = json::array({Cell(100, bs, 540e6 / static_cast<double>(bs), 2e6, scale, 8, 16),
                                Cell(0, bs, 470e6 / static_cast<double>(bs), 3e6, scale, 8, 16)});
      by_block.push_back({{"block_bytes", bs}, {"purge_method", purge}, {"cells", cells}});
      for (int i = 0; i < 4; ++i)
        rounds.push_back({{"round", i + 1},
                          {"tracking",
                           {{"rw=0/100 bs=" + Bs(bs) + " bw", 470e6 * scale},
                            {"rw=100/0 bs=" + Bs(bs) + " bw", 540e6 * scale}}}});
    }
    AddTest(s, id, seq++, "tp", SteadyState("rw=0/100 bs=1024KiB bw", true, 4, 0, 470e6 * scale),
            {{"range_bytes", ti.size_bytes}, {"by_block", by_block}}, rounds);
  }
  // Latency
  {
    json cells = json::array();
    for (double rp : {100.0, 70.0, 0.0}) {
      for (uint64_t bs : {4096ull, 8192ull})
        cells.push_back(Cell(rp, bs, 5000,
                             rp == 100 ? 182000
                             : rp == 0 ? 70000
                                       : 427000,
                             scale, 1, 1));
    }
    AddTest(s, id, seq++, "lat", SteadyState("rw=0/100 bs=4KiB mean_ns", true, 4, 0, 70000 / scale),
            {{"purge_method", purge}, {"cells", cells}},
            Rounds("rw=0/100 bs=4KiB mean_ns",
                   {71000 / scale, 70000 / scale, 69500 / scale, 70100 / scale}));
  }
  AddTest(s, id, seq++, "lvi",
          SteadyState("precondition rw=0/100 bs=4KiB iops", true, 4, 0, 30000 * scale),
          {{"purge_method", purge}, {"curves", Curves(scale)}},
          Rounds("precondition rw=0/100 bs=4KiB iops",
                 {31000 * scale, 30000 * scale, 29900 * scale, 30100 * scale}));
  // WSAT
  {
    json per_round = json::array();
    double written = 0;
    std::vector<double> iops = {48000, 40000, 26000, 25000, 25100};
    for (size_t i = 0; i < iops.size(); ++i) {
      written += iops[i] * scale * 4096 * 60;
      json m = Metrics(iops[i] * scale, 0, 4096, 600000 / scale, scale);
      m["sim"] = Sim(1 + static_cast<double>(i) * 0.5, 50 - 10.0 * static_cast<double>(i));
      m["round"] = i + 1;
      m["time_s"] = 60.0 * static_cast<double>(i + 1);
      m["written_bytes"] = written;
      m["written_capacities"] = written / static_cast<double>(ti.size_bytes);
      per_round.push_back(m);
    }
    AddTest(s, id, seq++, "wsat", SteadyState("rw=0/100 bs=4KiB iops", true, 5, 1, 25400 * scale),
            {{"purge_method", purge}, {"per_round", per_round}, {"stopped_by", "round limit"}},
            Rounds("rw=0/100 bs=4KiB iops", iops));
  }
  // HIR
  {
    json states = json::array();
    for (double wait : {5e9, 10e9}) {
      json cycles = json::array({{{"cycle", 1},
                                  {"iops", 30000 * scale * wait / 5e9},
                                  {"mean_ns", 500000.0},
                                  {"max_ns", 9000000}},
                                 {{"cycle", 2},
                                  {"iops", 29000 * scale * wait / 5e9},
                                  {"mean_ns", 520000.0},
                                  {"max_ns", 9500000}}});
      states.push_back(
          {{"wait_ns", wait},
           {"cycles", cycles},
           {"mean_cycle_iops", 29500 * scale * wait / 5e9},
           {"gain_vs_baseline", 1.18 * wait / 5e9},
           {"gain_vs_continuous", 1.2 * wait / 5e9},
           {"cycle_metrics", Metrics(29500 * scale, 0, 4096, 500000, scale)},
           {"return_to_baseline", Metrics(25000 * scale, 0, 4096, 600000, scale)},
           {"return_series", json::array({{{"t_end_s", 30}, {"iops", 27000 * scale}},
                                          {{"t_end_s", 60}, {"iops", 25500 * scale}},
                                          {{"t_end_s", 90}, {"iops", 25000 * scale}}})}});
    }
    AddTest(s, id, seq++, "hir",
            SteadyState("precondition rw=0/100 bs=4KiB iops", true, 4, 0, 25000 * scale),
            {{"purge_method", purge}, {"baseline_iops", 25000 * scale}, {"wait_states", states}},
            Rounds("precondition rw=0/100 bs=4KiB iops",
                   {26000 * scale, 25000 * scale, 24900 * scale, 25100 * scale}));
  }
  // XSR
  {
    json segs = json::array();
    std::vector<std::pair<std::string, std::vector<double>>> segments = {
        {"A: SEQ 1024KiB write", {450e6, 460e6, 455e6}},
        {"B: RND 8KiB write", {120e6, 100e6, 98e6}},
        {"C: SEQ 1024KiB write", {200e6, 400e6, 452e6}}};
    for (auto& [n, bw] : segments) {
      json series = json::array();
      for (size_t i = 0; i < bw.size(); ++i)
        series.push_back(json::array({10.0 * static_cast<double>(i + 1), bw[i] * scale}));
      segs.push_back({{"name", n},
                      {"metrics", Metrics(bw.back() * scale / 1048576, 0, 1048576, 2e6, scale)},
                      {"series_bw", series}});
    }
    AddTest(s, id, seq++, "xsr", json::object(),
            {{"purge_method", purge},
             {"segments", segs},
             {"settled_seq_write_bytes_per_s", 455e6 * scale},
             {"recovery_time_s", 20.0},
             {"recovered", true}},
            json::array());
  }
  // DIRTH
  {
    json cells = json::array();
    for (int t : {2, 1}) {
      for (int q : {2, 1}) {
        json c = Metrics(10000.0 * t * q * scale, 65, 8192, 100000.0 * t * q, scale);
        c["cell"] = "T" + std::to_string(t) + " Q" + std::to_string(q);
        c["workload"] = {{"description", "randrw bs=8KiB"}};
        cells.push_back(c);
      }
    }
    json sel = Metrics(40000 * scale, 65, 8192, 400000, scale);
    sel["point"] = "max_iops T2 Q2";
    sel["histogram"] = json::array({json::array({100000, 10}), json::array({150000, 300}),
                                    json::array({400000, 500}), json::array({2000000, 5})});
    AddTest(s, id, seq++, "dirth", SteadyState("T2 Q2 iops", true, 4, 0, 40000 * scale),
            {{"purge_method", purge},
             {"cells", cells},
             {"selected", json::array({sel})},
             {"max_mean_latency_ns", 5000000}},
            Rounds("T2 Q2 iops", {41000 * scale, 40000 * scale, 39900 * scale, 40100 * scale}));
  }
  // OP study
  {
    json points = json::array();
    json rounds = json::array();
    for (double op : {0.0, 30.0}) {
      json curves = Curves(scale * (1 + op / 30));
      curves.erase(0);  // the OP study has the write and 70/30 curves
      points.push_back({{"op_pct", op},
                        {"range_bytes", static_cast<double>(ti.size_bytes) * (100 - op) / 100},
                        {"purge_method", purge},
                        {"steady_state", SteadyState("precondition rw=0/100 bs=4KiB iops", true, 4,
                                                     0, 25000 * scale * (1 + op / 30))},
                        {"steady_write_iops", 25000 * scale * (1 + op / 30)},
                        {"curves", curves}});
      for (int i = 0; i < 4; ++i)
        rounds.push_back(
            {{"round", i + 1},
             {"op_pct", op},
             {"tracking",
              {{"precondition rw=0/100 bs=4KiB iops", 25000 * scale * (1 + op / 30)}}}});
    }
    AddTest(s, id, seq++, "op",
            SteadyState("precondition rw=0/100 bs=4KiB iops", true, 4, 0, 25000 * scale),
            {{"op_points", points}}, rounds);
  }
}

// The review-lab profile fixture: run documents the real program wrote (`ssdlab export --json`
// of profile runs on simulated drives; testdata/make_profile_runs.sh remakes it).
json ProfileFixture() {
  std::ifstream in(fs::path(SSDLAB_REPORT_TESTDATA) / "profile_runs.json");
  EXPECT_TRUE(in) << "missing testdata/profile_runs.json";
  return json::parse(in);
}

const std::vector<std::string> kProfileRuns = {
    "cdm",    "cdm-op28", "atto",        "as-ssd", "surface-tiny", "surface-tlc",
    "fileio", "sql",      "4k-randread", "fill",   "op-advisor",   "user"};

// Stores a run document as `ssdlab profile` left it: the run, its context and config, and
// each test with its results and rounds.
void ImportRun(Store& s, const json& doc, const std::string& kind = "profile") {
  json context = doc["context"];
  json config = context["config"];
  std::string name = context["run"];
  for (const char* k : {"config", "run", "status", "created_at", "finished_at"}) context.erase(k);
  const json& t = context["target"];
  TargetInfo ti;
  ti.path = t["path"];
  ti.kind = t["kind"];
  ti.size_bytes = t["size_bytes"];
  ti.logical_block_bytes = t["logical_block_bytes"];
  ti.physical_block_bytes = t["physical_block_bytes"];
  ti.model = t.value("model", "");
  auto run = s.CreateRun(name, kind, config, context, ti);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE(s.SetRunStatus(run.value(), doc["context"]["status"]).ok());
  int seq = 0;
  for (const json& test : doc["tests"])
    AddTest(s, run.value(), seq++, test["name"], test["steady_state"], test["results"],
            test["rounds"]);
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto s = Store::Open((dir_ / "r.db").string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s.value());
    AddRun(*store_, "dc400", "DC400", 1.0, false);
    AddRun(*store_, "sim-fast", "fast", 2.0, true);
    for (const json& doc : ProfileFixture()) ImportRun(*store_, doc);
    // Two application runs as `ssdlab app` stored them (testdata/app_runs.json: a pgbench and
    // a sysbench run of the real program on this machine, host fields fixed).
    std::ifstream apps(fs::path(SSDLAB_REPORT_TESTDATA) / "app_runs.json");
    ASSERT_TRUE(apps) << "missing testdata/app_runs.json";
    for (const json& doc : json::parse(apps)) ImportRun(*store_, doc, "app");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<ReportRun> Runs(const std::vector<std::string>& names) {
    auto runs = LoadReportRuns([&](const std::string& n) { return store_->RunJson(n); }, names);
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    // The store stamps the run's times; fix them for the golden files.
    for (ReportRun& r : runs.value()) {
      r.doc["context"]["created_at"] = "2024-01-02T03:04:05Z";
      r.doc["context"]["finished_at"] = "2024-01-02T05:06:07Z";
    }
    return runs.value();
  }

  fs::path dir_;
  std::unique_ptr<Store> store_;
};

const char* kClaims = R"(# DC400 datasheet
[drive]
vendor = "Kingston"
model = "DC400 1600 GB"
capacity = "1600GB"

[claims]
seq_read = "555 MB/s"
seq_write = "510 MB/s"
rnd4k_read = "78k IOPS"
rnd4k_write = "32000 IOPS"
qos_read_p99_9 = "400 us"
qos_write_p99_9 = "4 ms"
dwpd = 0.57
warranty = "5 years"
)";

// Compares `got` with the golden file, or rewrites it with SSDLAB_UPDATE_GOLDEN=1.
void ExpectGolden(const json& got, const std::string& name) {
  fs::path path = fs::path(SSDLAB_REPORT_TESTDATA) / name;
  std::string text = got.dump(1) + "\n";
  if (std::getenv("SSDLAB_UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path << " (create it with SSDLAB_UPDATE_GOLDEN=1)";
  std::stringstream want;
  want << in.rdbuf();
  json w = json::parse(want.str());
  if (w == got) return;
  // Name the first differing block to make a failure readable.
  for (size_t s = 0; s < std::min(w["sections"].size(), got["sections"].size()); ++s) {
    const json& a = w["sections"][s];
    const json& b = got["sections"][s];
    if (a != b) {
      for (size_t i = 0; i < std::min(a["blocks"].size(), b["blocks"].size()); ++i) {
        ASSERT_EQ(a["blocks"][i].dump(1), b["blocks"][i].dump(1))
            << "section " << a.value("id", "") << " block " << i;
      }
      ASSERT_EQ(a.dump(1), b.dump(1)) << "section " << a.value("id", "");
    }
  }
  ASSERT_EQ(w.dump(1), got.dump(1));
}

TEST_F(ReportTest, SingleRunModelMatchesGolden) {
  ReportOptions o;
  auto claims = ParseClaims(kClaims, "dc400.toml");
  ASSERT_TRUE(claims.ok()) << claims.status().message();
  o.claims = claims.value();
  json model = BuildReportModel(Runs({"dc400"}), o);
  ExpectGolden(model, "report_single.json");
}

TEST_F(ReportTest, TwoRunsModelMatchesGolden) {
  ReportOptions o;
  o.title = "DC400 against a simulated drive";
  json model = BuildReportModel(Runs({"dc400", "sim-fast"}), o);
  ExpectGolden(model, "report_multi.json");
}

// Walks a model's blocks.
void ForBlocks(const json& blocks, const std::function<void(const json&)>& fn) {
  for (const json& b : blocks) {
    if (b["kind"] == "row") {
      ForBlocks(b["blocks"], fn);
    } else {
      fn(b);
    }
  }
}

TEST_F(ReportTest, EveryTestHasItsSectionAndChartsCarryData) {
  json model = BuildReportModel(Runs({"dc400", "sim-fast"}), {});
  std::vector<std::string> ids;
  for (const json& s : model["sections"]) ids.push_back(s["id"]);
  EXPECT_EQ(ids,
            (std::vector<std::string>{"overview", "compare", "iops", "tp", "lat", "lvi", "wsat",
                                      "hir", "xsr", "dirth", "op", "sim", "temperature"}));
  int charts = 0;
  std::set<std::string> chart_ids;
  for (const json& s : model["sections"]) {
    ForBlocks(s["blocks"], [&](const json& b) {
      if (b["kind"] != "chart") return;
      ++charts;
      EXPECT_TRUE(chart_ids.insert(b["id"]).second) << "duplicate id " << b["id"];
      const json& values = b["spec"]["data"]["values"];
      EXPECT_FALSE(values.empty()) << b["id"];
      // With two runs every row names its drive, and a legend shows the drives.
      for (const json& v : values) {
        if (v.contains("drive")) {
          EXPECT_TRUE(v["drive"] == "DC400" || v["drive"] == "sim:fast") << v.dump();
        }
      }
    });
  }
  EXPECT_GT(charts, 25);
  // Labels: distinct models name the drives.
  EXPECT_EQ(model["runs"][0]["label"], "DC400");
  EXPECT_EQ(model["runs"][1]["label"], "sim:fast");
}

TEST_F(ReportTest, LatencyTableIsLaidOutLikeSeed000) {
  json model = BuildReportModel(Runs({"dc400"}), {});
  const json* table = nullptr;
  for (const json& s : model["sections"]) {
    if (s["id"] != "lat") continue;
    for (const json& b : s["blocks"]) {
      if (b["kind"] == "table" && b["id"].get<std::string>().rfind("lat-table", 0) == 0) table = &b;
    }
  }
  ASSERT_NE(table, nullptr);
  EXPECT_EQ((*table)["columns"], json::array({"Latency, µs", "4KiB", "8KiB"}));
  const json& rows = (*table)["rows"];
  EXPECT_EQ(rows[0], json({{"group", "Mean"}}));
  EXPECT_EQ(rows[1], json::array({"Read", "182", "182"}));
  EXPECT_EQ(rows[2], json::array({"Write", "140",
                                  "140"}));  // write direction: twice the cell's base latency
  EXPECT_EQ(rows[3][0], "Read/write 70/30%");
  EXPECT_EQ(rows[4], json({{"group", "99%"}}));
}

TEST_F(ReportTest, IopsTableHasBlockSizesByMixes) {
  json model = BuildReportModel(Runs({"dc400"}), {});
  for (const json& s : model["sections"]) {
    if (s["id"] != "iops") continue;
    for (const json& b : s["blocks"]) {
      if (b["kind"] != "table" || b["id"].get<std::string>().rfind("iops-table", 0) != 0) continue;
      EXPECT_EQ(b["columns"], json::array({"Block size", "0/100", "65/35", "100/0"}));
      ASSERT_EQ(b["rows"].size(), 3u);
      EXPECT_EQ(b["rows"][0][0], "4KiB");
      EXPECT_EQ(b["rows"][2][0], "128KiB");
      EXPECT_EQ(b["rows"][0][3], "173,333");  // 800000 / 6 * 1.3
      return;
    }
  }
  FAIL() << "no IOPS table";
}

TEST_F(ReportTest, ClaimsTableJudgesEachClaim) {
  auto claims = ParseClaims(kClaims, "dc400.toml");
  ASSERT_TRUE(claims.ok());
  ReportOptions o;
  o.claims = claims.value();
  json model = BuildReportModel(Runs({"dc400"}), o);
  ASSERT_EQ(model["sections"][1]["id"], "claims");
  const json& t = model["sections"][1]["blocks"][0];
  std::map<std::string, json> rows;
  for (const json& r : t["rows"]) rows[r[0]] = r;
  EXPECT_EQ(rows["User capacity"][4]["text"], "yes");
  // Sequential read: the best block size's 540 MB/s against 555 MB/s claimed.
  EXPECT_EQ(rows["Sequential read"][2], "540.0 MB/s");
  EXPECT_EQ(rows["Sequential read"][3], "-2.7%");
  EXPECT_EQ(rows["Sequential read"][4]["text"], "no");
  EXPECT_EQ(rows["4KiB random read"][1], "78,000 IOPS");
  EXPECT_EQ(rows["4KiB random write"][4]["text"], "yes");
  // 99.9% read latency at QD1: 5 x 182 us = 910 us, claimed 400 us.
  EXPECT_EQ(rows["4KiB read latency, 99.9%"][2], "910 µs");
  EXPECT_EQ(rows["4KiB read latency, 99.9%"][4]["text"], "no");
  EXPECT_EQ(rows["Endurance, drive writes per day"][2]["class"], "muted");
  std::string notes = t["notes"].dump();
  EXPECT_NE(notes.find("0.57 DWPD x 1600 GB x 365 x 5 years = 1664 TB"), std::string::npos)
      << notes;
}

TEST(ClaimsTest, ParsesUnitsAndRejectsUnknownKeysAndUnitsWithTheirLine) {
  auto ok = ParseClaims(
      "[claims]\nrnd4k_read = \"78k IOPS\"\nqos_write_p99_9 = \"4 ms\"\nseq_read = \"1.1 "
      "GB/s\"\ndwpd = 10\ntbw = \"1.2 PB\"\n",
      "a.toml");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->claims.size(), 5u);
  EXPECT_EQ(ok->claims[0].value, 78000);
  EXPECT_EQ(ok->claims[1].value, 4000);  // microseconds
  EXPECT_EQ(ok->claims[1].line, 3);
  EXPECT_EQ(ok->claims[2].value, 1100);  // MB/s
  EXPECT_EQ(ok->claims[3].value, 10);
  EXPECT_EQ(ok->claims[4].value, 1200);  // TB

  auto key = ParseClaims("[claims]\nseq_read = \"555 MB/s\"\n\nseq_rd = \"1 MB/s\"\n", "b.toml");
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), Code::kInvalidArgument);
  EXPECT_NE(key.status().message().find("b.toml:4: unknown key 'seq_rd' in [claims]"),
            std::string::npos)
      << key.status().message();

  auto unit = ParseClaims("[drive]\nmodel = \"x\"\n[claims]\nseq_read = \"555 MBps\"\n", "c.toml");
  ASSERT_FALSE(unit.ok());
  EXPECT_NE(unit.status().message().find("c.toml:4: claims.seq_read: unknown unit 'MBps'"),
            std::string::npos)
      << unit.status().message();

  auto no_unit = ParseClaims("[claims]\nrnd4k_read = 78000\n", "d.toml");
  ASSERT_FALSE(no_unit.ok());
  EXPECT_NE(no_unit.status().message().find("d.toml:2: claims.rnd4k_read: '78000' needs a unit"),
            std::string::npos)
      << no_unit.status().message();

  auto table = ParseClaims("[drive]\nmodel = \"x\"\n[perf]\n", "e.toml");
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("e.toml:3: unknown key 'perf'"), std::string::npos)
      << table.status().message();

  auto drive = ParseClaims("[drive]\ncolour = \"red\"\n", "f.toml");
  ASSERT_FALSE(drive.ok());
  EXPECT_NE(drive.status().message().find("f.toml:2: unknown key 'colour' in [drive]"),
            std::string::npos);

  auto syntax = ParseClaims("[claims\n", "g.toml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.status().message().rfind("g.toml:1: ", 0), 0u) << syntax.status().message();
}

TEST(ClaimsTest, ShippedSpecFilesParse) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(SSDLAB_SPECS_DIR)) {
    if (e.path().extension() != ".toml") continue;
    ++files;
    auto c = LoadClaimsFile(e.path().string());
    EXPECT_TRUE(c.ok()) << e.path() << ": " << c.status().message();
    if (c.ok()) {
      EXPECT_FALSE(c->drive["model"].empty()) << e.path();
    }
  }
  EXPECT_EQ(files, 5);
}

TEST_F(ReportTest, HtmlIsSelfContainedAndSmall) {
  json model = BuildReportModel(Runs({"dc400", "sim-fast"}), {});
  std::string html = RenderReportHtml(model);
  EXPECT_LT(html.size(), 5u * 1000 * 1000);
  // No external resource: no src= or href= except in-page anchors.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  for (size_t p = html.find("href=\""); p != std::string::npos; p = html.find("href=\"", p + 1))
    EXPECT_EQ(html[p + 6], '#');
  // The libraries are inline, with their versions in the footer.
  json v = EmbeddedLibraryVersions();
  for (const char* lib : {"vega", "vega-lite", "vega-embed"}) {
    ASSERT_TRUE(v.contains(lib));
    EXPECT_NE(html.find(std::string(lib) + " " + v[lib].get<std::string>()), std::string::npos)
        << lib;
  }
  EXPECT_NE(html.find("vegaEmbed"), std::string::npos);
  // Every chart has its element and its spec; the specs' JSON cannot end the script early.
  auto specs_at = html.find("id=\"ssdlab-specs\">");
  ASSERT_NE(specs_at, std::string::npos);
  std::string specs_text =
      html.substr(specs_at + 18, html.find("</script>", specs_at) - specs_at - 18);
  json specs = json::parse(specs_text);
  for (auto& [id, spec] : specs.items())
    EXPECT_NE(html.find("id=\"" + id + "\""), std::string::npos) << id;
  EXPECT_EQ(specs_text.find('<'), std::string::npos);
}

TEST_F(ReportTest, UnknownRunIsNamed) {
  auto runs =
      LoadReportRuns([&](const std::string& n) { return store_->RunJson(n); }, {"dc400", "nope"});
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.status().message().find("nope"), std::string::npos);
}

TEST_F(ReportTest, CsvExportWritesOneFilePerTable) {
  auto doc = Runs({"dc400"})[0].doc;
  auto files = ExportRunCsv(doc, (dir_ / "csv").string());
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::set<std::string> names;
  for (const auto& f : files.value()) names.insert(fs::path(f).filename());
  for (const char* n :
       {"summary.csv", "rounds.csv", "iops.csv", "tp.csv", "lat.csv", "lvi.csv", "wsat.csv",
        "hir.csv", "xsr.csv", "dirth.csv", "dirth_histograms.csv", "op.csv"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  std::ifstream in(dir_ / "csv" / "iops.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header.rfind("cell,read_pct,block_bytes,workload,total_ios,total_iops,", 0), 0u)
      << header;
  EXPECT_EQ(first.rfind("rw=100/0 bs=128KiB,100,131072,", 0), 0u) << first;
  // A missing parent directory is refused.
  auto bad = ExportRunCsv(doc, (dir_ / "missing" / "csv").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace ssdlab

namespace ssdlab {
namespace {

// ---- Review-lab profiles ----

// The blocks of a section of `model` (which must outlive them), with rows flattened.
std::vector<const json*> Blocks(const json& model, const std::string& section) {
  std::vector<const json*> out;
  for (const json& s : model["sections"]) {
    if (s["id"] == section) ForBlocks(s["blocks"], [&](const json& b) { out.push_back(&b); });
  }
  return out;
}

const json* Block(const std::vector<const json*>& blocks, const std::string& id_prefix) {
  for (const json* b : blocks) {
    // find, not operator[]: a const json's operator[] on a missing key is undefined (an
    // assertion under the sanitizers' build), and some blocks have no id.
    const auto id = b->find("id");
    if (id != b->end() && id->is_string() && id->get<std::string>().rfind(id_prefix, 0) == 0) {
      return b;
    }
  }
  return nullptr;
}

// PTS runs the real program made on simulated drives (testdata/pts_runs.json, remade by
// testdata/make_pts_runs.sh): a whole review battery and a PTS-E subset, side by side. The
// simulator is deterministic, so the suite and the report cannot drift apart unseen.
// Every test of the catalogue has its section, in the catalogue's (battery) order.
TEST(PtsSections, FollowTheCatalogue) {
  ASSERT_EQ(report::pts::PtsSections().size(), results::PtsTests().size());
  for (size_t i = 0; i < results::PtsTests().size(); ++i)
    EXPECT_EQ(report::pts::PtsSections()[i].id, results::PtsTests()[i].id)
        << results::PtsTests()[i].name;
}

TEST_F(ReportTest, PtsRunsOfTheProgramModelMatchesGolden) {
  std::ifstream in(fs::path(SSDLAB_REPORT_TESTDATA) / "pts_runs.json");
  ASSERT_TRUE(in) << "missing testdata/pts_runs.json";
  for (const json& doc : json::parse(in)) ImportRun(*store_, doc, "pts");
  json model = BuildReportModel(Runs({"review-tiny", "ptse-tiny-op28"}), {});
  std::vector<std::string> ids;
  for (const json& sec : model["sections"]) ids.push_back(sec["id"]);
  for (const std::string& t : results::PtsTestNames())
    EXPECT_NE(std::find(ids.begin(), ids.end(), t), ids.end()) << "no section " << t;
  ExpectGolden(model, "report_pts_sim.json");
}

TEST_F(ReportTest, ProfileRunsModelMatchesGolden) {
  json model = BuildReportModel(Runs(kProfileRuns), {});
  ExpectGolden(model, "report_profiles.json");
}

TEST_F(ReportTest, EveryProfileHasItsSectionAndChartsCarryData) {
  json model = BuildReportModel(Runs(kProfileRuns), {});
  std::vector<std::string> ids;
  for (const json& s : model["sections"]) ids.push_back(s["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"overview", "profile-cdm", "profile-atto",
                                           "profile-as-ssd", "profile-surface", "profile-fileio",
                                           "profile-curves", "profile-fill", "profile-op-advisor",
                                           "profile-mixed-oltp", "sim", "temperature"}));
  // The simulator's counters at the end of every profile test that keeps them (as-ssd and
  // surface keep none), each with a write amplification.
  const json* sim_table = Block(Blocks(model, "sim"), "sim-table");
  ASSERT_NE(sim_table, nullptr);
  std::set<std::string> with_counters;
  for (const json& row : (*sim_table)["rows"]) {
    with_counters.insert(row[1].get<std::string>());
    EXPECT_NE(row[2], "") << row.dump();
  }
  EXPECT_EQ(with_counters, (std::set<std::string>{"cdm", "atto", "fileio", "sql", "4k-randread",
                                                  "fill", "op-advisor", "mixed-oltp"}));
  std::set<std::string> chart_ids;
  for (const json& s : model["sections"]) {
    ForBlocks(s["blocks"], [&](const json& b) {
      if (b["kind"] != "chart") return;
      EXPECT_TRUE(chart_ids.insert(b["id"]).second) << "duplicate id " << b["id"];
      EXPECT_FALSE(b["spec"]["data"]["values"].empty()) << b["id"];
    });
  }
  for (const char* c : {"cdm-bars", "fill-change-cdm", "atto-curve", "as-ssd-bars", "as-ssd-score",
                        "surface-curve", "fileio-iops", "fileio-lat", "curve-mean", "curve-p99",
                        "op-advisor-time", "op-advisor-levels", "user-bars"}) {
    EXPECT_TRUE(std::any_of(chart_ids.begin(), chart_ids.end(), [&](const std::string& id) {
      return id.rfind(std::string(c) + "-", 0) == 0;
    })) << c;
  }
  // The CDM section holds three columns: the run at 0% and 90% full and a second drive, with
  // a legend naming each.
  auto cdm = Blocks(model, "profile-cdm");
  const json* bars = Block(cdm, "cdm-bars");
  ASSERT_NE(bars, nullptr);
  EXPECT_EQ((*bars)["spec"]["encoding"]["xOffset"]["field"], "drive");
  std::set<std::string> drives;
  for (const json& v : (*bars)["spec"]["data"]["values"]) drives.insert(v["drive"]);
  EXPECT_EQ(drives, (std::set<std::string>{"sim:tiny (cdm), 0% full", "sim:tiny (cdm), 90% full",
                                           "sim:tiny (cdm-op28)"}));
  // A single run draws no drive legend.
  const json* atto = Block(Blocks(model, "profile-atto"), "atto-curve");
  ASSERT_NE(atto, nullptr);
  EXPECT_FALSE((*atto)["spec"]["encoding"].contains("strokeDash"));
}

TEST_F(ReportTest, CdmTableIsLaidOutLikeCrystalDiskMark) {
  json fixture = ProfileFixture();
  const json& item = fixture[0]["tests"][0]["results"]["levels"][0]["results"]["items"][0];
  json model = BuildReportModel(Runs({"cdm"}), {});
  const json* t = Block(Blocks(model, "profile-cdm"), "cdm-table");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ((*t)["caption"], "sim:tiny (cdm), 0% full: best of 2 passes per test and direction");
  EXPECT_EQ((*t)["columns"], json::array({"Test", "Read, MB/s", "Read, IOPS", "Read, mean µs",
                                          "Write, MB/s", "Write, IOPS", "Write, mean µs"}));
  std::vector<std::string> tests;
  for (const json& r : (*t)["rows"]) tests.push_back(r[0]);
  EXPECT_EQ(tests,
            (std::vector<std::string>{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"}));
  char mb[32];
  std::snprintf(mb, sizeof mb, "%.2f", item["read"]["mb_s"].get<double>());
  EXPECT_EQ((*t)["rows"][0][1], mb);
  // Two fill levels: the differences table and the change chart.
  const json* d = Block(Blocks(model, "profile-cdm"), "fill-table-cdm");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ((*d)["columns"], json::array({"Metric", "0% full", "90% full", "Change"}));
  EXPECT_EQ((*d)["rows"].size(), fixture[0]["tests"][0]["results"]["differences"].size());
}

TEST_F(ReportTest, AttoDrawsThroughputOnALog2BlockSizeAxis) {
  json model = BuildReportModel(Runs({"atto"}), {});
  auto blocks = Blocks(model, "profile-atto");
  const json* c = Block(blocks, "atto-curve");
  ASSERT_NE(c, nullptr);
  const json& x = (*c)["spec"]["encoding"]["x"];
  EXPECT_EQ(x["field"], "block_bytes");
  EXPECT_EQ(x["scale"], json({{"type", "log"}, {"base", 2}}));
  EXPECT_EQ(x["axis"]["values"].front(), 4096);  // sim:tiny's logical block: 512 B..2 KiB skipped
  const json* t = Block(blocks, "atto-table");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ((*t)["rows"][0][0], "4 KiB");
  EXPECT_EQ((*t)["rows"].back()[0], "1 MiB");
  EXPECT_EQ((*t)["notes"][0],
            "512 B skipped: not a multiple of the target's 4096-byte logical block");
}

TEST_F(ReportTest, SurfaceShowsTheCacheCliffAndOpAdvisorItsRecommendation) {
  json model = BuildReportModel(Runs({"surface-tiny", "surface-tlc", "op-advisor"}), {});
  const json* t = Block(Blocks(model, "profile-surface"), "surface-table");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ((*t)["rows"].size(), 2u);
  EXPECT_EQ((*t)["rows"][0][5]["text"], "none");
  EXPECT_EQ((*t)["rows"][1][5]["class"], "bad");
  EXPECT_EQ((*t)["rows"][1][5]["text"].get<std::string>().rfind("at ", 0), 0u)
      << (*t)["rows"][1].dump();
  auto op = Blocks(model, "profile-op-advisor");
  const json* ot = Block(op, "op-advisor-table");
  ASSERT_NE(ot, nullptr);
  ASSERT_EQ((*ot)["rows"].size(), 2u);
  EXPECT_EQ((*ot)["rows"][1][7]["text"],
            "recommended");  // 20% beats 0% on the read-intensive drive
  bool text = false;
  for (const json* b : op) {
    text |= (*b)["kind"] == "text" && (*b)["text"].get<std::string>().find(
                                          "recommended over-provisioning 20%") != std::string::npos;
  }
  EXPECT_TRUE(text);
  const json* time = Block(op, "op-advisor-time");
  ASSERT_NE(time, nullptr);
  std::set<std::string> ops;
  for (const json& v : (*time)["spec"]["data"]["values"]) ops.insert(v["op"]);
  EXPECT_EQ(ops, (std::set<std::string>{"OP 0%", "OP 20%"}));
}

TEST_F(ReportTest, CurvesShareOneChartWithACurvePerWorkload) {
  json model = BuildReportModel(Runs({"sql", "4k-randread"}), {});
  auto blocks = Blocks(model, "profile-curves");
  const json* c = Block(blocks, "curve-mean");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["spec"]["encoding"]["color"]["field"], "workload");
  EXPECT_EQ((*c)["spec"]["encoding"]["order"]["field"], "target_pct");
  std::set<std::string> w;
  for (const json& v : (*c)["spec"]["data"]["values"]) w.insert(v["workload"]);
  EXPECT_EQ(w, (std::set<std::string>{"sql", "4k-randread"}));
  EXPECT_NE(Block(blocks, "curve-p99"), nullptr);
  EXPECT_NE(Block(blocks, "curve-max"), nullptr);
}

TEST_F(ReportTest, ProfileAndPtsRunsShareAReport) {
  json model = BuildReportModel(Runs({"dc400", "cdm"}), {});
  const json& overview = model["sections"][0]["blocks"][0];
  for (const json& r : overview["rows"]) {
    if (r.is_array() && r[0] == "Specification") {
      EXPECT_EQ(r[1], "SNIA PTS-E 1.1 with the reviewers' deviations (docs/methodology.md)");
      EXPECT_EQ(r[2].get<std::string>().rfind("ssdlab profile cdm: ", 0), 0u) << r[2];
    }
    if (r.is_array() && r[0] == "Steady state") {
      EXPECT_EQ(r[2], "not applicable (profile)");
    }
  }
  // PTS sections hold the PTS run only; the profile section the profile run only.
  const json* iops = Block(Blocks(model, "iops"), "iops-2d");
  ASSERT_NE(iops, nullptr);
  // (One run's rows carry no drive: nothing draws it, LeanChart drops it.)
  for (const json& v : (*iops)["spec"]["data"]["values"])
    EXPECT_EQ(v.value("drive", std::string("DC400")), "DC400");
  EXPECT_FALSE(Blocks(model, "profile-cdm").empty());
  const json* params = Block(Blocks(model, "iops"), "params-iops");
  ASSERT_NE(params, nullptr);
  EXPECT_EQ((*params)["columns"], json::array({"Parameter", "DC400"}));
  EXPECT_FALSE((*iops)["spec"]["encoding"].contains("strokeDash"))
      << "one PTS run: no drive legend";
}

TEST_F(ReportTest, AUserProfileNamedLikeAPtsTestIsNotTakenForIt) {
  json doc = ProfileFixture().back();  // the user profile
  doc["context"]["run"] = "named-iops";
  doc["tests"][0]["name"] = "iops";
  ImportRun(*store_, doc);
  json model = BuildReportModel(Runs({"named-iops"}), {});
  std::vector<std::string> ids;
  for (const json& s : model["sections"]) ids.push_back(s["id"]);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), "iops"), 0);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), "profile-iops"), 1);
}

TEST_F(ReportTest, HirDrawsTheReturnToBaselineAndOpAWindowPerSetting) {
  json model = BuildReportModel(Runs({"dc400"}), {});
  const json* hir = Block(Blocks(model, "hir"), "hir-iops");
  ASSERT_NE(hir, nullptr);
  int back = 0;
  for (const json& v : (*hir)["spec"]["data"]["values"])
    back += v["state"] == "continuous (return to baseline)";
  EXPECT_EQ(back, 6);  // 3 samples after each of the 2 wait states
  EXPECT_EQ((*hir)["spec"]["encoding"]["detail"]["field"], "segment");
  std::vector<std::string> titles;
  for (const json* b : Blocks(model, "op")) {
    if ((*b)["kind"] == "chart" && (*b)["id"].get<std::string>().rfind("ss-window-op", 0) == 0)
      titles.push_back((*b)["spec"]["title"]);
  }
  EXPECT_EQ(titles, (std::vector<std::string>{
                        "Measurement window: OP +0%: precondition rw=0/100 bs=4KiB IOPS",
                        "Measurement window: OP +30%: precondition rw=0/100 bs=4KiB IOPS"}));
}

TEST_F(ReportTest, CsvExportOfAProfileRunHasItsSummaryAtEachFillLevel) {
  auto files = ExportRunCsv(Runs({"cdm"})[0].doc, (dir_ / "csv").string());
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::ifstream in(dir_ / "csv" / "profile_summary.csv");
  ASSERT_TRUE(in);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header, "test,kind,fill_pct,metric,value");
  EXPECT_EQ(first.rfind("cdm,cdm,0,SEQ1M Q8T1 read MB/s,", 0), 0u) << first;
  int rows = 1;
  for (std::string line; std::getline(in, line);) ++rows;
  size_t want = 0;
  const json fixture = ProfileFixture();
  for (const json& l : fixture[0]["tests"][0]["results"]["levels"]) want += l["summary"].size();
  EXPECT_EQ(static_cast<size_t>(rows), want);
}

TEST_F(ReportTest, ReportWithEveryTestAndProfileStaysSmall) {
  std::vector<std::string> names = {"dc400", "sim-fast"};
  names.insert(names.end(), kProfileRuns.begin(), kProfileRuns.end());
  std::string html = RenderReportHtml(BuildReportModel(Runs(names), {}));
  EXPECT_LT(html.size(), 5u * 1000 * 1000);
}

TEST_F(ReportTest, AppRunsHaveTheirSectionAndStayOutOfPtsSections) {
  json model = BuildReportModel(Runs({"pgbench-run", "sysbench-run", "dc400"}), {});
  const json* app = nullptr;
  for (const json& s : model["sections"]) {
    if (s["id"] == "app") app = &s;
    // PTS sections list the PTS run only: no "not run" columns for the application runs.
    if (s["id"] == "iops") {
      EXPECT_EQ(s.dump().find("pgbench"), std::string::npos);
    }
  }
  ASSERT_NE(app, nullptr);
  const json& table = (*app)["blocks"][0];
  ASSERT_EQ(table["rows"].size(), 2u);
  EXPECT_EQ(table["rows"][0][1], "pgbench");
  EXPECT_EQ(table["rows"][1][1], "sysbench-oltp");
  EXPECT_NE(table["rows"][0][2], "-");  // TPS
  EXPECT_NE(table["rows"][0][6], "-");  // p99
  int charts = 0;
  for (const json& b : (*app)["blocks"]) {
    if (b["kind"] != "chart") continue;
    ++charts;
    EXPECT_FALSE(b["spec"]["data"]["values"].empty()) << b["id"];
  }
  EXPECT_EQ(charts, 3);  // TPS, latency, device IOPS
  // The overview names the application instead of a PTS specification.
  EXPECT_NE(model["sections"][0].dump().find("ssdlab app pgbench"), std::string::npos);
}

// A run whose stored results of a PTS test are damaged (a key of the wrong type) still gets its
// report: the test's verdict cells say what is damaged, naming the test and the key, and the CSV
// export refuses it with the same words; nothing throws.
TEST(ReportDamaged, ATestWithDamagedResultsSaysWhyInItsVerdictCells) {
  std::ifstream in(fs::path(SSDLAB_REPORT_TESTDATA) / "pts_runs.json");
  ASSERT_TRUE(in) << "missing testdata/pts_runs.json";
  const json docs = json::parse(in);
  const json& doc = docs[0];
  const json& other = docs[1];  // a PTS-E run of iops, tp, lat and wsat
  const std::map<std::string, std::string> list_of = {
      {"iops", "cells"},     {"tp", "by_block"},     {"lat", "cells"},    {"lvi", "curves"},
      {"wsat", "per_round"}, {"hir", "wait_states"}, {"xsr", "segments"}, {"dirth", "selected"},
      {"ecw", "selected"},   {"op", "op_points"}};
  const fs::path dir = TempDir("damaged");
  for (const auto& [test, key] : list_of) {
    json damaged = doc;
    bool found = false;
    for (json& t : damaged["tests"]) {
      if (t["name"] != test) continue;
      t["results"][key] = 3;
      found = true;
    }
    ASSERT_TRUE(found) << test;
    const std::string why = "damaged: " + test + ".results." + key + " is not a list";
    json model;
    ASSERT_NO_THROW(model = BuildReportModel({{"tiny", damaged}, {"op28", other}}, {})) << test;
    const std::string text = model.dump();
    size_t n = 0;
    for (size_t p = text.find(why); p != std::string::npos; p = text.find(why, p + 1)) ++n;
    // The overview's verdict table; and the test's parameter table when the section is there
    // (the other run holds the test).
    bool in_other = false;
    for (const json& t : other["tests"]) in_other |= t["name"] == test;
    EXPECT_EQ(n, in_other ? 2u : 1u) << test << ": " << why;
    auto csv = ExportRunCsv(damaged, (dir / test).string());
    ASSERT_FALSE(csv.ok()) << test;
    EXPECT_NE(csv.status().message().find(test + ".results." + key), std::string::npos)
        << csv.status().message();
  }
  fs::remove_all(dir);
}

// A run whose stored options are damaged still gets its report: its set-up rows and the test
// parameter tables say which option is damaged, and its results are shown as they are.
TEST(ReportDamaged, DamagedOptionsAreNamedInTheSetUpAndParameterCells) {
  std::ifstream in(fs::path(SSDLAB_REPORT_TESTDATA) / "pts_runs.json");
  ASSERT_TRUE(in) << "missing testdata/pts_runs.json";
  const json docs = json::parse(in);
  json damaged = docs[0];
  damaged["context"]["config"]["options"]["round_ns"] = "a minute";
  json model;
  ASSERT_NO_THROW(model = BuildReportModel({{"tiny", damaged}, {"op28", docs[1]}}, {}));
  const std::string why = "damaged: the stored options' round_ns is damaged: \\\"a minute\\\"";
  const std::string text = model.dump();
  size_t n = 0;
  for (size_t p = text.find(why); p != std::string::npos; p = text.find(why, p + 1)) ++n;
  // The overview's set-up rows (specification .. steady state: 5) and one row per fact of each
  // parameter table of the damaged run's tests (at least one).
  EXPECT_GT(n, 6u) << text.substr(0, 2000);
  // The other run's set-up is read as before.
  EXPECT_NE(text.find("SNIA PTS Enterprise 1.1"), std::string::npos);
}

}  // namespace
}  // namespace ssdlab

namespace ssdlab {
namespace {

// The page's size: a chart keeps the fields its spec names and, for lines, at most the given
// points of each series, its extremes and ends among them; bars keep every row.
TEST(LeanChart, DropsUnnamedFieldsAndThinsEachSeriesKeepingItsExtremes) {
  using nlohmann::json;
  json values = json::array();
  for (int i = 0; i < 1000; ++i) {
    for (const char* s : {"a", "b"}) {
      double y = s[0] == 'a' ? i : -i;
      if (i == 537) y = s[0] == 'a' ? 1e6 : -1e6;  // a spike in the middle
      values.push_back({{"t", i}, {"y", y}, {"s", s}, {"unused", 42}, {"note", "x"}});
    }
  }
  json spec = {{"mark", {{"type", "line"}}},
               {"data", {{"values", values}}},
               {"encoding",
                {{"x", {{"field", "t"}}}, {"y", {{"field", "y"}}}, {"color", {{"field", "s"}}}}}};
  size_t drawn = 0, total = 0;
  json lean = report::LeanChart(spec, 100, &drawn, &total);
  EXPECT_EQ(total, 2000u);
  const json& rows = lean["data"]["values"];
  EXPECT_EQ(rows.size(), drawn);
  std::map<std::string, std::vector<double>> t_of, y_of;
  for (const json& r : rows) {
    EXPECT_FALSE(r.contains("unused")) << r.dump();
    EXPECT_FALSE(r.contains("note")) << r.dump();
    t_of[r["s"]].push_back(r["t"]);
    y_of[r["s"]].push_back(r["y"]);
  }
  for (const char* s : {"a", "b"}) {
    EXPECT_LE(t_of[s].size(), 102u) << s;
    EXPECT_GE(t_of[s].size(), 50u) << s;
    EXPECT_EQ(t_of[s].front(), 0) << s;
    EXPECT_EQ(t_of[s].back(), 999) << s;
    EXPECT_TRUE(std::is_sorted(t_of[s].begin(), t_of[s].end())) << s;
    const double spike = s[0] == 'a' ? 1e6 : -1e6;
    EXPECT_NE(std::find(y_of[s].begin(), y_of[s].end(), spike), y_of[s].end()) << s;
  }
  // Bars are never thinned.
  spec["mark"] = "bar";
  lean = report::LeanChart(spec, 100, &drawn, &total);
  EXPECT_EQ(drawn, 2000u);
}

}  // namespace
}  // namespace ssdlab
