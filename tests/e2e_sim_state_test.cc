// End-to-end tests of simulated drives that keep their state between commands
// (`sim:PRESET?state=PATH`): a command sequence equals one process, Ctrl-C still saves, purge
// resets, info shows the fill.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e_util.h"
#include "sim/sim.h"
#include "workload/parse.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kDrive = "sim:dc-sata-mixed?scale=4096";

WorkloadArgs Args(const std::string& rw, const std::string& io_size, const std::string& runtime,
                  uint32_t qd) {
  WorkloadArgs a;  // the defaults of `ssdlab run`
  a.rw = rw;
  a.io_size = io_size;
  a.runtime = runtime;
  a.qd = qd;
  return a;
}

TEST(SimStateE2E, TwoCommandsEqualOneProcessDoingBothPhases) {
  TempDir t;
  const std::string target = kDrive + "&state=" + (t / "drive.st");
  Proc w = RunSsdlab(
      {"run", "--target", target, "--rw", "write", "--io-size", "2x", "--json", t / "w.json"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_TRUE(Has(w.out, "new, the drive started factory-fresh")) << w.out;
  ASSERT_TRUE(fs::exists(t / "drive.st"));
  Proc r = RunSsdlab({"run", "--target", target, "--rw", "randread", "--qd", "4", "--runtime", "2s",
                      "--json", t / "r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "loaded, 100.0% of the drive's space mapped")) << r.out;
  EXPECT_FALSE(Has(r.out, "unwritten space")) << r.out;
  const json got = ReadJson(t / "r.json");

  // The same two phases in one process, as a PTS-style phase sequence does them.
  auto b = OpenSimBackend(kDrive);
  ASSERT_TRUE(b.ok()) << b.status().message();
  SimBackend& sim = **b;
  for (const WorkloadArgs& a : {Args("write", "2x", "", 1)}) {
    auto spec = ResolveWorkload(a, sim.info().size_bytes, sim.info().logical_block_bytes);
    ASSERT_TRUE(spec.ok());
    ASSERT_TRUE(sim.RunPhase(spec.value(), RunControl{}).ok());
  }
  auto spec = ResolveWorkload(Args("randread", "", "2s", 4), sim.info().size_bytes,
                              sim.info().logical_block_bytes);
  ASSERT_TRUE(spec.ok());
  auto want = sim.RunPhase(spec.value(), RunControl{});
  ASSERT_TRUE(want.ok());
  const DirectionStats& rd = want->dirs[static_cast<size_t>(Direction::kRead)];
  const json& res = got["results"]["read"];
  EXPECT_EQ(res["ios"].get<uint64_t>(), rd.ios);
  EXPECT_EQ(res["bytes"].get<uint64_t>(), rd.bytes);
  EXPECT_EQ(res["lat_ns"]["min"].get<double>(), static_cast<double>(rd.latency.min()));
  EXPECT_EQ(res["lat_ns"]["max"].get<double>(), static_cast<double>(rd.latency.max()));
  EXPECT_DOUBLE_EQ(res["lat_ns"]["mean"].get<double>(), rd.latency.Mean());
  EXPECT_DOUBLE_EQ(res["lat_ns"]["p99"].get<double>(), rd.latency.Percentile(99));
  EXPECT_EQ(got["measured_ns"].get<uint64_t>(), want->measured_ns);
  ASSERT_TRUE(got.contains("sim"));
  for (const auto& [k, v] : want->counters) EXPECT_EQ(got["sim"][k].get<double>(), v) << k;
  EXPECT_GT(got["sim"]["nand_page_reads"].get<double>(), 0);
}

TEST(SimStateE2E, FreshDriveSaysReadsFoundUnwrittenSpaceAndPrefillFixesIt) {
  TempDir t;
  Proc r = RunSsdlab({"run", "--target", kDrive, "--rw", "randread", "--runtime", "200ms", "--json",
                      t / "r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = ReadJson(t / "r.json");
  ASSERT_EQ(doc["notes"].size(), 1u) << doc["notes"];
  EXPECT_EQ(doc["notes"][0],
            "100% of reads found unwritten space and were answered without NAND reads (use "
            "--prefill or precondition first)");
  EXPECT_EQ(doc["sim"]["nand_page_reads"], 0.0);
  Proc f = RunSsdlab({"run", "--target", kDrive, "--rw", "randread", "--runtime", "200ms",
                      "--prefill", "--json", t / "f.json"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json filled = ReadJson(t / "f.json");
  EXPECT_EQ(filled["sim"]["unmapped_read_pages"], 0.0);
  EXPECT_GT(filled["sim"]["nand_page_reads"].get<double>(), 0);
  for (const auto& n : filled["notes"]) EXPECT_FALSE(Has(n.get<std::string>(), "unwritten"));
  // Random reads of a written drive are slower: NAND is read.
  EXPECT_LT(filled["results"]["read"]["iops"].get<double>(),
            doc["results"]["read"]["iops"].get<double>());
}

TEST(SimStateE2E, CtrlCStillSavesAndTheStateLoads) {
  TempDir t;
  const std::string target = "sim:tiny?state=" + (t / "drive.st");
  pid_t pid = StartSsdlab({"run", "--target", target, "--rw", "randwrite", "--qd", "8", "--runtime",
                           "100000s", "--interval", "0", "--lat-log", t / "lat.csv"},
                          t / "out", t / "err");
  // The lat log (written to a temporary file beside lat.csv until the end) receives its first
  // batches once the phase is running: wait for them, not for a fixed time.
  auto logged = [&] {
    for (const auto& e : fs::directory_iterator(t.path()))
      if (Has(e.path().filename().string(), "lat.csv") && e.file_size() > 100000) return true;
    return false;
  };
  for (int i = 0; i < 1200 && !logged(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(logged()) << ReadFile(t / "err");
  kill(pid, SIGINT);
  ASSERT_EQ(Wait(pid), 130) << ReadFile(t / "err");
  ASSERT_TRUE(fs::exists(t / "drive.st")) << ReadFile(t / "err");
  EXPECT_TRUE(Has(ReadFile(t / "err"), "interrupted: sim state " + (t / "drive.st") +
                                           " saved with the drive as the interruption left it"))
      << ReadFile(t / "err");
  Proc info = RunSsdlab({"info", "--target", target, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const json st = json::parse(info.out)["state"];
  EXPECT_TRUE(st["exists"].get<bool>());
  EXPECT_GT(st["fill_pct"].get<double>(), 0.0);
  EXPECT_GT(st["host_bytes_written"].get<uint64_t>(), 0u);
  Proc again = RunSsdlab({"run", "--target", target, "--rw", "randread", "--runtime", "10ms"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Has(again.out, "loaded")) << again.out;
  for (const auto& e : fs::directory_iterator(t.path()))
    EXPECT_FALSE(Has(e.path().filename().string(), ".tmp")) << e.path();
}

TEST(SimStateE2E, InfoShowsFillAndPurgeResets) {
  TempDir t;
  const std::string target = "sim:tiny?state=" + (t / "drive.st");
  Proc none = RunSsdlab({"info", "--target", target});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(Has(none.out, "none yet")) << none.out;
  ASSERT_EQ(RunSsdlab({"run", "--target", target, "--rw", "write", "--range", "0%-50%", "--bs",
                       "128KiB", "--qd", "8"})
                .exit_code,
            0);
  ASSERT_EQ(RunSsdlab({"run", "--target", target, "--rw", "randwrite", "--range", "0%-50%",
                       "--io-size", "1x", "--qd", "8"})
                .exit_code,
            0);
  Proc info = RunSsdlab({"info", "--target", target});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_TRUE(Has(info.out, "state fill")) << info.out;
  EXPECT_TRUE(Has(info.out, "state write amplification")) << info.out;
  EXPECT_TRUE(Has(info.out, "state erase count")) << info.out;
  json st = json::parse(RunSsdlab({"info", "--target", target, "--json"}).out)["state"];
  EXPECT_NEAR(st["fill_pct"].get<double>(), 50.0, 0.5);
  EXPECT_GE(st["write_amplification"].get<double>(), 1.0);
  const uint64_t wear = st["erase_count_max"];

  Proc refused = RunSsdlab({"purge", "--target", target});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(Has(refused.err, "pass --destructive")) << refused.err;
  EXPECT_EQ(CountLines(refused.err), 1);
  Proc dry = RunSsdlab({"purge", "--target", target, "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  Proc purged = RunSsdlab({"purge", "--target", target, "--destructive"});
  ASSERT_EQ(purged.exit_code, 0) << purged.err;
  st = json::parse(RunSsdlab({"info", "--target", target, "--json"}).out)["state"];
  EXPECT_EQ(st["fill_pct"].get<double>(), 0.0);
  EXPECT_EQ(st["host_bytes_written"].get<uint64_t>(), 0u);
  EXPECT_EQ(st["virtual_time_s"].get<double>(), 0.0);
  EXPECT_EQ(st["erase_count_max"].get<uint64_t>(), wear);  // wear kept, as a secure erase does
  Proc read = RunSsdlab({"run", "--target", target, "--rw", "randread", "--runtime", "10ms"});
  EXPECT_TRUE(Has(read.out, "100% of reads found unwritten space")) << read.out;
}

TEST(SimStateE2E, ForeignDamagedAndOtherParameterStatesAreOneLineErrors) {
  TempDir t;
  const std::string good = t / "good.st";
  ASSERT_EQ(RunSsdlab({"run", "--target", "sim:tiny?state=" + good, "--rw", "write", "--bs", "1MiB",
                       "--qd", "4"})
                .exit_code,
            0);
  {
    std::ofstream(t / "text.st") << "not a state\n";
    std::string bytes = ReadFile(good);
    std::ofstream(t / "short.st", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"run", "--target", "sim:tiny?state=" + (t / "text.st"), "--runtime", "10ms"},
            "is not an ssdlab simulator state"},
           {{"run", "--target", "sim:tiny?state=" + (t / "short.st"), "--runtime", "10ms"},
            "is damaged or truncated"},
           {{"run", "--target", "sim:tiny?op=20&state=" + good, "--runtime", "10ms"},
            "was made for op=12.5, this target has op=20"},
           {{"info", "--target", "sim:tiny?op=20&state=" + good}, "was made for op=12.5"},
           {{"purge", "--target", "sim:tiny?state=" + (t / "text.st"), "--destructive"},
            "is not an ssdlab simulator state"},
           {{"run", "--target", "sim:tiny?state=" + good, "--target", "sim:tiny?state=" + good,
             "--layout", "raid1", "--runtime", "10ms"},
            "is the same file as state= of --target"},
       }) {
    Proc p = RunSsdlab(c.args);
    EXPECT_EQ(p.exit_code, 2) << c.args[2] << ": " << p.err;
    EXPECT_TRUE(Has(p.err, c.message)) << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << "one-line error: " << p.err;
  }
  EXPECT_EQ(ReadFile(t / "text.st"), "not a state\n") << "a foreign file was overwritten";
}

TEST(SimStateE2E, ProfileAndPtsSaveTheirDriveAndProfilePrefills) {
  TempDir t;
  const std::string target = "sim:tiny?state=" + (t / "drive.st");
  Proc p = RunSsdlab({"profile", "cdm", "--target", target, "--db", t / "p.db", "--run", "c",
                      "--progress", "none", "--prefill", "--size", "32MiB", "--passes", "1",
                      "--time", "200ms", "--pause", "0"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(Has(p.err, "--prefill writes")) << p.err;
  json st = json::parse(RunSsdlab({"info", "--target", target, "--json"}).out)["state"];
  EXPECT_EQ(st["fill_pct"].get<double>(), 100.0);
  Proc both = RunSsdlab(
      {"profile", "cdm", "--target", target, "--db", t / "p.db", "--prefill", "--fill", "0,90"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(Has(both.err, "--prefill: --fill purges the drive")) << both.err;

  Proc pts = RunSsdlab({"pts",   "--target",   target,  "--db",         t / "p.db", "--run",
                        "r",     "--tests",    "iops",  "--iops-bs",    "4KiB",     "--iops-mixes",
                        "0/100", "--round",    "100ms", "--max-rounds", "5",        "--wipc",
                        "0.5x",  "--progress", "none"});
  ASSERT_EQ(pts.exit_code, 0) << pts.err;
  st = json::parse(RunSsdlab({"info", "--target", target, "--json"}).out)["state"];
  // PTS purged the drive, then preconditioned half of it and wrote randomly: it ends as the
  // drive ended.
  EXPECT_GT(st["fill_pct"].get<double>(), 40.0);
  EXPECT_LT(st["fill_pct"].get<double>(), 100.0);
}

}  // namespace
}  // namespace ssdlab::test
