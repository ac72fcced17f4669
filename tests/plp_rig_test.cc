// `ssdlab plp` on a real rig, end to end on this machine (issue 50, docs/plp.md "Real rigs"):
// the drive is a simulated one served over FUSE and a loop device (`sim serve --power-switch`),
// its power-off command is SIGUSR1 to the server (which applies the model's power cut, puts
// each unit back to what the model holds and writes the model's account), its power-on command
// restarts the server from its state. The campaign's classification of every cut must equal
// what the simulator says it lost. Also the journal streamed to `ssdlab plp journal` on
// 127.0.0.1, and the refusals. Skipped, with the reason, without FUSE or loop devices.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

// power-on: starts the served drive in the background (its output in files, so that the rig's
// command ends), waits for its "ready" line, and points D/dev at its loop device (a stable name,
// as /dev/disk/by-id/... on a real rig: the loop device's number may change at each start).
constexpr const char* kPowerOn = R"SH(#!/bin/sh
D=$1; TARGET=$2
rm -f "$D/serve.out"
"$SSDLAB" sim serve "$TARGET" --fuse "$D/fuse" --loop --power-switch "$D/cut.json" \
  > "$D/serve.out" 2>> "$D/serve.err" < /dev/null &
echo $! > "$D/pid"
i=0
while ! grep -q '^ready$' "$D/serve.out" 2>/dev/null; do
  kill -0 $! 2>/dev/null || { echo "the server exited: $(tail -1 "$D/serve.err")" >&2; exit 1; }
  i=$((i+1)); [ $i -lt 3000 ] || { echo "the server is not ready" >&2; exit 1; }
  sleep 0.02
done
ln -sfn "$(sed -n 's/^loop: //p' "$D/serve.out")" "$D/dev"
)SH";

// power-off: SIGUSR1 (the served drive's power switch); done when the server has written the
// model's account of the cut (after saving its data and state), kept as cut-N.json.
constexpr const char* kPowerOff = R"SH(#!/bin/sh
D=$1
kill -USR1 "$(cat "$D/pid")" || exit 1
i=0
while [ ! -e "$D/cut.json" ]; do
  i=$((i+1)); [ $i -lt 3000 ] || { echo "no account of the cut" >&2; exit 1; }
  sleep 0.02
done
mv "$D/cut.json" "$D/cut-$SSDLAB_PLP_CUT.json"
)SH";

