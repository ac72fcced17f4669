// The digital twin end to end: preset files through `sim describe`, `import` of a CSV of
// published figures and of fio JSON, `sim fit` and `sim compare`, and their bad input.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

const char* const kHeader =
    "test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,"
    "lat_p99_99_us,lat_max_us,role,source\n";

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

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

  Proc fit = RunSsdlab({"sim", "fit", "pub", "--db", db, "--base", "tiny", "--fit",
                        "ctrl_read_us,ctrl_write_us", "--max-evals", "8", "-o", dir / "twin.toml"});
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

}  // namespace
}  // namespace ssdlab::test
