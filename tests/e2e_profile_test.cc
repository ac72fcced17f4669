// End-to-end tests of `ssdlab profile`: every profile on the simulator and on a file (with
// shortened options), what the store holds, the simulator's cache cliff and OP advice, user
// profile files, and bad inputs. Nothing here depends on timing: assertions on real files
// check structure only; figures are asserted on the (deterministic) simulator.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

int Count(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

// Runs a profile, checks it is stored as a "profile" run with one done test, returns the run JSON.
json RunProfile(const TempDir& t, const std::string& name, const std::string& target,
                const std::vector<std::string>& more, const std::string& run = "r") {
  Proc p = RunSsdlab(Args({"profile", name, "--target", target, "--db", t / "p.db", "--run", run,
                           "--json", t / (run + ".json"), "--progress", "none"},
                          more));
  EXPECT_EQ(p.exit_code, 0) << name << ": " << p.err;
  if (p.exit_code != 0) return json::object();
  json doc = ReadJson(t / (run + ".json"));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["context"]["status"], "done");
  EXPECT_EQ(doc["tests"].size(), 1u);
  EXPECT_EQ(doc["tests"][0]["status"], "done");
  EXPECT_GT(
      Count(t / "p.db", "SELECT count(*) FROM runs WHERE kind='profile' AND name='" + run + "'"),
      0);
  EXPECT_GT(Count(t / "p.db", "SELECT count(*) FROM phases"), 0);
  EXPECT_GT(Count(t / "p.db", "SELECT count(*) FROM histograms"), 0);
  return doc;
}

const json& Level(const json& doc, size_t i = 0) { return doc["tests"][0]["results"]["levels"][i]; }

// Shortened options per profile, shared by the simulator and file runs.
const std::vector<std::string> kCdm = {"--size", "32MiB", "--passes", "2",
                                       "--time", "300ms", "--pause",  "100ms"};
const std::vector<std::string> kAtto = {"--size", "8MiB", "--min-bs", "4KiB", "--max-bs", "1MiB"};
const std::vector<std::string> kAsSsd = {"--size", "32MiB", "--time", "300ms"};
const std::vector<std::string> kCurve = {"--time",   "300ms",      "--ramp",    "0",
                                         "--points", "50,100,120", "--section", "25"};

TEST(ProfileE2E, CdmDefaultFileShrinksToTheRoomAfterAFill) {
  // The default 1 GiB test file does not fit in the 10% a 90% fill leaves of a small drive:
  // it shrinks to that room (with a note) instead of being refused.
  TempDir t;
  json doc = RunProfile(t, "cdm", "sim:tiny",
                        {"--passes", "1", "--time", "100ms", "--pause", "0", "--fill", "0,90"});
  ASSERT_FALSE(doc.empty());
  const json& lv = Level(doc, 1);
  ASSERT_EQ(lv["notes"].size(), 1u);
  EXPECT_NE(lv["notes"][0].get<std::string>().find("shrunk from 1 GiB"), std::string::npos)
      << lv["notes"].dump();
  EXPECT_GT(lv["results"]["items"][0]["read"]["mb_s"].get<double>(), 0);
}

TEST(ProfileE2E, CdmOnTheSimulatorWithFillLevels) {
  TempDir t;
  json doc = RunProfile(t, "cdm", "sim:tiny", Args(kCdm, {"--fill", "0,90"}));
  ASSERT_FALSE(doc.empty());
  const json& r = doc["tests"][0]["results"];
  ASSERT_EQ(r["levels"].size(), 2u);
  EXPECT_EQ(Level(doc, 0)["fill_pct"], 0.0);
  EXPECT_EQ(Level(doc, 1)["fill_pct"], 90.0);
  EXPECT_GT(Level(doc, 1)["workspace_begin_bytes"].get<uint64_t>(), 400u << 20)
      << "the test file lies in the free 10%";
  for (const json& lv : r["levels"]) {
    const json& items = lv["results"]["items"];
    ASSERT_EQ(items.size(), 4u);
    EXPECT_EQ(items[0]["name"], "SEQ1M Q8T1");
    for (const json& it : items) {
      for (const char* d : {"read", "write"}) {
        EXPECT_GT(it[d]["mb_s"].get<double>(), 0) << it["name"] << d;
        EXPECT_GT(it[d]["iops"].get<double>(), 0);
        EXPECT_GT(it[d]["mean_us"].get<double>(), 0);
        EXPECT_EQ(it[d]["passes_mb_s"].size(), 2u);
        // Best pass reported.
        double best = 0;
        for (const json& v : it[d]["passes_mb_s"]) best = std::max(best, v.get<double>());
        EXPECT_DOUBLE_EQ(it[d]["mb_s"].get<double>(), best);
      }
    }
  }
  EXPECT_FALSE(r["differences"].empty());
  EXPECT_TRUE(r["differences"][0].contains("change_pct"));
  // Deep queues beat QD1 on the simulated drive.
  const json& items = Level(doc)["results"]["items"];
  EXPECT_GT(items[2]["read"]["iops"].get<double>(), items[3]["read"]["iops"].get<double>());
}

