// Every measurement stored, and stored truthfully (issue 46): `run --db` (a run of kind run that
// ls, show, report and export read, several side by side), and the exact fio import: real fio
// runs on files made here, imported, and every imported figure checked against fio's own JSON,
// read here independently of ssdlab's import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "e2e_util.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ssdlab::test;  // NOLINT

namespace {

// fio's JSON output of a short job on a 16 MiB file in `dir` (`extra`: its options).
json RunFio(const fs::path& dir, const std::string& name, const std::string& extra,
            const std::string& format = "json") {
  const std::string out = dir / (name + ".json");
  const std::string cmd =
      "fio --name=" + name + " --filename=" + (dir / "f.img").string() +
      " --size=16M --io_size=2M --bs=4k --ioengine=psync --output-format=" + format +
      " --output=" + out + " " + extra + " >/dev/null 2>&1";
  EXPECT_EQ(Shell(cmd), 0) << cmd;
  return ReadJson(out);
}

// The imported cells of run `run` in `db` (show --json), in order.
std::vector<json> Cells(const std::string& db, const std::string& run) {
  Proc show = RunSsdlab({"show", run, "--db", db, "--json"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  std::vector<json> out;
  const json doc = json::parse(show.out);
  for (const json& t : doc["tests"])
    for (const json& c : t["results"]["imported_cells"]) out.push_back(c);
  return out;
}

const json* Cell(const std::vector<json>& cells, const std::string& dir, const std::string& scope,
                 int entry = -1) {
  for (const json& c : cells)
    if (c["direction"] == dir && c["scope"] == scope &&
        (entry < 0 || c.value("fio_entry", -1) == entry))
      return &c;
  return nullptr;
}

// The quantity fio's figures are read from: lat_ns when it has percentiles, else clat_ns.
const json& Quantity(const json& d) {
  return d["lat_ns"].contains("percentile") ? d["lat_ns"] : d["clat_ns"];
}

// fio's percentile from bins, as fio's stat.c computes it.
uint64_t BinPct(const std::map<uint64_t, uint64_t>& bins, double pct) {
  uint64_t n = 0, sum = 0;
  for (const auto& [v, c] : bins) n += c;
  for (const auto& [v, c] : bins) {
    sum += c;
    if (static_cast<long double>(sum) >= static_cast<long double>(pct) / 100.0 * n) return v;
  }
  return 0;
}

// Checks `cell` against the fio directions `parts` (each jobs[i].read or .write) it sums.
void ExpectFigures(const json& cell, const std::vector<json>& parts) {
  ASSERT_FALSE(parts.empty());
  double iops = 0, bw = 0, ios = 0, n = 0, weighted = 0, hi = 0, lo = 1e300;
  std::vector<const json*> used;
  std::map<uint64_t, uint64_t> bins;
  bool all_bins = true;
  for (const json& d : parts) {
    iops += d["iops"].get<double>();
    bw += d["bw_bytes"].get<double>();
    ios += d["total_ios"].get<double>();
    const json& q = Quantity(d);
    if (q["N"].get<double>() == 0) continue;
    used.push_back(&q);
    n += q["N"].get<double>();
    weighted += q["mean"].get<double>() * q["N"].get<double>();
    hi = std::max(hi, q["max"].get<double>());
    lo = std::min(lo, q["min"].get<double>());
    all_bins &= q.contains("bins");
    if (q.contains("bins"))
      for (auto& [k, v] : q["bins"].items()) bins[std::stoull(k)] += v.get<uint64_t>();
  }
  EXPECT_DOUBLE_EQ(cell["iops"].get<double>(), iops) << cell.dump().substr(0, 300);
  EXPECT_DOUBLE_EQ(cell["mb_s"].get<double>(), bw / 1e6);
  EXPECT_EQ(cell["ios"].get<double>(), ios);
  const bool lat = parts[0]["lat_ns"].contains("percentile");
  EXPECT_EQ(cell["latency"], lat ? "lat" : "clat");
  const double mean = used.size() == 1 ? (*used[0])["mean"].get<double>() : weighted / n;
  EXPECT_DOUBLE_EQ(cell["lat_mean_us"].get<double>(), mean / 1e3);
  EXPECT_DOUBLE_EQ(cell["lat_max_us"].get<double>(), hi / 1e3);
  EXPECT_DOUBLE_EQ(cell["lat_min_us"].get<double>(), lo / 1e3);
  if (used.size() == 1) {  // fio's own percentiles
    EXPECT_EQ(cell["lat_percentiles_ns"], (*used[0])["percentile"]);
    EXPECT_DOUBLE_EQ(cell["lat_p99_us"].get<double>(),
                     (*used[0])["percentile"]["99.000000"].get<double>() / 1e3);
  } else if (all_bins) {  // recomputed from the merged bins
    for (auto& [k, v] : (*used[0])["percentile"].items())
      EXPECT_EQ(cell["lat_percentiles_ns"][k].get<uint64_t>(), BinPct(bins, std::stod(k))) << k;
  } else {  // fio's percentiles of several parts cannot be combined
    EXPECT_FALSE(cell.contains("lat_percentiles_ns")) << cell.dump().substr(0, 300);
    EXPECT_FALSE(cell.contains("lat_p99_us"));
  }
}

struct Imported {
  json fio;
  std::vector<json> cells;
};

Imported FioImport(TempDir& dir, const std::string& name, const std::string& extra,
                   const std::string& format = "json") {
  Imported r;
  r.fio = RunFio(dir.path(), name, extra, format);
  const std::string db = dir / "i.db";
  Proc imp = RunSsdlab({"import", dir / (name + ".json"), "--db", db, "--run", name});
  EXPECT_EQ(imp.exit_code, 0) << imp.err;
  r.cells = Cells(db, name);
  return r;
}

}  // namespace

TEST(InteropStore, FioRandreadAndRandwriteImportFiosOwnFigures) {
  TempDir dir;
  for (const std::string rw : {"randread", "randwrite"}) {
    Imported r = FioImport(dir, rw, "--rw=" + rw + " --iodepth=1");
    ASSERT_EQ(r.cells.size(), 1u) << rw;
    const json& job = r.fio["jobs"][0];
    const json& c = r.cells[0];
    EXPECT_EQ(c["read_pct"], rw == "randread" ? 100 : 0);
    EXPECT_EQ(c["threads"], 1);
    EXPECT_EQ(c["filename"], dir / "f.img");
    ExpectFigures(c, {job["read"], job["write"]});
  }
  // Provenance: fio's version and time are kept, and the report says so and invents nothing.
  const std::string db = dir / "i.db";
  Proc rep = RunSsdlab({"report", "randread", "--db", db, "-o", dir / "r.html"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string html = ReadFile(dir / "r.html");
  EXPECT_TRUE(Has(html, "fio fio-3.")) << "no fio version in the report";
  EXPECT_FALSE(Has(html, "ssdlab  ()"));
  EXPECT_FALSE(Has(html, "0 CPUs"));
  EXPECT_FALSE(Has(html, "<td>0 bytes</td>"));
  EXPECT_TRUE(Has(html, "<td>unknown</td>"));
}

TEST(InteropStore, FioMixedJobsImportEachDirectionWithItsPercentiles) {
  TempDir dir;
  for (const auto& [name, mix, read_pct] :
       {std::tuple<std::string, std::string, double>{"mixread", "--rwmixread=70", 70},
        {"mixwrite", "--rwmixwrite=30", 70}}) {
    Imported r = FioImport(dir, name, "--rw=randrw " + mix);
    const json& job = r.fio["jobs"][0];
    ASSERT_EQ(r.cells.size(), 3u) << name;
    for (const json& c : r.cells) EXPECT_EQ(c["read_pct"].get<double>(), read_pct) << name;
    ExpectFigures(*Cell(r.cells, "read", "group"), {job["read"]});
    ExpectFigures(*Cell(r.cells, "write", "group"), {job["write"]});
    ExpectFigures(*Cell(r.cells, "total", "group"), {job["read"], job["write"]});
  }
}

TEST(InteropStore, FioClonesWithoutGroupReportingAreSummedAndKept) {
  TempDir dir;
  Imported r = FioImport(dir, "four", "--rw=randread --numjobs=4");
  ASSERT_EQ(r.fio["jobs"].size(), 4u);
  ASSERT_EQ(r.cells.size(), 5u);  // the group and its four clones
  const json* group = Cell(r.cells, "total", "group");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ((*group)["threads"], 4);
  std::vector<json> parts;
  for (const json& j : r.fio["jobs"]) parts.insert(parts.end(), {j["read"], j["write"]});
  ExpectFigures(*group, parts);
  for (int i = 0; i < 4; ++i) {
    const json* c = Cell(r.cells, "total", "job", i);
    ASSERT_NE(c, nullptr) << i;
    EXPECT_EQ((*c)["threads"], 1);
    ExpectFigures(*c, {r.fio["jobs"][i]["read"], r.fio["jobs"][i]["write"]});
  }
  // With group_reporting fio sums them itself: one cell of four threads.
  Imported g = FioImport(dir, "grouped", "--rw=randread --numjobs=4 --group_reporting");
  ASSERT_EQ(g.fio["jobs"].size(), 1u);
  ASSERT_EQ(g.cells.size(), 1u);
  EXPECT_EQ(g.cells[0]["threads"], 4);
  ExpectFigures(g.cells[0], {g.fio["jobs"][0]["read"], g.fio["jobs"][0]["write"]});
}

// A job file of two sections run one after the other (stonewall), each its own job in fio's
// JSON: each imported as its own cell with its own figures.
TEST(InteropStore, FioMultiSectionJobFileImportsEachSectionWithItsOwnFigures) {
  TempDir dir;
  const std::string job = dir / "two.fio";
  {
    std::ofstream f(job);
    f << "[global]\nfilename=" << (dir / "f.img") << "\nsize=16M\nio_size=2M\nioengine=psync\n"
      << "\n[rd]\nrw=randread\nbs=4k\n\n[wr]\nstonewall\nrw=randwrite\nbs=8k\n";
  }
  const std::string out = dir / "two.json";
  ASSERT_EQ(Shell("fio --output-format=json --output=" + out + " " + job + " >/dev/null 2>&1"), 0);
  const json fio = ReadJson(out);
  ASSERT_EQ(fio["jobs"].size(), 2u);
  const std::string db = dir / "i.db";
  Proc imp = RunSsdlab({"import", out, "--db", db, "--run", "two"});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  const std::vector<json> cells = Cells(db, "two");
  ASSERT_EQ(cells.size(), 2u);
  for (const json& j : fio["jobs"]) {
    const std::string name = j["jobname"];
    auto c = std::find_if(cells.begin(), cells.end(),
                          [&](const json& x) { return x.value("fio_job", "") == name; });
    ASSERT_NE(c, cells.end()) << name;
    EXPECT_EQ((*c)["read_pct"], name == "rd" ? 100 : 0) << name;
    EXPECT_EQ((*c)["block_bytes"], name == "rd" ? 4096 : 8192) << name;
    ExpectFigures(*c, {j["read"], j["write"]});
  }
}

TEST(InteropStore, FioJsonPlusBinsAreAHistogramAndLatPercentilesAreUsed) {
  TempDir dir;
  // lat percentiles only, and clones whose percentiles are combined from their bins.
  Imported r = FioImport(dir, "plus",
                         "--rw=randrw --rwmixread=60 --numjobs=2 --lat_percentiles=1 "
                         "--clat_percentiles=0",
                         "json+");
  ASSERT_EQ(r.fio["jobs"].size(), 2u);
  ASSERT_TRUE(r.fio["jobs"][0]["read"]["lat_ns"].contains("bins"));
  const json* total = Cell(r.cells, "total", "group");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ((*total)["latency"], "lat");
  ASSERT_TRUE((*total)["histogram_ns"].is_array());
  std::vector<json> all, reads;
  for (const json& j : r.fio["jobs"]) {
    all.insert(all.end(), {j["read"], j["write"]});
    reads.push_back(j["read"]);
  }
  ExpectFigures(*total, all);
  ExpectFigures(*Cell(r.cells, "read", "group"), reads);
  // One clone's one direction: the percentiles recomputed from its bins are fio's own.
  ExpectFigures(*Cell(r.cells, "write", "job", 1), {r.fio["jobs"][1]["write"]});
}

TEST(InteropStore, RunDbStoresRunsThatReportSideBySide) {
  TempDir dir;
  const std::string db = dir / "r.db";
  for (const std::string& rw : {"randread", "randwrite"}) {
    Proc run = RunSsdlab(
        {"run", "--target", "sim:tiny", "--rw", rw, "--runtime", "1s", "--db", db, "--run", rw});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(Has(run.out, "stored as run '" + rw + "'")) << run.out;
  }
  // A taken name is refused before anything is measured.
  Proc again = RunSsdlab({"run", "--target", "sim:tiny", "--rw", "randread", "--runtime", "1s",
                          "--db", db, "--run", "randread", "--json", dir / "again.json"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(Has(again.err, "--run 'randread' already exists")) << again.err;
  EXPECT_EQ(CountLines(again.err), 1) << again.err;
  EXPECT_FALSE(fs::exists(dir / "again.json"));
  // A generated name when none is given.
  Proc unnamed =
      RunSsdlab({"run", "--target", "sim:tiny", "--rw", "randread", "--runtime", "1s", "--db", db});
  ASSERT_EQ(unnamed.exit_code, 0) << unnamed.err;
  EXPECT_TRUE(Has(unnamed.out, "stored as run 'run-")) << unnamed.out;
  auto kinds = SqlRows(db, "SELECT name, kind, status FROM runs ORDER BY id");
  ASSERT_EQ(kinds.size(), 3u);
  EXPECT_EQ(kinds[0], "randread|run|done");
  EXPECT_EQ(kinds[1], "randwrite|run|done");
  // show --json holds the phase with its histogram and the stored run's workload.
  Proc show = RunSsdlab({"show", "randwrite", "--db", db, "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json doc = json::parse(show.out);
  const json& res = doc["tests"][0]["results"];
  EXPECT_GT(res["results"]["write"]["ios"].get<double>(), 0);
  EXPECT_TRUE(res["results"]["write"]["histogram"].is_array());
  EXPECT_EQ(res["workload"]["read_pct"], 0);
  // Reported together, side by side.
  Proc rep = RunSsdlab({"report", "randread", "randwrite", "--db", db, "-o", dir / "r.html"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string html = ReadFile(dir / "r.html");
  EXPECT_TRUE(Has(html, "id=\"sec-run\""));
  EXPECT_TRUE(Has(html, "sim:tiny (randread)"));
  EXPECT_TRUE(Has(html, "sim:tiny (randwrite)"));
  EXPECT_TRUE(Has(html, "ssdlab run: randwrite"));
  // Exported like any run.
  Proc exp = RunSsdlab({"export", "randread", "--db", db, "--csv", dir / "csv"});
  ASSERT_EQ(exp.exit_code, 0) << exp.err;
  EXPECT_TRUE(Has(ReadFile(fs::path(dir / "csv") / "run.csv"), "randread"));
}

TEST(InteropStore, ImportOfARunJsonDocumentPointsAtRunDb) {
  TempDir dir;
  Proc run = RunSsdlab({"run", "--target", "sim:tiny", "--rw", "randread", "--runtime", "1s",
                        "--json", dir / "run.json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Proc imp = RunSsdlab({"import", dir / "run.json", "--db", dir / "i.db", "--run", "r"});
  EXPECT_EQ(imp.exit_code, 2);
  EXPECT_TRUE(Has(imp.err, "ssdlab run --db")) << imp.err;
  EXPECT_EQ(CountLines(imp.err), 1) << imp.err;
}