class PlpRigE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "loop devices over FUSE need root";
    if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse here";
    if (access("/dev/loop-control", R_OK | W_OK) != 0)
      GTEST_SKIP() << "no loop devices here (/dev/loop-control)";
    if (Shell("command -v losetup") != 0) GTEST_SKIP() << "losetup is not installed";
    d_ = tmp_.path().string();
    std::filesystem::create_directories(d_ + "/fuse");
    WriteScript("on.sh", kPowerOn);
    WriteScript("off.sh", kPowerOff);
    setenv("SSDLAB", SSDLAB_BINARY, 1);
  }
  // Leaves nothing behind: the server still running is stopped (SIGTERM: a clean stop), then
  // whatever is left of its mount and loop device goes through the documented command.
  void TearDown() override {
    if (d_.empty()) return;
    std::string pid = ReadFile(d_ + "/pid");
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    if (!pid.empty()) {
      Shell("P=" + pid +
            "; kill -TERM $P 2>/dev/null; i=0; while [ $i -lt 500 ] && "
            "[ -e /proc/$P ] && ! grep -q '^State:.*Z' /proc/$P/status; do i=$((i+1)); "
            "sleep 0.02; done");
    }
    RunSsdlab({"sim", "serve", "--cleanup", d_ + "/fuse"});
  }
  void WriteScript(const std::string& name, const char* text) {
    const std::string p = d_ + "/" + name;
    std::ofstream(p) << text;
    std::filesystem::permissions(p, std::filesystem::perms::owner_all);
  }
  std::string Target(const std::string& params) {
    return "sim:tiny?capacity=256MiB&" + params + "&state=" + d_ + "/drive.st";
  }
  // Powers the drive on (the campaign's first start); false with the reason when it fails.
  ::testing::AssertionResult PowerOn(const std::string& target) {
    std::string out;
    if (Shell(d_ + "/on.sh " + d_ + " '" + target + "'", &out) != 0)
      return ::testing::AssertionFailure() << out << ReadFile(d_ + "/serve.err");
    return ::testing::AssertionSuccess();
  }
  // `plp` on D/dev with the power commands; `on_target` is what power-on starts.
  Proc Campaign(const std::string& on_target, const std::vector<std::string>& more,
                const std::string& off = "") {
    return RunSsdlab(Args({"plp", "--target", d_ + "/dev", "--destructive", "--power-off",
                           off.empty() ? d_ + "/off.sh " + d_ : off, "--power-on",
                           d_ + "/on.sh " + d_ + " '" + on_target + "'", "--size", "4MiB",
                           "--segment", "300ms", "--qd", "4", "--seed", "7"},
                          more));
  }
  json Cut(int n) { return ReadJson(d_ + "/cut-" + std::to_string(n) + ".json"); }

  // Every cut of the campaign: what it found equals the simulator's account of that cut.
  void ExpectFindingsEqualTheModelsLosses(const json& doc, uint64_t* unflushed) {
    ASSERT_TRUE(doc.contains("cuts")) << doc.dump();
    *unflushed = 0;
    int n = 0;
    for (const json& c : doc["cuts"]) {
      const json& f = c["findings"];
      const json truth = Cut(++n);
      ASSERT_TRUE(truth.contains("lost_flushed")) << "cut " << n;
      EXPECT_EQ(f["lost_flushed"].get<uint64_t>() + f["old_generation"].get<uint64_t>(),
                truth["lost_flushed"].get<uint64_t>())
          << "cut " << n << ": " << c.dump() << truth.dump();
      EXPECT_EQ(f["lost_unflushed"], truth["lost_unflushed"])
          << "cut " << n << ": " << c.dump() << truth.dump();
      for (const char* k : {"torn", "misdirected", "unreadable"}) EXPECT_EQ(f[k], 0) << c.dump();
      EXPECT_GT(c["load"]["writes_acked"].get<uint64_t>(), 0u) << c.dump();
      EXPECT_GT(c["power_on_to_ready_ns"].get<uint64_t>(), 0u) << c.dump();
      *unflushed += truth["lost_unflushed"].get<uint64_t>();
    }
  }

  // 20 cuts of the served drive `params` (flushing every 32 writes, the journal in d_): the
  // campaign's document, or null (the failure reported) when the drive or the campaign failed.
  json TwentyCuts(const std::string& params) {
    const std::string target = Target(params);
    if (!PowerOn(target)) {
      ADD_FAILURE() << "the served drive did not start: " << ReadFile(d_ + "/serve.err");
      return nullptr;
    }
    Proc p = Campaign(target, {"--cuts", "20", "--flush", "every:32", "--journal", d_ + "/journal",
                               "--json", d_ + "/plp.json"});
    if (p.exit_code != 0) {
      ADD_FAILURE() << p.out << p.err << ReadFile(d_ + "/serve.err");
      return nullptr;
    }
    return ReadJson(d_ + "/plp.json");
  }

  TempDir tmp_;
  std::string d_;
};

TEST_F(PlpRigE2E, TwentyCutsOfAServedDriveWithoutPlpFindExactlyWhatTheModelLost) {
  const json doc = TwentyCuts("plp=0");
  ASSERT_FALSE(doc.is_null());
  ASSERT_EQ(doc["cuts"].size(), 20u);
  uint64_t unflushed = 0;
  ExpectFindingsEqualTheModelsLosses(doc, &unflushed);
  EXPECT_GT(unflushed, 0u) << "no cut caught unflushed data in the volatile buffer";
  EXPECT_EQ(doc["summary"]["lost_flushed"], 0);
  EXPECT_EQ(doc["summary"]["lost_unflushed"], unflushed);
  // The journal holds every acknowledged write and each cut.
  const std::string journal = ReadFile(d_ + "/journal");
  uint64_t acked = 0;
  for (const json& c : doc["cuts"]) acked += c["load"]["writes_acked"].get<uint64_t>();
  std::istringstream in(journal);
  uint64_t writes = 0, cuts = 0;
  for (std::string line; std::getline(in, line);) {
    writes += line.rfind("w ", 0) == 0;
    cuts += line.rfind("c ", 0) == 0;
  }
  EXPECT_EQ(writes, acked);
  EXPECT_EQ(cuts, 20u);
}