TEST(ProfileE2E, CdmNvmeAttoAsSsdFillOnTheSimulator) {
  TempDir t;
  json nv = RunProfile(t, "cdm-nvme", "sim:tiny", kCdm, "nvme");
  ASSERT_FALSE(nv.empty());
  EXPECT_EQ(Level(nv)["results"]["items"][2]["name"], "RND4K Q32T16");

  json atto = RunProfile(t, "atto", "sim:tiny", kAtto, "atto");
  ASSERT_FALSE(atto.empty());
  const json& rows = Level(atto)["results"]["rows"];
  ASSERT_EQ(rows.size(), 9u) << "4 KiB .. 1 MiB doubling";
  EXPECT_EQ(rows[0]["block_bytes"], 4096);
  EXPECT_GT(rows[8]["read_mb_s"].get<double>(), rows[0]["read_mb_s"].get<double>())
      << "throughput grows with block size";

  json as = RunProfile(t, "as-ssd", "sim:tiny", kAsSsd, "as");
  ASSERT_FALSE(as.empty());
  const json& res = Level(as)["results"];
  EXPECT_GT(res["score"]["total"].get<double>(), 0);
  EXPECT_GT(res["4k_64thrd"]["read_mb_s"].get<double>(), res["4k"]["read_mb_s"].get<double>());
  EXPECT_NE(res["score_formula"].get<std::string>().find("Tom's Hardware"), std::string::npos);
  EXPECT_GT(res["access_time_ms"]["read"].get<double>(), 0);

  json fill = RunProfile(t, "fill", "sim:tiny", {"--percent", "90"}, "fill");
  ASSERT_FALSE(fill.empty());
  EXPECT_EQ(Level(fill)["results"]["filled_bytes"], 460u << 20) << "90% of 512 MiB, MiB-aligned";
}

TEST(ProfileE2E, SurfaceShowsTheSlcCliffOnClientNvme) {
  TempDir t;
  json doc = RunProfile(t, "surface", "sim:client-nvme-tlc?scale=1024", {"--segments", "40"});
  ASSERT_FALSE(doc.empty());
  const json& res = Level(doc)["results"];
  ASSERT_EQ(res["points"].size(), 40u);
  const json& cliff = res["cliff"];
  ASSERT_TRUE(cliff["found"].get<bool>()) << res.dump();
  EXPECT_GT(cliff["position_pct"].get<double>(), 0);
  EXPECT_LT(cliff["position_pct"].get<double>(), 90);
  EXPECT_LT(cliff["after_mb_s"].get<double>(), 0.6 * cliff["before_mb_s"].get<double>());
  EXPECT_GT(res["read_mean_mb_s"].get<double>(), 0);
}

TEST(ProfileE2E, SurfaceOnADriveWithoutCacheHasNoCliff) {
  TempDir t;
  json doc = RunProfile(t, "surface", "sim:tiny", {"--segments", "16"});
  ASSERT_FALSE(doc.empty());
  EXPECT_FALSE(Level(doc)["results"]["cliff"]["found"].get<bool>());
}

