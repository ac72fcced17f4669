// `ssdlab plp` on simulated drives (issue 50, docs/plp.md): power cuts in virtual time, the
// campaign's classification checked against the simulator's own account of what it lost.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

// Runs a campaign with --json; returns its document (empty on failure, with the test failed).
json Campaign(const TempDir& t, const std::vector<std::string>& more) {
  const std::string out = t / "plp.json";
  Proc p = RunSsdlab(Args({"plp", "--json", out}, more));
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  if (p.exit_code != 0) return json::object();
  return ReadJson(out);
}

// Every cut: what the campaign found equals what the simulator says it lost (a rule-1
// violation, a lost flushed write, is either class lost_flushed or old_generation).
void ExpectFindingsEqualTheModelsLosses(const json& doc) {
  ASSERT_TRUE(doc.contains("cuts"));
  for (const json& c : doc["cuts"]) {
    const json& f = c["findings"];
    const json& s = c["sim"];
    EXPECT_EQ(f["lost_flushed"].get<uint64_t>() + f["old_generation"].get<uint64_t>(),
              s["lost_flushed"].get<uint64_t>())
        << c.dump();
    EXPECT_EQ(f["lost_unflushed"], s["lost_unflushed"]) << c.dump();
    for (const char* k : {"torn", "misdirected", "unreadable"}) EXPECT_EQ(f[k], 0) << c.dump();
  }
}

uint64_t SumSim(const json& doc, const char* key) {
  uint64_t n = 0;
  for (const json& c : doc["cuts"]) n += c["sim"][key].get<uint64_t>();
  return n;
}

TEST(PlpE2E, APlpDriveKeepsEveryAcknowledgedWriteAcross200Cuts) {
  TempDir t;
  json d = Campaign(t, {"--target", "sim:dc-sata-mixed", "--cuts", "200", "--size", "64MiB",
                        "--segment", "20ms"});
  ASSERT_EQ(d["cuts"].size(), 200u);
  EXPECT_EQ(d["summary"]["lost_flushed"], 0);
  EXPECT_EQ(d["summary"]["lost_unflushed"], 0);
  EXPECT_EQ(d["summary"]["old_generation"], 0);
  // The cuts caught data in the buffer, and the capacitors saved all of it.
  EXPECT_GT(SumSim(d, "units_in_buffer"), 1000u);
  EXPECT_EQ(SumSim(d, "units_saved"), SumSim(d, "units_in_buffer"));
  ExpectFindingsEqualTheModelsLosses(d);
}

TEST(PlpE2E, AClientDriveWithoutPlpLosesUnflushedWritesButNoFlushedOne) {
  TempDir t;
  json d = Campaign(t, {"--target", "sim:client-nvme-tlc?plp=0", "--cuts", "50", "--size", "64MiB",
                        "--segment", "20ms", "--flush", "every:32"});
  EXPECT_GT(d["summary"]["lost_unflushed"].get<uint64_t>(), 0u);
  EXPECT_EQ(d["summary"]["lost_flushed"], 0);
  EXPECT_EQ(d["summary"]["old_generation"], 0);
  EXPECT_EQ(SumSim(d, "units_saved"), 0u);
  ExpectFindingsEqualTheModelsLosses(d);
}

TEST(PlpE2E, FuaWritesWithoutPlpAreDurableWhenAcknowledged) {
  TempDir t;
  json d = Campaign(t, {"--target", "sim:client-nvme-tlc?plp=0", "--cuts", "30", "--size", "16MiB",
                        "--segment", "20ms", "--flush", "fua", "--bs", "4KiB,16KiB"});
  EXPECT_EQ(d["summary"]["lost_flushed"], 0);
  EXPECT_EQ(d["summary"]["lost_unflushed"], 0);
  EXPECT_EQ(d["summary"]["old_generation"], 0);
  ExpectFindingsEqualTheModelsLosses(d);
}

TEST(PlpE2E, CapacitorsTooSmallForTheBufferLoseFlushedWritesAndTheCampaignFindsExactlyThose) {
  TempDir t;
  json d = Campaign(t, {"--target", "sim:dc-sata-mixed?plp_flush=256KiB", "--cuts", "40", "--size",
                        "8MiB", "--segment", "20ms", "--rwmix-read", "20"});
  EXPECT_GT(d["summary"]["lost_flushed"].get<uint64_t>(), 0u);
  EXPECT_GT(SumSim(d, "units_saved"), 0u);
  EXPECT_LT(SumSim(d, "units_saved"), SumSim(d, "units_in_buffer"));
  ExpectFindingsEqualTheModelsLosses(d);
}

TEST(PlpE2E, LostMappingUpdatesReturnOldGenerations) {
  TempDir t;
  json d = Campaign(t, {"--target", "sim:dc-sata-mixed?map_persist_ms=20", "--cuts", "30", "--size",
                        "8MiB", "--segment", "50ms"});
  EXPECT_GT(d["summary"]["old_generation"].get<uint64_t>(), 0u);
  EXPECT_GT(SumSim(d, "mapping"), 0u);
  ExpectFindingsEqualTheModelsLosses(d);
}

TEST(PlpE2E, TheCampaignIsAStoredRunThatLsAndShowRead) {
  TempDir t;
  const std::string db = t / "r.db";
  Proc p = RunSsdlab({"plp", "--target", "sim:client-nvme-tlc?plp=0", "--cuts", "3", "--size",
                      "4MiB", "--segment", "5ms", "--db", db, "--run", "cuts-1"});
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_TRUE(Has(p.out, "stored as run 'cuts-1'")) << p.out;
  EXPECT_TRUE(Has(p.out, "3 cuts:")) << p.out;
  Proc ls = RunSsdlab({"ls", "--db", db});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_TRUE(Has(ls.out, "cuts-1")) << ls.out;
  EXPECT_TRUE(Has(ls.out, "plp")) << ls.out;
  Proc show = RunSsdlab({"show", "cuts-1", "--db", db, "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json doc = json::parse(show.out);
  const json* test = FindTest(doc, "plp");
  ASSERT_NE(test, nullptr) << show.out;
  EXPECT_EQ((*test)["results"]["cuts"].size(), 3u);
  EXPECT_EQ((*test)["results"]["kind"], "plp");
}

TEST(PlpE2E, BadInputIsOneLineAndExit2) {
  TempDir t;
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--target", "sim:tiny", "--flush", "sometimes"}, "--flush: unknown policy 'sometimes'"},
      {{"--target", "sim:tiny", "--flush", "every:0"}, "--flush every:0"},
      {{"--target", "sim:tiny", "--cuts", "0"}, "--cuts: at least 1"},
      {{"--target", t / "disk.img"},
       "is neither a simulated drive (sim:PRESET) nor a block device"},
      {{"--target", "sim:tiny", "--power-off", "true"}, "are for real rigs"},
      {{"--target", "sim:tiny", "--bs", "6KiB"}, "--bs: '6KiB' is not a multiple of 4KiB"},
      {{"--target", "sim:tiny?mem_limit=1MiB"}, "mem_limit"},
  };
  for (const Case& c : cases) {
    Proc p = RunSsdlab(Args({"plp"}, c.args));
    EXPECT_EQ(p.exit_code, 2) << c.says << ": " << p.out << p.err;
    EXPECT_TRUE(Has(p.err, c.says)) << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
  }
}

}  // namespace
}  // namespace ssdlab::test