TEST_F(PlpRigE2E, TwentyCutsOfAServedPlpDriveLoseNoAcknowledgedWrite) {
  const json doc = TwentyCuts("plp=1");
  ASSERT_FALSE(doc.is_null());
  ASSERT_EQ(doc["cuts"].size(), 20u);
  uint64_t unflushed = 0;
  ExpectFindingsEqualTheModelsLosses(doc, &unflushed);
  EXPECT_EQ(doc["summary"]["lost_flushed"], 0);
  EXPECT_EQ(doc["summary"]["lost_unflushed"], 0);
  uint64_t in_buffer = 0, saved = 0;
  for (int n = 1; n <= 20; ++n) {
    in_buffer += Cut(n)["units_in_buffer"].get<uint64_t>();
    saved += Cut(n)["units_saved"].get<uint64_t>();
  }
  EXPECT_EQ(saved, in_buffer);  // the capacitors saved what the buffer held
}

// The journal streamed to a receiver on this host: what it stored is what the rig journalled.
TEST_F(PlpRigE2E, TheJournalStreamedToAReceiverHoldsEveryAcknowledgement) {
  const std::string target = Target("plp=0");
  ASSERT_TRUE(PowerOn(target));
  const std::string received = d_ + "/received";
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t rx = fork();
  if (rx == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    execl(SSDLAB_BINARY, SSDLAB_BINARY, "plp", "journal", "--listen", "0", "--out",
          received.c_str(), nullptr);
    _exit(127);
  }
  close(fds[1]);
  FILE* out = fdopen(fds[0], "r");
  char line[256] = {0};
  ASSERT_NE(fgets(line, sizeof line, out), nullptr);  // the receiver is listening
  unsigned port = 0;
  ASSERT_EQ(sscanf(line, "listening on port %u", &port), 1) << line;
  Proc p = Campaign(target, {"--cuts", "2", "--journal", "127.0.0.1:" + std::to_string(port),
                             "--json", d_ + "/plp.json"});
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  std::string rest;
  while (fgets(line, sizeof line, out)) rest += line;
  fclose(out);
  EXPECT_EQ(Wait(rx), 0) << rest;
  const json doc = ReadJson(d_ + "/plp.json");
  ASSERT_EQ(doc["cuts"].size(), 2u);
  uint64_t acked = 0;
  for (const json& c : doc["cuts"]) acked += c["load"]["writes_acked"].get<uint64_t>();
  std::istringstream in(ReadFile(received));
  uint64_t writes = 0, cuts = 0, header = 0;
  for (std::string l; std::getline(in, l);) {
    writes += l.rfind("w ", 0) == 0;
    cuts += l.rfind("c ", 0) == 0;
    header += l.rfind("plp ", 0) == 0;
  }
  EXPECT_EQ(header, 1u);
  EXPECT_EQ(writes, acked);
  EXPECT_GT(writes, 0u);
  EXPECT_EQ(cuts, 2u);
  EXPECT_TRUE(Has(rest, "records received into " + received)) << rest;
}

TEST_F(PlpRigE2E, AJournalOnTheDriveUnderTestIsRefused) {
  const std::string target = Target("plp=0");
  ASSERT_TRUE(PowerOn(target));
  const std::string dev = std::filesystem::read_symlink(d_ + "/dev").string();
  for (const std::string& journal : {dev, d_ + "/dev"}) {
    Proc p = Campaign(target, {"--cuts", "1", "--journal", journal});
    EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
    EXPECT_TRUE(Has(p.err, "--journal " + journal + " is on the drive under test")) << p.err;
    EXPECT_EQ(CountLines(p.err), 1) << p.err;
  }
  EXPECT_FALSE(std::filesystem::exists(d_ + "/cut-1.json"));  // no power was cut
}