TEST(ProfileE2E, EveryCurveOnTheSimulator) {
  TempDir t;
  const std::vector<std::string> curves = {"4k-randread",
                                           "4k-randwrite",
                                           "64k-seqread",
                                           "64k-seqwrite",
                                           "sql",
                                           "sql-90-10",
                                           "sql-80-20",
                                           "oracle",
                                           "oracle-90-10",
                                           "oracle-80-20",
                                           "vdi-full-clone-boot",
                                           "vdi-full-clone-login",
                                           "vdi-full-clone-monday",
                                           "vdi-linked-clone-boot",
                                           "vdi-linked-clone-login",
                                           "vdi-linked-clone-monday"};
  for (const std::string& c : curves) {
    json doc = RunProfile(t, c, "sim:tiny", kCurve, c);
    ASSERT_FALSE(doc.empty()) << c;
    const json& res = Level(doc)["results"];
    EXPECT_EQ(res["mix"]["name"], c);
    EXPECT_FALSE(res["mix"]["source"].get<std::string>().empty());
    EXPECT_EQ(res["preparation"]["filled_bytes"], 512u << 20)
        << c << ": the whole target is filled first";
    EXPECT_EQ(res["section_bytes"], 128u << 20) << c << ": 25% section";
    double max = res["max"]["iops"].get<double>();
    ASSERT_GT(max, 0) << c;
    ASSERT_EQ(res["points"].size(), 3u);
    // A paced point below the maximum delivers its rate; above it, latency grows.
    EXPECT_NEAR(res["points"][0]["iops"].get<double>(), 0.5 * max, 0.05 * max) << c;
    EXPECT_GE(res["points"][2]["mean_ns"].get<double>(), res["points"][0]["mean_ns"].get<double>())
        << c;
    for (const char* k : {"iops", "mb_s", "mean_ns", "p99_ns", "target_pct", "rate_iops"})
      EXPECT_TRUE(res["points"][0].contains(k)) << k;
  }
  // Thread counts as published (the DC450R review).
  json rr = RunProfile(t, "4k-randread", "sim:tiny",
                       {"--time", "300ms", "--ramp", "0", "--points", "100"}, "threads");
  EXPECT_EQ(Level(rr)["results"]["threads"], 128);
}

TEST(ProfileE2E, OpAdvisorRecommendsOverProvisioningOnDcSata) {
  TempDir t;
  json doc = RunProfile(t, "op-advisor", "sim:dc-sata-read-intensive?scale=4096",
                        {"--op", "0:30:10", "--time", "40s", "--interval", "500ms"});
  ASSERT_FALSE(doc.empty());
  const json& res = Level(doc)["results"];
  ASSERT_EQ(res["points"].size(), 4u);
  const json& rec = res["recommendation"];
  EXPECT_GT(rec["op_pct"].get<double>(), 0) << res["recommendation"].dump();
  EXPECT_GT(rec["sustained_iops"].get<double>(), res["points"][0]["sustained_iops"].get<double>());
  EXPECT_GT(rec["gain_pct"].get<double>(), 0);
  EXPECT_GT(rec["capacity_cost_bytes"].get<uint64_t>(), 0u);
  // OP 0% gives up no capacity (not the rounding of the range to whole MiB).
  EXPECT_EQ(res["points"][0]["capacity_cost_bytes"].get<uint64_t>(), 0u);
  // IOPS against time: fresh, then the drop to the sustained level at 0% OP.
  const json& p0 = res["points"][0];
  EXPECT_GE(p0["series"].size(), 70u);
  EXPECT_GT(p0["initial_iops"].get<double>(), 1.2 * p0["sustained_iops"].get<double>());
  EXPECT_GT(p0["drop_at_s"].get<double>(), 0);
}

