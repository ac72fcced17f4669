// The digital twin end to end: preset files through `sim describe`, `import` of a CSV of
// published figures and of fio JSON, `sim fit` and `sim compare`, and their bad input.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

namespace fs = std::filesystem;

const char* const kHeader =
    "test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,"
    "lat_p99_99_us,lat_max_us,role,source\n";

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The charts of a report page: chart id -> Vega-Lite spec (the page's embedded specs).
nlohmann::json ChartsOf(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"ssdlab-specs\">";
  const size_t b = html.find(open);
  if (b == std::string::npos) return nlohmann::json::object();
  const size_t e = html.find("</script>", b);
  return nlohmann::json::parse(html.substr(b + open.size(), e - b - open.size()));
}

// The data rows of chart `prefix`-N (the first chart whose id starts so), or null.
nlohmann::json ChartValues(const nlohmann::json& charts, const std::string& prefix) {
  for (const auto& [id, spec] : charts.items()) {
    if (id.rfind(prefix + "-", 0) != 0) continue;
    if (spec.contains("layer")) return spec["layer"].back()["data"]["values"];
    return spec["data"]["values"];
  }
  return nullptr;
}

TEST(E2eTwin, DescribePrintsAPresetFileThatLoadsBack) {
  TempDir dir;
  Proc d = RunSsdlab({"sim", "describe", "sim:tiny?op=30&gc=fifo"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_TRUE(Has(d.out, "op = 30")) << d.out;
  Write(dir / "mine.toml", d.out);
  Proc again = RunSsdlab({"sim", "describe", dir / "mine.toml"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  // The same parameters (the first line names the target, which differs).
  EXPECT_EQ(again.out.substr(again.out.find('\n')), d.out.substr(d.out.find('\n')));
  Write(dir / "bad.toml", "base = \"tiny\"\ncolour = 3\n");
  Proc bad = RunSsdlab({"sim", "describe", dir / "bad.toml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Has(bad.err, "colour")) << bad.err;
  EXPECT_EQ(CountLines(bad.err), 1) << bad.err;
}

TEST(E2eTwin, ImportFitAndCompare) {
  TempDir dir;
  const std::string db = dir / "r.db";
  Write(dir / "fig.csv", std::string(kHeader) +
                             "iops,4k,100,4,8,,30000,,,,,,,calibration,\"a review, table 1\"\n"
                             "iops,4k,0,4,8,,9000,,,,,,,calibration,table 1\n"
                             "lat,4k,100,1,1,,,,120,300,,,,predicted,table 2\n"
                             "cdm,4k,100,1,1,,,,120,,,,,predicted,not fitted\n");
  Proc imp = RunSsdlab({"import", dir / "fig.csv", "--db", db, "--run", "pub"});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  Proc show = RunSsdlab({"show", "pub", "--db", db});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(Has(show.out, "iops")) << show.out;

  // --correct off: the import's re-run for the correction is tested below.
  Proc fit = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--fit",
                        "ctrl_read_us,ctrl_write_us", "--max-evals", "8", "--correct", "off", "-o",
                        dir / "twin.toml"});
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  const std::string twin = ReadFile(dir / "twin.toml");
  EXPECT_TRUE(Has(twin, "runs = [\"pub\"]")) << twin;
  EXPECT_TRUE(Has(twin, "held_out_median_error = { all = ")) << twin;
  EXPECT_TRUE(Has(fit.err, "evaluations")) << fit.err;  // the progress bar
  Proc cmp =
      RunSsdlab({"sim", "compare", "pub", "--db", db, "--target", "sim:" + (dir / "twin.toml")});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_TRUE(Has(cmp.out, "iops rnd rw=100/0 bs=4 KiB T4 Q8 iops")) << cmp.out;
  EXPECT_TRUE(Has(cmp.out, "median error all")) << cmp.out;

  // --holdout: half of each test's cells held out whatever their roles (iops: one of two; lat:
  // its one cell fitted although predicted).
  Proc half = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--fit",
                         "ctrl_read_us,ctrl_write_us", "--max-evals", "8", "--holdout", "0.5",
                         "--correct", "off", "-o", dir / "half.toml"});
  ASSERT_EQ(half.exit_code, 0) << half.err;
  const std::string half_twin = ReadFile(dir / "half.toml");
  EXPECT_TRUE(Has(half_twin, "holdout = 0.5")) << half_twin;
  size_t held = 0;
  for (size_t at = 0; (at = half_twin.find("held_out = true", at)) != std::string::npos; ++at)
    ++held;
  EXPECT_EQ(held, 1u) << half_twin;
  EXPECT_TRUE(Has(half.out, "fitted keys: ")) << half.out;
  // --fold I/N: the twin file records the fold.
  Proc fold = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--fit",
                         "ctrl_read_us,ctrl_write_us", "--max-evals", "8", "--fold", "1/2",
                         "--correct", "off", "-o", dir / "fold.toml"});
  ASSERT_EQ(fold.exit_code, 0) << fold.err;
  EXPECT_TRUE(Has(ReadFile(dir / "fold.toml"), "fold = [1, 2]")) << ReadFile(dir / "fold.toml");
  // --prior W: that weight, no cross-validation; the twin file records it.
  Proc prior = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--fit",
                          "ctrl_read_us,ctrl_write_us", "--max-evals", "8", "--prior", "0.5",
                          "--correct", "off", "-o", dir / "prior.toml"});
  ASSERT_EQ(prior.exit_code, 0) << prior.err;
  EXPECT_TRUE(Has(prior.out, "prior weight 0.5\n")) << prior.out;
  const std::string prior_twin = ReadFile(dir / "prior.toml");
  EXPECT_TRUE(Has(prior_twin, "prior_weight = 0.5\nprior_cv = []\n")) << prior_twin;
  // A bad --prior or --holdout is refused before any simulation, in one line naming the flag.
  const std::vector<std::pair<std::string, std::vector<std::string>>> bad_values = {
      {"--prior", {"-1", "abc", "inf"}},
      {"--holdout", {"1.5", "0", "abc"}},
      {"--fold", {"5/5", "0/1", "1", "a/5", "0/101"}}};
  for (const auto& [flag, values] : bad_values) {
    for (const std::string& bad : values) {
      Proc w = RunSsdlab(
          {"sim", "fit", "pub", "--db", db, "--base", "tiny", flag, bad, "-o", dir / "bad.toml"});
      EXPECT_EQ(w.exit_code, 2) << flag << " " << bad;
      EXPECT_TRUE(Has(w.err, flag)) << w.err;
      EXPECT_EQ(CountLines(w.err), 1) << w.err;
    }
  }
  Proc loss = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--loss", "cube", "-o",
                         dir / "bad.toml"});
  EXPECT_EQ(loss.exit_code, 2);
  EXPECT_TRUE(Has(loss.err, "--loss 'cube'")) << loss.err;
  EXPECT_EQ(CountLines(loss.err), 1) << loss.err;
  Proc both = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--holdout", "0.5",
                         "--train-tests", "iops", "-o", dir / "bad.toml"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(Has(both.err, "exclude each other")) << both.err;
  EXPECT_EQ(CountLines(both.err), 1) << both.err;

  // Bad input: an unknown key in --fit, a run without the needed tests, a malformed CSV.
  Proc key = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--fit",
                        "ctrl_read_us,colour", "-o", dir / "t2.toml"});
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_TRUE(Has(key.err, "colour")) << key.err;
  EXPECT_EQ(CountLines(key.err), 1) << key.err;
  Write(dir / "cdm.csv", std::string(kHeader) + "cdm,4k,100,1,1,,5000,,,,,,,predicted,x\n");
  ASSERT_EQ(RunSsdlab({"import", dir / "cdm.csv", "--db", db, "--run", "cdm"}).exit_code, 0);
  Proc none = RunSsdlab({"sim", "fit", "cdm", "--db", db, "--base", "tiny", "-o", dir / "t3.toml"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Has(none.err, "none of the tests")) << none.err;
  EXPECT_EQ(CountLines(none.err), 1) << none.err;
  Write(dir / "bad.csv", std::string(kHeader) + "iops,4k,100,1,1,,abc,,,,,,,predicted,x\n");
  Proc bad = RunSsdlab({"import", dir / "bad.csv", "--db", db, "--run", "bad"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Has(bad.err, "bad.csv:2")) << bad.err;
  EXPECT_TRUE(Has(bad.err, "iops")) << bad.err;
}

// The simulated column of `sim compare` for each figure: name -> value as printed.
std::map<std::string, std::string> SimulatedColumn(const std::string& out) {
  std::map<std::string, std::string> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    // "  NAME   measured   simulated   error%": the name ends with its metric.
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.size() < 4 || w.back().back() != '%' || w[0] == "median") continue;
    std::string name;
    for (size_t i = 0; i + 3 < w.size(); ++i) name += (name.empty() ? "" : " ") + w[i];
    v[name] = w[w.size() - 2];
  }
  return v;
}