TEST_F(PlpRigE2E, AFailingPowerOffStopsTheCampaignWithExit2AndKeepsTheCutsBefore) {
  const std::string target = Target("plp=0");
  ASSERT_TRUE(PowerOn(target));
  // Cuts power once; the second power-off fails (a PDU that does not answer).
  const std::string off =
      "[ \"$SSDLAB_PLP_CUT\" -lt 2 ] && " + d_ + "/off.sh " + d_ + " || { echo no PDU; exit 4; }";
  Proc p = Campaign(target,
                    {"--cuts", "5", "--journal", d_ + "/journal", "--json", d_ + "/plp.json",
                     "--db", d_ + "/r.db", "--run", "pdu"},
                    off);
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_TRUE(Has(p.err, "failed (exit 4): no PDU at cut 2")) << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  const json doc = ReadJson(d_ + "/plp.json");
  ASSERT_EQ(doc["cuts"].size(), 1u) << doc.dump();
  EXPECT_TRUE(Has(doc["failed"].get<std::string>(), "--power-off")) << doc.dump();
  // The stored run keeps the cut too, marked failed.
  Proc show = RunSsdlab({"show", "pdu", "--db", d_ + "/r.db", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json run = json::parse(show.out);
  const json* test = FindTest(run, "plp");
  ASSERT_NE(test, nullptr) << show.out;
  EXPECT_EQ((*test)["results"]["cuts"].size(), 1u);
  EXPECT_TRUE(Has(show.out, "\"failed\"")) << show.out;
}

TEST_F(PlpRigE2E, ADriveThatComesBackWithAnotherSerialIsRefused) {
  const std::string target = Target("plp=0");
  ASSERT_TRUE(PowerOn(target));
  // Power-on brings up another drive (other parameters: another serial) in the same place.
  const std::string other = "sim:tiny?capacity=256MiB&plp=1&state=" + d_ + "/other.st";
  Proc p = Campaign(other, {"--cuts", "3", "--journal", d_ + "/journal"});
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_TRUE(Has(p.err, "came back as another drive after cut 1: serial '")) << p.err;
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
}

// The report of stored campaigns: findings by cut and class, power-on-to-ready (no rig needed:
// a simulated drive whose capacitors are too small loses flushed writes, marked as failures).
TEST(PlpReportE2E, AStoredCampaignHasItsSectionWithFindingsByCutAndClass) {
  TempDir t;
  const std::string db = t / "r.db";
  Proc p = RunSsdlab({"plp", "--target", "sim:dc-sata-mixed?plp_flush=256KiB", "--cuts", "6",
                      "--size", "8MiB", "--segment", "20ms", "--db", db, "--run", "weak-caps",
                      "--json", t / "plp.json"});
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  const json doc = ReadJson(t / "plp.json");
  Proc rep = RunSsdlab({"report", "weak-caps", "--db", db, "-o", t / "r.html"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const std::string html = ReadFile(t / "r.html");
  EXPECT_TRUE(Has(html, "Power-loss integrity")) << rep.err;
  EXPECT_TRUE(Has(html, "plp-summary"));
  EXPECT_TRUE(Has(html, "sim:dc-sata-mixed")) << "the drive is named by its preset";
  EXPECT_FALSE(Has(html, "sim:sim:")) << "the drive is named by its preset";
  EXPECT_TRUE(Has(html, "plp-cuts"));
  EXPECT_TRUE(Has(html, "Ready p50 / max, ms"));
  EXPECT_TRUE(Has(html, "ssdlab plp: 6 cuts, --flush every:64"));
  // A row for the campaign and one per cut; lost flushed writes marked as failures.
  size_t rows = 0;
  for (size_t at = 0;
       (at = html.find("(weak-caps)</td><td class=\"num\">", at)) != std::string::npos; ++at)
    ++rows;
  EXPECT_EQ(rows, 7u);
  ASSERT_GT(doc["summary"]["lost_flushed"].get<uint64_t>(), 0u);
  EXPECT_TRUE(Has(html, "<td class=\"bad num\">" +
                            std::to_string(doc["summary"]["lost_flushed"].get<uint64_t>()) +
                            "</td>"));
}

}  // namespace
}  // namespace ssdlab::test
