// `ssdlab run JOB.fio`: fio job files run on ssdlab's engine and compared with fio 3.33 itself
// (/usr/bin/fio, installed by scripts/deps.sh) on the same file in the same test: I/O counts
// exactly, the read/write mix within the binomial spread of two independent draws (fio and
// ssdlab each pick every I/O's direction at random). Speed is not compared. Twenty job files:
// twelve run, eight refused by the option's name; and the paths around them (missing file,
// --explain, flags that do not combine, the safety of the targets).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "e2e_util.h"

namespace ssdlab::test {
namespace {

using nlohmann::json;

constexpr const char* kFio = "/usr/bin/fio";
constexpr uint64_t kFileBytes = 16ull << 20;

struct Counts {
  uint64_t read = 0, write = 0, trim = 0;
  uint64_t total() const { return read + write + trim; }
};

// A 16 MiB file of non-zero bytes: written once, so that both tools read allocated blocks.
void MakeDataFile(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  std::string block(1 << 20, '\0');
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>(i * 131 + 7);
  for (uint64_t b = 0; b < kFileBytes; b += block.size()) out.write(block.data(), block.size());
}

// The job file `text` (with @FILE@ standing for the data file) under `t`; returns its path.
std::string WriteJob(const TempDir& t, const std::string& name, std::string text) {
  const std::string data = t / "data.img";
  if (!std::filesystem::exists(data)) MakeDataFile(data);
  for (size_t p; (p = text.find("@FILE@")) != std::string::npos;) text.replace(p, 6, data);
  const std::string path = t / (name + ".fio");
  std::ofstream(path) << text;
  return path;
}

// fio's counts per job name, in the order the names first appear (the jobs of a numjobs
// section without group_reporting summed, as fio's group).
std::vector<std::pair<std::string, Counts>> FioCounts(const TempDir& t, const std::string& job) {
  const std::string out = t / "fio.json";
  std::string log;
  EXPECT_EQ(Shell(std::string(kFio) + " --output-format=json --output=" + out + " " + job + " 2>&1",
                  &log),
            0)
      << log;
  std::vector<std::pair<std::string, Counts>> counts;
  json doc = ReadJson(out);
  for (const json& j : doc["jobs"]) {
    const std::string name = j["jobname"].get<std::string>();
    if (counts.empty() || counts.back().first != name) counts.push_back({name, Counts{}});
    Counts& c = counts.back().second;
    c.read += j["read"]["total_ios"].get<uint64_t>();
    c.write += j["write"]["total_ios"].get<uint64_t>();
    c.trim += j["trim"]["total_ios"].get<uint64_t>();
  }
  return counts;
}

// ssdlab's counts per section, from `run JOB --json`.
std::vector<Counts> SsdlabCounts(const TempDir& t, const std::string& job) {
  const std::string out = t / "ssdlab.json";
  Proc p = RunSsdlab({"run", job, "--json", out});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  std::vector<Counts> counts;
  if (p.exit_code != 0) return counts;
  for (const json& d : ReadJson(out)) {
    const json& r = d["results"];
    counts.push_back({r["read"]["ios"].get<uint64_t>(), r["write"]["ios"].get<uint64_t>(),
                      r["trim"]["ios"].get<uint64_t>()});
  }
  return counts;
}

// Runs `text` with fio and with ssdlab; every section's counts equal; returns both.
std::pair<std::vector<Counts>, std::vector<Counts>> RunBoth(const std::string& name,
                                                            const std::string& text) {
  TempDir t;
  const std::string job = WriteJob(t, name, text);
  auto fio = FioCounts(t, job);
  std::vector<Counts> ours = SsdlabCounts(t, job), theirs;
  for (const auto& [n, c] : fio) theirs.push_back(c);
  EXPECT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i)
    EXPECT_EQ(ours[i].total(), theirs[i].total()) << name << " section " << i;
  return {ours, theirs};
}

// Both give exactly fio's counts in every direction.
void ExpectSameCounts(const std::string& name, const std::string& text,
                      const std::vector<Counts>& expected) {
  auto [ours, theirs] = RunBoth(name, text);
  ASSERT_EQ(ours.size(), expected.size());
  ASSERT_EQ(theirs.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    for (const auto& [who, c] : {std::pair{"ssdlab", ours[i]}, std::pair{"fio", theirs[i]}}) {
      EXPECT_EQ(c.read, expected[i].read) << who << " section " << i;
      EXPECT_EQ(c.write, expected[i].write) << who << " section " << i;
      EXPECT_EQ(c.trim, expected[i].trim) << who << " section " << i;
    }
  }
}

// 1-12: job files that run, counted as fio counts them.
TEST(FioJobFile, SequentialReadPsync) {
  ExpectSameCounts("seqread",
                   "[seqread]\nfilename=@FILE@\nrw=read\nbs=4k\nsize=8m\n"
                   "direct=1\nioengine=psync\n",
                   {{2048, 0, 0}});
}

TEST(FioJobFile, RandomReadIoUringDepth8) {
  ExpectSameCounts("rr",
                   "[rr]\nfilename=@FILE@\nioengine=io_uring\niodepth=8\nrw=randread\n"
                   "bs=4k\nsize=16m\nio_size=4m\ndirect=1\nnorandommap\nfixedbufs\n"
                   "registerfiles\n",
                   {{1024, 0, 0}});
}

TEST(FioJobFile, RandomWriteLibaioNumberIos) {
  ExpectSameCounts("rw",
                   "[rw]\nfilename=@FILE@\nioengine=libaio\niodepth=4\nrw=randwrite\n"
                   "bs=8k\nnumber_ios=500\nsize=16m\ndirect=1\n",
                   {{0, 500, 0}});
}

TEST(FioJobFile, BufferedSyncRead) {
  ExpectSameCounts("sync",
                   "[sync]\nfilename=@FILE@\nioengine=sync\nrw=read\nbs=64k\n"
                   "size=4m\n",
                   {{64, 0, 0}});
}

TEST(FioJobFile, OffsetAndSize) {
  ExpectSameCounts("off",
                   "[off]\nfilename=@FILE@\nrw=read\nbs=4k\noffset=4m\nsize=4m\n"
                   "direct=1\n",
                   {{1024, 0, 0}});
}

TEST(FioJobFile, KbBase1000) {
  // kb_base=1000: "4k" is 4000 bytes and "4000k" 4,000,000: 1000 writes (buffered: 4000 is no
  // multiple of a logical block).
  ExpectSameCounts("kb",
                   "[kb]\nfilename=@FILE@\nkb_base=1000\nrw=write\nbs=4k\nsize=4000k\n"
                   "direct=0\n",
                   {{0, 1000, 0}});
}

TEST(FioJobFile, RuntimeInMillisecondsBoundedByIoSize) {
  ExpectSameCounts("rt",
                   "[rt]\nfilename=@FILE@\nrw=randread\nbs=4k\nio_size=1m\n"
                   "runtime=10000ms\ndirect=1\nioengine=io_uring\niodepth=4\n",
                   {{256, 0, 0}});
}

TEST(FioJobFile, NumjobsWithGroupReporting) {
  ExpectSameCounts("nj",
                   "[nj]\nfilename=@FILE@\nrw=randread\nbs=4k\nnumjobs=2\nio_size=2m\n"
                   "group_reporting\ndirect=1\nthread\n",
                   {{1024, 0, 0}});
}

TEST(FioJobFile, NumjobsWithoutGroupReportingSumsTheJobs) {
  ExpectSameCounts("nj4",
                   "[nj4]\nfilename=@FILE@\nrw=randwrite\nbs=4k\nnumjobs=4\nio_size=1m\n"
                   "direct=1\n",
                   {{0, 1024, 0}});
}

TEST(FioJobFile, GlobalInheritanceAndStonewalledSections) {
  ExpectSameCounts("multi",
                   "; a write pass, then reads at another size\n[global]\nfilename=@FILE@\n"
                   "direct=1\nbs=4k\nsize=4m\n\n[write]\nrw=write\n\n[read]\nstonewall\n"
                   "rw=read\nbs=16k\n\n[global]\nioengine=io_uring\n[late]\nwait_for_previous\n"
                   "rw=randread\nio_size=1m\n",
                   {{0, 1024, 0}, {256, 0, 0}, {256, 0, 0}});
}

// The read share of a mixed job: both tools draw each I/O's direction at random, so their read
// counts agree with 70% within four standard deviations of a binomial draw.
void ExpectMix(const std::string& name, const std::string& text) {
  auto [ours, theirs] = RunBoth(name, text);
  ASSERT_EQ(ours.size(), 1u);
  ASSERT_EQ(theirs.size(), 1u);
  const double n = 2048, sigma = std::sqrt(n * 0.7 * 0.3);
  for (const Counts& c : {ours[0], theirs[0]}) {
    EXPECT_EQ(c.total(), 2048u);
    EXPECT_NEAR(static_cast<double>(c.read), 0.7 * n, 4 * sigma);
    EXPECT_GT(c.write, 0u);
  }
}

TEST(FioJobFile, RandrwWithRwmixread) {
  ExpectMix("mixr",
            "[mixr]\nfilename=@FILE@\nrw=randrw\nrwmixread=70\nbs=4k\nio_size=8m\n"
            "direct=1\nioengine=libaio\niodepth=2\n");
}

TEST(FioJobFile, RandrwWithRwmixwrite) {
  ExpectMix("mixw",
            "[mixw]\nfilename=@FILE@\nreadwrite=randrw\nrwmixwrite=30\nbs=4k\n"
            "io_size=8m\ndirect=1\n");
}

// 13-20: job files refused, in one line naming the file, the line, the section and the option.
struct Refusal {
  const char* name;
  const char* text;
  const char* where;  // "LINE: [SECTION] OPTION"
  const char* why;
};

TEST(FioJobFile, RefusedByTheOptionsName) {
  const Refusal cases[] = {
      {"typo", "[global]\ndirect=1\n[a]\nfilename=@FILE@\niodepht=4\n",
       ":5: [a] iodepht:", "not an fio option ssdlab reads"},
      {"engine", "[a]\nfilename=@FILE@\nioengine=spdk\n",
       ":3: [a] ioengine:", "'spdk' is an engine ssdlab does not run"},
      {"size", "[a]\nfilename=@FILE@\nrw=read\nsize=4kk\n", ":4: [a] size:", "'4kk' is not a size"},
      {"trimwrite", "[a]\nfilename=@FILE@\nrw=trimwrite\n",
       ":3: [a] rw:", "'trimwrite' has no ssdlab equivalent"},
      {"dist", "[a]\nfilename=@FILE@\nrw=randread\nrandom_distribution=normal:50\n",
       ":4: [a] random_distribution:", "no ssdlab equivalent"},
      {"concurrent", "[global]\nfilename=@FILE@\nrw=read\nsize=1m\n[a]\n[b]\n",
       ":6: [b] stonewall:", "at the same time as [a]"},
      {"verify", "[a]\nfilename=@FILE@\nrw=write\nsize=1m\nverify=crc32c\n",
       ":5: [a] verify:", "do_verify=0"},
      {"policy", "[a]\nfilename=@FILE@\ncpus_allowed=0\ncpus_allowed_policy=split\n",
       ":4: [a] cpus_allowed_policy:", "'split' has no ssdlab equivalent"},
  };
  for (const Refusal& c : cases) {
    TempDir t;
    const std::string job = WriteJob(t, c.name, c.text);
    const uintmax_t before = std::filesystem::file_size(t / "data.img");
    const std::string sum = FileSha256(t / "data.img");
    for (const char* mode : {"", "--explain"}) {
      std::vector<std::string> args = {"run", job};
      if (*mode) args.push_back(mode);
      Proc p = RunSsdlab(args);
      EXPECT_EQ(p.exit_code, 2) << c.name << " " << p.err;
      EXPECT_EQ(CountLines(p.err), 1) << c.name << " " << p.err;
      EXPECT_TRUE(Has(p.err, job + c.where)) << c.name << ": " << p.err;
      EXPECT_TRUE(Has(p.err, c.why)) << c.name << ": " << p.err;
      EXPECT_EQ(p.out, "") << c.name;
    }
    EXPECT_EQ(std::filesystem::file_size(t / "data.img"), before) << c.name;
    EXPECT_EQ(FileSha256(t / "data.img"), sum) << c.name;
  }
}

TEST(FioJobFile, MissingJobFileIsOneLine) {
  TempDir t;
  Proc p = RunSsdlab({"run", t / "nope.fio"});
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_EQ(CountLines(p.err), 1) << p.err;
  EXPECT_TRUE(Has(p.err, "job file " + (t / "nope.fio") + ": no such file")) << p.err;
}

TEST(FioJobFile, ExplainPrintsOneCommandLinePerSectionWithoutRunning) {
  TempDir t;
  const std::string job =
      WriteJob(t, "explain",
               "[global]\nfilename=@FILE@\ndirect=1\nioengine=libaio\niodepth=16\nruntime=1m\n"
               "time_based\n[mix]\nrw=randrw\nrwmixwrite=30\nbssplit=4k/50:64k/\nrate_iops=100\n"
               "numjobs=2\ngroup_reporting\n[seq]\nstonewall\nrw=read\nbs=128k\nsize=50%\n"
               "ramp_time=500ms\nruntime=2s\nzero_buffers\n");
  const std::string sum = FileSha256(t / "data.img");
  Proc p = RunSsdlab({"run", job, "--explain"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const std::string data = t / "data.img";
  EXPECT_TRUE(Has(p.out, "# [mix] " + job + ":8\nssdlab run --target " + data +
                             " --rw randrw --rwmix-read 70 --bs 4KiB:50,64KiB:50 --qd 16 --jobs 2 "
                             "--runtime 60s --rate-iops 200 --engine libaio --batch-complete 1\n"))
      << p.out;
  EXPECT_TRUE(Has(p.out, "# [seq] " + job + ":15\nssdlab run --target " + data +
                             " --rw read --bs 128KiB --qd 16 --runtime 2s --ramp 500ms --range "
                             "0%-50% --engine libaio --batch-complete 1 --data zero\n"))
      << p.out;
  EXPECT_TRUE(Has(p.out, "#   rate_iops=100 per job: --rate-iops 200 over all jobs")) << p.out;
  EXPECT_EQ(FileSha256(t / "data.img"), sum);
}

TEST(FioJobFile, SectionPicksOneAndNamesTheOthersWhenUnknown) {
  TempDir t;
  const std::string job = WriteJob(t, "pick",
                                   "[global]\nfilename=@FILE@\nrw=read\nbs=4k\nsize=1m\n"
                                   "direct=1\n[a]\n[b]\nsize=2m\n");
  // Without --section the two would run at once in fio: refused; with it, one runs.
  EXPECT_EQ(RunSsdlab({"run", job}).exit_code, 2);
  const std::string out = t / "b.json";
  Proc p = RunSsdlab({"run", job, "--section", "b", "--json", out});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json docs = ReadJson(out);
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0]["results"]["read"]["ios"].get<uint64_t>(), 512u);
  Proc bad = RunSsdlab({"run", job, "--section", "c"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Has(bad.err, "--section c: " + job + " has no such section (a, b)")) << bad.err;
}

// --db: each section stored as a run of kind run, named --run-SECTION; every name is checked
// free before the first section runs.
TEST(FioJobFile, DbStoresEachSectionAsARun) {
  TempDir t;
  const std::string job = WriteJob(t, "two",
                                   "[global]\nfilename=@FILE@\nbs=4k\nsize=1m\ndirect=1\n"
                                   "[rd]\nrw=read\n[wr]\nstonewall\nrw=randwrite\nnumber_ios=64\n");
  const std::string db = t / "r.db";
  Proc p = RunSsdlab({"run", job, "--db", db, "--run", "j"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(Has(p.out, "stored as run 'j-rd'")) << p.out;
  EXPECT_TRUE(Has(p.out, "stored as run 'j-wr'")) << p.out;
  EXPECT_EQ(SqlRows(db, "SELECT name, kind, status FROM runs ORDER BY id"),
            (std::vector<std::string>{"j-rd|run|done", "j-wr|run|done"}));
  // Run again: 'j-wr' is taken, refused before the first section runs ('j-rd' not stored twice).
  Proc again = RunSsdlab({"run", job, "--db", db, "--run", "j"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(Has(again.err, "--run 'j-rd' already exists")) << again.err;
  EXPECT_FALSE(Has(again.out, "[rd]")) << again.out;
  Proc lone = RunSsdlab({"run", job, "--run", "j"});
  EXPECT_EQ(lone.exit_code, 2);
  EXPECT_TRUE(Has(lone.err, "--run needs --db")) << lone.err;
}

TEST(FioJobFile, WorkloadFlagsDoNotCombineWithAJobFile) {
  TempDir t;
  const std::string job = WriteJob(t, "flags", "[a]\nfilename=@FILE@\nrw=read\nsize=1m\n");
  Proc p = RunSsdlab({"run", job, "--qd", "4"});
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_TRUE(Has(p.err, "--qd does not combine with a job file")) << p.err;
  Proc e = RunSsdlab({"run", "--target", "sim:tiny", "--explain"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_TRUE(Has(e.err, "--explain needs a job file")) << e.err;
  // fio's flag names on the command line are still answered with ssdlab's.
  Proc f = RunSsdlab({"run", job, "--iodepth=4"});
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_TRUE(Has(f.err, "--iodepth is fio's name; ssdlab's is --qd N")) << f.err;
}

TEST(FioJobFile, TargetGivesTheFilenameOfJobsWithoutOne) {
  TempDir t;
  const std::string job = WriteJob(t, "generic", "[w]\nrw=randwrite\nbs=4k\nnumber_ios=64\n");
  Proc none = RunSsdlab({"run", job});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(Has(none.err, job + ":1: [w] filename: not given")) << none.err;
  const std::string out = t / "w.json";
  Proc p = RunSsdlab({"run", job, "--target", "sim:tiny", "--json", out});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(ReadJson(out)[0]["results"]["write"]["ios"].get<uint64_t>(), 64u);
}

TEST(FioJobFile, AJobNeverWritesItsOwnJobFile) {
  TempDir t;
  const std::string job = t / "self.fio";
  std::ofstream(job) << "[self]\nfilename=" << job << "\nrw=write\nsize=4k\n";
  const std::string sum = FileSha256(job);
  Proc p = RunSsdlab({"run", job});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_TRUE(Has(p.err, "same file")) << p.err;
  EXPECT_EQ(FileSha256(job), sum);
}

TEST(FioJobFile, WritingABlockDeviceNeedsDestructiveAsRunDoes) {
  TempDir t;
  LoopDevices loops;
  std::string dev;
  if (!loops.Attach(t / "loop.img", 16ull << 20, &dev)) GTEST_SKIP() << loops.error();
  const std::string job = t / "dev.fio";
  std::ofstream(job) << "[dev]\nfilename=" << dev << "\nrw=write\nbs=4k\nsize=1m\ndirect=1\n";
  Proc p = RunSsdlab({"run", job});
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_TRUE(Has(p.err, "--destructive")) << p.err;
  Proc fill = RunSsdlab({"run", WriteJob(t, "fill",
                                         "[f]\nfilename=@FILE@\nrw=write\n"
                                         "fill_device=1\n")});
  EXPECT_EQ(fill.exit_code, 2);
  EXPECT_TRUE(Has(fill.err, "[f] fill_device:")) << fill.err;
  Proc ok = RunSsdlab({"run", job, "--destructive"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace ssdlab::test