// An import holds no options to re-run: `sim compare --exact` runs its tests as the review
// spec's (the figures those of `pts --spec review --time-scale auto` on the same drive), TP
// cells of a review's 1 x QD 128 matched to the spec's deep sequential cell; `sim fit` corrects
// its cheap evaluator by them. An import of nothing re-runnable is refused in one line.
TEST(E2eTwin, AnImportIsReRunAsTheReviewSpecsTests) {
  TempDir dir;
  const std::string db = dir / "r.db";
  Write(dir / "fig.csv", std::string(kHeader) +
                             "lat,4k,100,1,1,,,,120,300,,,,calibration,t\n"
                             "lat,4k,0,1,1,,,,50,,,,,calibration,t\n"
                             "lat,8k,100,1,1,,,,150,,,,,predicted,t\n"
                             "tp,128k,100,1,128,,,540,,,,,,predicted,t\n");
  ASSERT_EQ(RunSsdlab({"import", dir / "fig.csv", "--db", db, "--run", "pub"}).exit_code, 0);
  Proc cmp = RunSsdlab({"sim", "compare", "pub", "--db", db, "--target", "sim:tiny", "--exact"});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const auto sim = SimulatedColumn(cmp.out);
  ASSERT_EQ(sim.size(), 5u) << cmp.out;

  Proc pts = RunSsdlab({"pts", "--target", "sim:tiny", "--spec", "review", "--tests", "tp,lat",
                        "--time-scale", "auto", "--db", db, "--run", "ref", "--progress", "none",
                        "--json", dir / "ref.json"});
  ASSERT_EQ(pts.exit_code, 0) << pts.err;
  std::map<std::string, double> ref;  // the same figures from the battery run directly
  const nlohmann::json ref_doc = ReadJson(dir / "ref.json");
  for (const auto& t : ref_doc["tests"]) {
    if (t["name"] == "lat") {
      for (const auto& c : t["results"]["cells"]) {
        const auto& lat = c["total"]["lat_ns"];
        if (c["cell"] == "rw=100/0 bs=4KiB") {
          ref["lat rnd rw=100/0 bs=4 KiB T1 Q1 lat_mean_us"] = lat["mean"].get<double>() / 1e3;
          ref["lat rnd rw=100/0 bs=4 KiB T1 Q1 lat_p99_us"] = lat["p99"].get<double>() / 1e3;
        }
        if (c["cell"] == "rw=0/100 bs=4KiB")
          ref["lat rnd rw=0/100 bs=4 KiB T1 Q1 lat_mean_us"] = lat["mean"].get<double>() / 1e3;
        if (c["cell"] == "rw=100/0 bs=8KiB")
          ref["lat rnd rw=100/0 bs=8 KiB T1 Q1 lat_mean_us"] = lat["mean"].get<double>() / 1e3;
      }
    }
    if (t["name"] == "tp")
      for (const auto& b : t["results"]["by_block"])
        for (const auto& c : b["cells"])
          if (c["cell"] == "rw=100/0 bs=128KiB")
            ref["tp seq rw=100/0 bs=128 KiB T1 Q128 mb_s"] =
                c["total"]["bw_bytes_per_s"].get<double>() / 1e6;
  }
  ASSERT_EQ(ref.size(), 5u);
  for (const auto& [name, value] : ref) {
    ASSERT_TRUE(sim.count(name)) << name << "\n" << cmp.out;
    char printed[32];
    std::snprintf(printed, sizeof printed, "%.4g", value);
    EXPECT_EQ(sim.at(name), printed) << name;
  }

  // sim fit corrects the cheap evaluator by these: at the base, every figure is the re-run's.
  Proc fit = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--fit",
                        "ctrl_read_us,ctrl_write_us", "--max-evals", "8", "-o", dir / "t.toml"});
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_TRUE(Has(fit.err, "re-running run pub's tests on the base (as the review spec's)"))
      << fit.err;
  const std::string twin = ReadFile(dir / "t.toml");
  for (const auto& [name, value] : ref) EXPECT_TRUE(Has(twin, name)) << name;

  Write(dir / "cdm.csv", std::string(kHeader) + "cdm,4k,100,1,1,,5000,,,,,,,predicted,x\n");
  ASSERT_EQ(RunSsdlab({"import", dir / "cdm.csv", "--db", db, "--run", "cdm"}).exit_code, 0);
  Proc none = RunSsdlab({"sim", "compare", "cdm", "--db", db, "--target", "sim:tiny", "--exact"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Has(none.err, "imported cells of iops, tp, lat or wsat")) << none.err;
  EXPECT_EQ(CountLines(none.err), 1) << none.err;
}