// The last phase's simulator counters of a run, from the store.
json LastCounters(const std::string& db_path, const std::string& run) {
  sqlite3* db = nullptr;
  json out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    std::string sql =
        "SELECT p.counters FROM phases p JOIN tests t ON p.test_id = t.id JOIN runs r ON "
        "t.run_id = r.id WHERE r.name = '" +
        run + "' ORDER BY p.id DESC LIMIT 1";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      json c = json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
      for (const json& kv : c["values"]) out[kv[0].get<std::string>()] = kv[1];
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

// The DC500M over-provisioning study's question on simulated drives: the OP advisor on RAID 10 and
// RAID 5 arrays of four DC400-class drives. RAID 5's small writes cost 4 member I/Os (read data and
// parity, write both) against RAID 10's 2, so it sustains fewer IOPS; spare area helps both.
TEST(ProfileE2E, OpAdvisorOnRaid10AndRaid5Arrays) {
  TempDir t;
  const std::string d = "sim:dc-sata-read-intensive?scale=4096";
  json sustained, gain;
  for (const std::string layout : {"raid10", "raid5"}) {
    json doc = RunProfile(t, "op-advisor", d,
                          {"--target", d, "--target", d, "--target", d, "--layout", layout, "--op",
                           "0:20:10", "--time", "40s", "--interval", "500ms"},
                          layout);
    ASSERT_FALSE(doc.empty());
    EXPECT_EQ(doc["context"]["target"]["kind"], "sim");
    const json& rec = Level(doc)["results"]["recommendation"];
    EXPECT_GT(rec["op_pct"].get<double>(), 0) << layout;
    sustained[layout] = rec["sustained_iops"];
    gain[layout] = rec["gain_pct"];
    json c = LastCounters(t / "p.db", layout);
    EXPECT_EQ(c["array_members"], 4) << c.dump();
    EXPECT_DOUBLE_EQ(c["array_member_ios_per_host_io"].get<double>(),
                     layout == "raid5" ? 4.0 : 2.0);
  }
  // RAID 5's read-modify-write costs it sustained IOPS; spare area helps both layouts (the order
  // of the two gains depends on the drive model: the preset's read-after-write flush holds
  // RAID 5's member reads and not RAID 10's writes, see the README). With the preset's paced
  // lazy GC batches RAID 5 gains 19% (26% with batches at once), RAID 10 63%.
  EXPECT_LT(sustained["raid5"].get<double>(), sustained["raid10"].get<double>());
  EXPECT_GT(gain["raid5"].get<double>(), 15) << gain.dump();
  EXPECT_GT(gain["raid10"].get<double>(), 20) << gain.dump();
}

TEST(ProfileE2E, FileIoOnTheSimulator) {
  TempDir t;
  json doc = RunProfile(t, "fileio", "sim:tiny", {"--threads", "16", "--time", "300ms"});
  ASSERT_FALSE(doc.empty());
  const json& modes = Level(doc)["results"]["modes"];
  ASSERT_EQ(modes.size(), 3u);
  EXPECT_GT(modes[0]["read_iops"].get<double>(), 0);
  EXPECT_EQ(modes[0]["write_iops"].get<double>(), 0);
  EXPECT_GT(modes[1]["write_iops"].get<double>(), 0);
  // rndrw: 1.5 reads per write (sysbench's default), within sampling noise.
  double ratio = modes[2]["read_iops"].get<double>() / modes[2]["write_iops"].get<double>();
  EXPECT_NEAR(ratio, 1.5, 0.15);
}

// --time-scale: the profile's default durations over N on the drive at scale N (durations given
// win), the scale in the stored target and options; auto: the default phase time / 10 s at most
// the preset's scale (fileio: 120 s / 10 s = 12), or the scale the target sets; on a drive of
// 1/N of the blocks a phase N times shorter writes the same share of it, so fileio's random
// writes find a drive as fresh as the full one's.
TEST(ProfileE2E, TimeScaleDividesTheDefaultDurationsAndScalesTheTarget) {
  TempDir t;
  struct Case {
    std::string profile, target, time_scale, stored_target;
    std::vector<std::string> more;
    uint32_t n;
    uint64_t time_ns;  // the phase time run
  };
  for (const Case& c : {
           Case{"fileio",
                "sim:dc-sata-mixed",
                "auto",
                "sim:dc-sata-mixed?scale=12",
                {"--mode", "rndwr"},
                12,
                10'000'000'000},
           Case{"fileio",
                "sim:dc-sata-mixed?scale=64",
                "auto",
                "sim:dc-sata-mixed?scale=64",
                {"--mode", "rndwr"},
                64,
                1'875'000'000},
           Case{"fileio",
                "sim:dc-sata-mixed",
                "24",
                "sim:dc-sata-mixed?scale=24",
                {"--mode", "rndwr", "--time", "2s"},
                24,
                2'000'000'000},
       }) {
    const std::string run = "ts" + std::to_string(c.n);
    json doc =
        RunProfile(t, c.profile, c.target, Args({"--time-scale", c.time_scale}, c.more), run);
    ASSERT_FALSE(doc.empty());
    const json& config = doc["context"]["config"];
    EXPECT_EQ(config["args"]["target"], c.stored_target);
    EXPECT_EQ(config["args"]["time_scale"], std::to_string(c.n));
    EXPECT_EQ(config["options"]["time_scale"], c.n);
    EXPECT_EQ(Level(doc)["results"]["time_ns"], c.time_ns);
  }
  // The DC600M's review measured 86k random-write IOPS in sysbench fileio (120 s on the 1.9 TB
  // drive, fresh); the preset's own scale (1/256) for 120 s writes 20x its capacity and
  // saturates it, the time-scaled run stays fresh as the review's drive did.
  json unscaled = RunProfile(t, "fileio", "sim:dc-sata-mixed", {"--mode", "rndwr"}, "plain");
  json scaled = ReadJson(t / "ts12.json");
  ASSERT_FALSE(unscaled.empty());
  const double fresh = Level(scaled)["results"]["modes"][0]["write_iops"].get<double>();
  const double saturated = Level(unscaled)["results"]["modes"][0]["write_iops"].get<double>();
  EXPECT_GT(fresh, saturated * 1.15) << fresh << " " << saturated;
}

TEST(ProfileE2E, UserProfileFiles) {
  TempDir t;
  std::string path = t / "my.toml";
  std::ofstream(path) << "name = \"mine\"\n"
                         "[[phase]]\n"
                         "name = \"warm\"\n"
                         "rw = \"write\"\n"
                         "bs = \"1MiB\"\n"
                         "qd = 8\n"
                         "io_size = \"1x\"\n"
                         "[[phase]]\n"
                         "rw = \"randrw\"\n"
                         "rwmix_read = 70\n"
                         "bs = \"4KiB:70,64KiB:30\"\n"
                         "qd = 16\n"
                         "runtime = \"300ms\"\n"
                         "idle_after = \"1s\"\n";
  json doc = RunProfile(t, path, "sim:tiny", {});
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(doc["tests"][0]["name"], "mine");
  const json& phases = Level(doc)["results"]["phases"];
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0]["name"], "warm");
  EXPECT_EQ(phases[1]["name"], "phase 2");
  EXPECT_GT(phases[1]["iops"].get<double>(), 0);
  EXPECT_EQ(phases[1]["idle_after_ns"], 1'000'000'000u);
  // With --time-scale, a user profile's runtimes and idle times are its defaults: divided.
  json scaled = RunProfile(t, path, "sim:tiny", {"--time-scale", "4"}, "scaled");
  ASSERT_FALSE(scaled.empty());
  EXPECT_EQ(Level(scaled)["results"]["phases"][1]["idle_after_ns"], 250'000'000u);
  // The measured time is the runtime plus the drain of the I/Os in flight at its end, counted
  // at the queue's depth (backend/phase_recorder.h): a few ms at QD 16 on sim:tiny.
  const uint64_t scaled_ns = Level(scaled)["results"]["phases"][1]["metrics"]["measured_ns"];
  EXPECT_GE(scaled_ns, 75'000'000u);
  EXPECT_LT(scaled_ns, 75'000'000u + 5'000'000u);
  const uint64_t full_ns = phases[1]["metrics"]["measured_ns"];
  EXPECT_GE(full_ns, 300'000'000u);
  EXPECT_LT(full_ns, 300'000'000u + 5'000'000u);

  // A curve from a profile file, based on a built-in mix with one field changed.
  std::string curve = t / "sql95.toml";
  std::ofstream(curve) << "[curve]\nbase = \"sql\"\nread_pct = 99\nthreads = 8\n";
  json c = RunProfile(t, curve, "sim:tiny", Args(kCurve, {"--curve-fill", "0"}), "curve");
  ASSERT_FALSE(c.empty());
  const json& mix = Level(c)["results"]["mix"];
  EXPECT_EQ(mix["read_pct"], 99.0);
  EXPECT_EQ(mix["threads"], 8);
  EXPECT_EQ(mix["block_sizes"].size(), 3u) << "the rest comes from the base";
  EXPECT_TRUE(Level(c)["results"]["preparation"].is_null());
}

// Every profile on a file, shortened: structure only (timing varies).
TEST(ProfileE2E, EveryProfileOnAFile) {
  TempDir t;
  std::string f = t / "target.img";
  const std::vector<std::string> create = {"--target-size", "128MiB"};
  json cdm = RunProfile(t, "cdm", f,
                        Args(create, {"--size", "32MiB", "--time", "300ms", "--passes", "1",
                                      "--pause", "0", "--fill", "0,50"}),
                        "cdm");
  ASSERT_FALSE(cdm.empty());
  EXPECT_EQ(cdm["tests"][0]["results"]["levels"].size(), 2u);
  EXPECT_NE(Level(cdm, 0)["preparation"]["purge_method"].get<std::string>().find("punch"),
            std::string::npos);
  EXPECT_GT(Level(cdm)["results"]["items"][0]["read"]["mb_s"].get<double>(), 0);
  json atto =
      RunProfile(t, "atto", f, {"--size", "4MiB", "--min-bs", "4KiB", "--max-bs", "1MiB"}, "atto");
  EXPECT_EQ(Level(atto)["results"]["rows"].size(), 9u);
  json as = RunProfile(t, "as-ssd", f, {"--size", "32MiB", "--time", "200ms"}, "as");
  EXPECT_GT(Level(as)["results"]["score"]["total"].get<double>(), 0);
  json surf = RunProfile(t, "surface", f, {"--segments", "4"}, "surface");
  EXPECT_EQ(Level(surf)["results"]["points"].size(), 4u);
  json curve =
      RunProfile(t, "oracle", f,
                 {"--time", "200ms", "--ramp", "0", "--points", "50", "--threads", "8"}, "oracle");
  EXPECT_EQ(Level(curve)["results"]["points"].size(), 1u);
  json op = RunProfile(
      t, "op-advisor", f,
      {"--op", "0,20", "--time", "500ms", "--interval", "100ms", "--threads", "2", "--qd", "4"},
      "op");
  EXPECT_EQ(Level(op)["results"]["points"].size(), 2u);
  EXPECT_TRUE(Level(op)["results"].contains("recommendation"));
  json fill = RunProfile(t, "fill", f, {"--percent", "50"}, "fill");
  EXPECT_EQ(Level(fill)["results"]["filled_bytes"], 64u << 20);
  std::string path = t / "u.toml";
  std::ofstream(path) << "[[phase]]\nrw = \"randread\"\nruntime = \"200ms\"\nqd = 4\n";
  json user = RunProfile(t, path, f, {}, "user");
  EXPECT_EQ(Level(user)["results"]["phases"].size(), 1u);
  EXPECT_EQ(Count(t / "p.db", "SELECT count(*) FROM runs WHERE kind='profile'"), 8);
}

TEST(ProfileE2E, FileIoOnADirectoryOfFiles) {
  TempDir t;
  std::filesystem::create_directories(t / "fs");
  json doc = RunProfile(t, "fileio", t / "fs",
                        {"--files", "8", "--size", "64MiB", "--threads", "16", "--time", "300ms",
                         "--mode", "rndrd,rndwr,rndrw,seqrd,seqwr"});
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(doc["context"]["target"]["kind"], "files");
  const json& modes = Level(doc)["results"]["modes"];
  ASSERT_EQ(modes.size(), 5u);
  EXPECT_GT(modes[0]["read_iops"].get<double>(), 0);
  EXPECT_GT(modes[1]["write_iops"].get<double>(), 0);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(t / "fs")) {
    if (e.path().filename().string().rfind("ssdlab_fileio.", 0) == 0) {
      ++files;
      EXPECT_EQ(std::filesystem::file_size(e.path()), 8u << 20);
    }
  }
  EXPECT_EQ(files, 8);
}

void ExpectOneLineError(const Proc& p, const std::string& needle) {
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_NE(p.err.find("ssdlab: error: "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find(needle), std::string::npos) << p.err;
}

TEST(ProfileE2E, BadInputs) {
  TempDir t;
  auto run = [&](std::vector<std::string> a) {
    return RunSsdlab(Args({"profile"}, Args(a, {"--db", t / "b.db", "--progress", "none"})));
  };
  ExpectOneLineError(run({"nosuch", "--target", "sim:tiny"}), "unknown profile 'nosuch'");
  std::string bad = t / "bad.toml";
  std::ofstream(bad) << "[[phase]]\nrw = \"randread\"\nqueue = 4\n";
  ExpectOneLineError(run({bad, "--target", "sim:tiny"}), "bad.toml:3: unknown key 'queue'");
  std::string bad2 = t / "bad2.toml";
  std::ofstream(bad2) << "name = \"x\"\ncolour = \"red\"\n[[phase]]\nrw = \"read\"\n";
  ExpectOneLineError(run({bad2, "--target", "sim:tiny"}), "bad2.toml:2: unknown key 'colour'");
  std::string bad3 = t / "bad3.toml";
  std::ofstream(bad3) << "[[phase]]\nrw = \"sideways\"\n";
  ExpectOneLineError(run({bad3, "--target", "sim:tiny"}), "bad3.toml:1:");
  ExpectOneLineError(run({"fileio", "--target", "/proc"}), "not on a disk filesystem");
  ExpectOneLineError(run({"fileio", "--target", "/sys/kernel"}), "not on a disk filesystem");
  ExpectOneLineError(run({"fileio", "--target", t / "missing"}), "does not exist");
  std::ofstream(t / "plain") << "x";
  ExpectOneLineError(run({"fileio", "--target", t / "plain"}), "is not a directory");
  ExpectOneLineError(run({"op-advisor", "--target", "sim:tiny", "--op", "0:95:5"}),
                     "outside 0..90%");
  ExpectOneLineError(run({"op-advisor", "--target", "sim:tiny", "--op", "-5"}), "outside 0..90%");
  ExpectOneLineError(run({"cdm", "--target", "sim:tiny", "--fill", "0,100"}), "--fill");
  // Arrays: members must be simulated drives of one size, the layout must suit their count.
  ExpectOneLineError(run({"cdm", "--target", "sim:tiny", "--target", "sim:tiny"}), "--layout");
  ExpectOneLineError(run({"cdm", "--target", "sim:tiny", "--target", "sim:tiny?capacity=2GiB",
                          "--layout", "raid1"}),
                     "mismatched array members");
  ExpectOneLineError(run({"cdm", "--target", "sim:tiny", "--target", t / "f", "--layout", "raid0"}),
                     "not a simulated drive");
  ExpectOneLineError(
      run({"cdm", "--target", "sim:tiny", "--target", "sim:tiny", "--layout", "raid5"}),
      "at least 3");
  ExpectOneLineError(run({"cdm", "--target", "sim:tiny", "--layout", "raid0"}),
                     "at least two --target");
  ExpectOneLineError(run({"cdm", "--target", "sim:tiny", "--size", "4GiB"}), "does not fit");
  ExpectOneLineError(run({"fileio", "--target", "sim:tiny", "--time-scale", "0"}),
                     "--time-scale: must be at least 1");
  ExpectOneLineError(run({"fileio", "--target", "sim:tiny", "--time-scale", "lots"}),
                     "--time-scale");
  ExpectOneLineError(run({"fileio", "--target", "sim:tiny", "--time-scale", "5000000000"}),
                     "--time-scale: 5000000000 is above 4294967295");
  ExpectOneLineError(run({"fileio", "--target", t.path().string(), "--time-scale", "4"}),
                     "simulated drives only");
  ExpectOneLineError(run({"fileio", "--target", "sim:tiny?scale=2", "--time-scale", "4"}),
                     "sets scale=2, not scale=4");
  EXPECT_FALSE(std::filesystem::exists(t / "missing"));
}

}  // namespace
}  // namespace ssdlab::test