// --iops-state fresh: the import's IOPS cells were measured with the whole matrix in a round,
// on a drive fresh from its sequential preconditioning. Both `sim compare` and its --exact
// re-run then give a random-write cell a fresh drive's IOPS, above the steady drive's (on a
// drive large enough that a round of the whole matrix stays within its spare pool); a bad state
// is refused in one line.
TEST(E2eTwin, AFreshIopsImportIsSimulatedOnAFreshDrive) {
  TempDir dir;
  const std::string db = dir / "r.db";
  Write(dir / "fig.csv", std::string(kHeader) +
                             "iops,4k,0,16,8,,20000,,,,,,,calibration,t\n"
                             "iops,4k,100,16,8,,30000,,,,,,,predicted,t\n");
  for (const std::string state : {"steady", "fresh"})
    ASSERT_EQ(
        RunSsdlab({"import", dir / "fig.csv", "--db", db, "--run", state, "--iops-state", state})
            .exit_code,
        0);
  const std::string write = "iops rnd rw=0/100 bs=4 KiB T16 Q8 iops";
  for (const std::string exact : {"", "--exact"}) {
    std::map<std::string, double> iops;
    for (const std::string state : {"steady", "fresh"}) {
      std::vector<std::string> args = {
          "sim", "compare", state, "--db", db, "--target", "sim:dc-sata-read-intensive"};
      if (!exact.empty()) args.push_back(exact);
      Proc cmp = RunSsdlab(args);
      ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
      const auto sim = SimulatedColumn(cmp.out);
      ASSERT_TRUE(sim.count(write)) << cmp.out;
      iops[state] = std::stod(sim.at(write));
    }
    EXPECT_GT(iops["fresh"], 1.2 * iops["steady"]) << exact;
  }
  Proc bad =
      RunSsdlab({"import", dir / "fig.csv", "--db", db, "--run", "bad", "--iops-state", "tired"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Has(bad.err, "--iops-state 'tired'")) << bad.err;
  EXPECT_EQ(CountLines(bad.err), 1) << bad.err;
}

TEST(E2eTwin, ImportsFioJson) {
  TempDir dir;
  Write(dir / "fio.json", R"({"fio version": "fio-3.33",
    "global options": {"bs": "4k", "iodepth": "32"},
    "jobs": [
      {"jobname": "rr", "job options": {"rw": "randread", "numjobs": "4"},
       "read": {"iops": 50000.5, "bw_bytes": 204802048, "total_ios": 1000,
                "lat_ns": {"mean": 80000.0},
                "clat_ns": {"mean": 79000.0, "percentile": {"99.000000": 150000}}},
       "write": {"iops": 0, "bw_bytes": 0, "total_ios": 0}},
      {"jobname": "sw", "job options": {"rw": "write", "bs": "128k", "iodepth": "8"},
       "read": {"iops": 0, "bw_bytes": 0, "total_ios": 0},
       "write": {"iops": 4000, "bw_bytes": 524288000, "total_ios": 1000,
                 "lat_ns": {"mean": 2000000.0}}}]})");
  const std::string db = dir / "r.db";
  Proc imp = RunSsdlab({"import", dir / "fio.json", "--db", db, "--run", "fio"});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  auto rows = SqlRows(db, "SELECT name, results FROM tests ORDER BY seq");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(Has(rows[0], "iops|")) << rows[0];
  EXPECT_TRUE(Has(rows[0], "\"threads\":4")) << rows[0];
  EXPECT_TRUE(Has(rows[0], "\"lat_p99_us\":150")) << rows[0];
  EXPECT_TRUE(Has(rows[1], "tp|")) << rows[1];
  EXPECT_TRUE(Has(rows[1], "\"mb_s\":524.288")) << rows[1];
  Write(dir / "junk.json", "{\"jobs\": 3}");
  Proc bad = RunSsdlab({"import", dir / "junk.json", "--db", db, "--run", "junk"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Has(bad.err, "jobs")) << bad.err;
}

TEST(E2eTwin, ReportOfAnImportedRunShowsItsFigures) {
  TempDir dir;
  const std::string db = dir / "r.db";
  Write(dir / "fig.csv", std::string(kHeader) +
                             "iops,4k,100,4,8,,30000,,,,,,,calibration,table 1\n"
                             "iops,4k,0,4,8,,9000,,,,,,,calibration,table 1\n"
                             "tp,128k,100,1,32,,,520,,,,,,predicted,table 3\n"
                             "wsat,4k,0,4,32,0,41000,,,,,,,calibration,figure 2\n"
                             "wsat,4k,0,4,32,800,12000,,,,,,,calibration,figure 2\n");
  ASSERT_EQ(RunSsdlab({"import", dir / "fig.csv", "--db", db, "--run", "pub"}).exit_code, 0);
  Proc rep = RunSsdlab({"report", "pub", "--db", db, "-o", dir / "pub.html"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string html = ReadFile(dir / "pub.html");
  EXPECT_TRUE(Has(html, "id=\"sec-imported-iops\"")) << "no IOPS section";
  EXPECT_TRUE(Has(html, "id=\"sec-imported-tp\""));
  EXPECT_TRUE(Has(html, "id=\"sec-imported-wsat\""));
  const auto charts = ChartsOf(html);
  const auto iops = ChartValues(charts, "imported-iops-iops-bars");
  ASSERT_TRUE(iops.is_array()) << charts.dump().substr(0, 400);
  ASSERT_EQ(iops.size(), 2u);
  EXPECT_EQ(iops[0]["value"], 30000);
  const auto wsat = ChartValues(charts, "imported-wsat-iops-curve");
  ASSERT_TRUE(wsat.is_array());
  ASSERT_EQ(wsat.size(), 2u);
  EXPECT_EQ(wsat[1]["x"], 800);
  EXPECT_EQ(wsat[1]["value"], 12000);
}

// Ctrl-C during an exact re-run (the tests side by side, each in a temporary database): exit
// 130 with one line, and the temporary databases are removed. The twin has 64 GiB, so the
// re-run's WSAT (4 capacities) lasts seconds of CPU; the signal goes once its databases exist.
TEST(E2eTwin, CtrlCStopsAnExactRerun) {
  TempDir dir;
  const std::string db = dir / "r.db";
  Proc pts = RunSsdlab({"pts", "--target", "sim:tiny", "--run", "m", "--db", db, "--spec", "review",
                        "--tests", "iops,wsat", "--round", "1s", "--wsat-round", "1s",
                        "--max-rounds", "5", "--progress", "none"});
  ASSERT_EQ(pts.exit_code, 0) << pts.err;
  const std::string tmp = dir / "tmp";
  fs::create_directory(tmp);
  const char* old = getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  pid_t pid = StartSsdlab(
      {"sim", "compare", "m", "--db", db, "--target", "sim:tiny?capacity=64GiB", "--exact"},
      dir / "out", dir / "err");
  if (old)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  auto rerunning = [&] { return !fs::is_empty(tmp); };
  for (int i = 0; i < 1200 && !rerunning(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(rerunning()) << ReadFile(dir / "err");
  kill(pid, SIGINT);
  ASSERT_EQ(Wait(pid), 130) << ReadFile(dir / "err");
  const std::string err = ReadFile(dir / "err");
  EXPECT_EQ(CountLines(err), 1) << err;
  EXPECT_TRUE(Has(err, "interrupted")) << err;
  EXPECT_TRUE(fs::is_empty(tmp)) << "temporary databases left behind";
}

// A short battery on the simulator, its report against twins: the same drive re-run exactly
// (every figure equal: the simulator is deterministic), a drive with more spare area, and the
// what-if runs.
TEST(E2eTwin, ReportAgainstATwinWithWhatIf) {
  TempDir dir;
  const std::string db = dir / "r.db";
  const std::string target = "sim:tiny?logical_block=512";
  Proc pts = RunSsdlab({"pts", "--target", target, "--run", "m", "--db", db, "--spec", "review",
                        "--tests", "iops,lat,wsat", "--round", "2s", "--wsat-round", "2s",
                        "--max-rounds", "6", "--progress", "none"});
  ASSERT_EQ(pts.exit_code, 0) << pts.err;
  Proc same = RunSsdlab({"report", "m", "--db", db, "-o", dir / "same.html", "--twin", target});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  const std::string html = ReadFile(dir / "same.html");
  EXPECT_TRUE(Has(html, "id=\"sec-twin\""));
  EXPECT_TRUE(Has(html, "Exact: the run's own tests (iops, lat, wsat)")) << "method not shown";
  const auto scatter = ChartValues(ChartsOf(html), "twin-scatter");
  ASSERT_TRUE(scatter.is_array());
  EXPECT_GT(scatter.size(), 10u);
  for (const auto& p : scatter) EXPECT_EQ(p["measured"], p["simulated"]) << p.dump();

  Proc what =
      RunSsdlab({"report", "m", "--db", db, "-o", dir / "what.html", "--twin",
                 "sim:tiny?logical_block=512&op=12", "--twin-method", "cheap", "--what-if"});
  ASSERT_EQ(what.exit_code, 0) << what.err;
  const std::string w = ReadFile(dir / "what.html");
  EXPECT_TRUE(Has(w, "id=\"sec-whatif\""));
  EXPECT_TRUE(Has(w, "Cheap evaluator"));
  const auto charts = ChartsOf(w);
  // More spare area, more sustained random write IOPS.
  const auto op = ChartValues(charts, "whatif-op");
  ASSERT_TRUE(op.is_array());
  double at0 = 0, at50 = 0;
  for (const auto& p : op) {
    if (p["what"] != "sustained (last third)") continue;
    if (p["op"] == 0) at0 = p["iops"];
    if (p["op"] == 50) at50 = p["iops"];
  }
  EXPECT_GT(at0, 0);
  EXPECT_GT(at50, 1.2 * at0);
  const auto wsat = ChartValues(charts, "whatif-wsat");
  ASSERT_TRUE(wsat.is_array());
  EXPECT_GE(wsat.back()["x"].get<double>(), 4.0);
  // Four drives read and write more than one (RAID 10: each write on two of them).
  const auto arrays = ChartValues(charts, "whatif-arrays-iops");
  ASSERT_TRUE(arrays.is_array());
  std::map<std::string, double> read, write;
  for (const auto& v : arrays) {
    const std::string cell = v["cell"];
    if (cell == "rnd rw=100/0 bs=4KiB") read[v["config"]] = v["value"];
    if (cell == "rnd rw=0/100 bs=4KiB") write[v["config"]] = v["value"];
  }
  ASSERT_EQ(read.size(), 3u) << arrays.dump();
  EXPECT_GT(read["4 x twin, RAID 10"], 1.5 * read["one twin"]);
  EXPECT_GT(write["4 x twin, RAID 10"], 1.3 * write["one twin"]);
  EXPECT_GT(write["4 x twin, RAID 5"], 0);

  Proc bad = RunSsdlab({"report", "m", "--db", db, "-o", dir / "b.html", "--what-if"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Has(bad.err, "--twin")) << bad.err;
  EXPECT_EQ(CountLines(bad.err), 1) << bad.err;

  // A twin file's victim policies, as sim fit judged them, are shown beside the errors; a
  // malformed list is refused in one line naming the file.
  const std::string twin = dir / "twin.toml";
  {
    std::ofstream(twin) << "base = \"tiny\"\nlogical_block = 512\n[fit]\nvictim_policies = [\n"
                           "  { gc = \"costbenefit\", objective = 0.0016, held_out_median_error = "
                           "{ all = 0.05, tp = 0.168 } },\n"
                           "  { gc = \"fifo\", objective = 0.0019, held_out_median_error = "
                           "{ all = 0.05, tp = 0.358 } },\n]\n";
  }
  Proc policies = RunSsdlab({"report", "m", "--db", db, "-o", dir / "p.html", "--twin",
                             "sim:" + twin, "--twin-method", "cheap"});
  ASSERT_EQ(policies.exit_code, 0) << policies.err;
  const std::string ph = ReadFile(dir / "p.html");
  EXPECT_TRUE(Has(ph, "GC victim policies at the twin's numbers"));
  EXPECT_TRUE(Has(ph, "<td>fifo</td>")) << "policy rows missing";
  EXPECT_TRUE(Has(ph, "tp 35.8%"));
  EXPECT_FALSE(Has(html, "GC victim policies")) << "a preset target has no policies to show";
  { std::ofstream(twin) << "base = \"tiny\"\n[fit]\nvictim_policies = [\"fifo\"]\n"; }
  Proc malformed = RunSsdlab({"report", "m", "--db", db, "-o", dir / "m.html", "--twin",
                              "sim:" + twin, "--twin-method", "cheap"});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_TRUE(Has(malformed.err, "twin.toml")) << malformed.err;
  EXPECT_EQ(CountLines(malformed.err), 1) << malformed.err;
}

}  // namespace
}  // namespace ssdlab::test
