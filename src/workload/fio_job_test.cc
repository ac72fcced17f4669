#include "workload/fio_job.h"

#include <gtest/gtest.h>

namespace ssdlab {
namespace {

// The sections of `text` (file "j.fio") translated, or the error's message.
Result<std::vector<FioRun>> Translate(const std::string& text, const std::string& section = "",
                                      const std::string& target = "") {
  auto file = ParseFioJobFile("j.fio", text);
  if (!file.ok()) return file.status();
  return TranslateFioJobs(file.value(), section, target);
}

std::string Error(const std::string& text) {
  auto r = Translate(text);
  return r.ok() ? "(no error)" : r.status().message();
}

using W = WorkloadArgs;

// One expected value: field `field` of the workload of the run numbered `run`.
struct WorkloadIs {
  size_t run;
  std::string W::*field;
  std::string value;
};

// The runs `text` (file "j.fio") translates into, after checking each of `expected` against
// them, a failure naming the run and its section; none, after a failure, where it is refused.
std::vector<FioRun> ExpectWorkloads(const std::string& text,
                                    const std::vector<WorkloadIs>& expected) {
  auto runs = Translate(text);
  if (!runs.ok()) {
    ADD_FAILURE() << runs.status().message();
    return {};
  }
  for (const WorkloadIs& e : expected) {
    if (e.run >= runs->size()) {
      ADD_FAILURE() << "no run " << e.run << ": " << runs->size() << " runs";
      continue;
    }
    SCOPED_TRACE("run " + std::to_string(e.run) + " [" + (*runs)[e.run].section + "]");
    EXPECT_EQ((*runs)[e.run].workload.*e.field, e.value);
  }
  return std::move(runs).value();
}

TEST(FioJob, SizesAsFioReadsThem) {
  EXPECT_EQ(ParseFioSize("4k").value(), 4096u);
  EXPECT_EQ(ParseFioSize("4K").value(), 4096u);
  EXPECT_EQ(ParseFioSize("4kb").value(), 4096u);
  EXPECT_EQ(ParseFioSize("4KiB").value(), 4096u);
  EXPECT_EQ(ParseFioSize("1m").value(), 1048576u);
  EXPECT_EQ(ParseFioSize("2G").value(), 2ull << 30);
  EXPECT_EQ(ParseFioSize("512").value(), 512u);
  EXPECT_EQ(ParseFioSize("512b").value(), 512u);
  EXPECT_EQ(ParseFioSize("0x1000").value(), 4096u);
  EXPECT_EQ(ParseFioSize("1.5k").value(), 1536u);
  // kb_base=1000: SI prefixes are decimal, the IEC ones stay binary.
  EXPECT_EQ(ParseFioSize("4k", 1000).value(), 4000u);
  EXPECT_EQ(ParseFioSize("4kb", 1000).value(), 4000u);
  EXPECT_EQ(ParseFioSize("4kib", 1000).value(), 4096u);
  EXPECT_EQ(ParseFioSize("1m", 1000).value(), 1000000u);
  for (const char* bad : {"4kk", "", "k", "4x", "-4k", "4 k k", "0.3", "4kibb", "0x"})
    EXPECT_FALSE(ParseFioSize(bad).ok()) << bad;
}

TEST(FioJob, TimesAsFioReadsThem) {
  EXPECT_EQ(ParseFioTimeNs("30").value(), 30'000'000'000u);  // bare: seconds
  EXPECT_EQ(ParseFioTimeNs("30s").value(), 30'000'000'000u);
  EXPECT_EQ(ParseFioTimeNs("1m").value(), 60'000'000'000u);  // m: minutes
  EXPECT_EQ(ParseFioTimeNs("2min").value(), 120'000'000'000u);
  EXPECT_EQ(ParseFioTimeNs("500ms").value(), 500'000'000u);
  EXPECT_EQ(ParseFioTimeNs("250usec").value(), 250'000u);
  EXPECT_EQ(ParseFioTimeNs("1h").value(), 3'600'000'000'000u);
  EXPECT_EQ(ParseFioTimeNs("1.5s").value(), 1'500'000'000u);
  for (const char* bad : {"", "s", "5mm", "10 seconds", "-1", "1y"})
    EXPECT_FALSE(ParseFioTimeNs(bad).ok()) << bad;
}

TEST(FioJob, GlobalOptionsAreInheritedWhereTheSectionStarts) {
  const std::vector<FioRun> runs = ExpectWorkloads(
      "[global]\nfilename=/t/a.img\nbs=8k\niodepth=4\nioengine=io_uring\ndirect=1\n"
      "[a]\nrw=randread\n[global]\niodepth=16\n[b]\nstonewall\nrw=write\n[c]\nstonewall\n"
      "bs=16k\n",
      {{1, &W::bs, "8KiB"},
       {2, &W::bs, "16KiB"},   // a section overrides [global]
       {2, &W::rw, "read"}});  // fio's default
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].section, "a");
  EXPECT_EQ(runs[0].line, 7);
  EXPECT_EQ(runs[0].workload.qd, 4u);   // the later [global] is not yet in force
  EXPECT_EQ(runs[1].workload.qd, 16u);  // it is here
  for (const FioRun& r : runs) {
    EXPECT_EQ(r.target, "/t/a.img");
    EXPECT_FALSE(r.buffered);
  }
}

TEST(FioJob, AmountsArePerJobInFioAndOverAllJobsInSsdlab) {
  ExpectWorkloads(
      "[global]\nfilename=/t/a.img\nnumjobs=4\n[io]\nio_size=1m\n[n]\nstonewall\n"
      "number_ios=100\nbs=8k\n[whole]\nstonewall\n[t]\nstonewall\nruntime=90\ntime_based\n"
      "ramp_time=1m\n[r]\nstonewall\nrate_iops=50\nrw=randread\n",
      {{0, &W::io_size, "4MiB"},
       {1, &W::io_size, "3200KiB"},
       {2, &W::io_size, "4x"},  // the region (size=, or the target) per job
       {3, &W::io_size, ""},
       {3, &W::runtime, "90s"},
       {3, &W::ramp, "60s"},
       {4, &W::rate_iops, "200"}});
}

TEST(FioJob, MixesAndRegions) {
  const std::vector<FioRun> runs = ExpectWorkloads(
      "[global]\nfilename=/t/a.img\n[w]\nrw=randrw\nrwmixread=10\nrwmixwrite=30\n[r]\n"
      "stonewall\nrw=rw\nrwmixwrite=30\nrwmixread=60\noffset=1m\nsize=2m\n[p]\nstonewall\n"
      "offset=10%\nsize=25%\n[s]\nstonewall\nbssplit=4k/10:8k/:64k/\n[q]\nstonewall\n"
      "blocksize_range=4k-12k\n",
      {{0, &W::rwmix_read, "70"},  // the last given wins, as in fio
       {1, &W::rwmix_read, "60"},
       {1, &W::range, "1MiB-3MiB"},
       {2, &W::range, "10%-35%"},
       {3, &W::bs, "4KiB:10,8KiB:45,64KiB:45"},
       {4, &W::bs, "4KiB:33.3333,8KiB:33.3333,12KiB:33.3334"}});
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[1].size_bytes, 3u << 20);
}

TEST(FioJob, EnginesAndTheirOptions) {
  auto runs = Translate(
      "[global]\nfilename=/t/a.img\niodepth=32\n[u]\nioengine=io_uring\nhipri\nsqthread_poll\n"
      "sqthread_poll_cpu=2\niodepth_batch_submit=8\niodepth_batch_complete_min=4\n"
      "iodepth_batch_complete_max=16\ncpus_allowed=0-1\n[s]\nstonewall\nioengine=sync\n");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  const FioRun& u = (*runs)[0];
  EXPECT_EQ(FioRunCommandLine(u),
            "ssdlab run --target /t/a.img --rw read --bs 4KiB --qd 32 --io-size 1x --buffered "
            "--batch-submit 8 --batch-complete 4:16 --sqpoll --sqpoll-cpu 2 --hipri "
            "--cpus-allowed 0-1");
  const FioRun& s = (*runs)[1];
  EXPECT_EQ(s.engine, "psync");
  EXPECT_EQ(s.workload.qd, 1u);  // a synchronous engine: one I/O in flight
  EXPECT_EQ(s.batch_complete, "");
  // A simulated drive: no engine options, no page cache.
  auto sim = Translate("[x]\nfilename=sim:tiny\nrw=randwrite\nioengine=libaio\n");
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  EXPECT_EQ(FioRunCommandLine((*sim)[0]),
            "ssdlab run --target sim:tiny --rw randwrite --bs 4KiB --io-size 1x");
}

TEST(FioJob, ErrorsNameTheFileLineSectionAndOption) {
  EXPECT_EQ(Error("[global]\nfilename=/t/a\n[a]\niodepht=4\n"),
            "j.fio:4: [a] iodepht: not an fio option ssdlab reads (the options it reads, and what "
            "each becomes: docs/run.md, \"fio job files\")");
  EXPECT_EQ(Error("[global]\nfilename=/t/a\nioengine=spdk\n[a]\n"),
            "j.fio:3: [a] ioengine: 'spdk' is an engine ssdlab does not run (io_uring, libaio, "
            "psync, sync)");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\n\n; comment\nsize=4kk\n"),
            "j.fio:5: [a] size: '4kk' is not a size ('4kk' is not a size like 4k, 64KiB or 1g)");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\nruntime=5mm\n"),
            "j.fio:3: [a] runtime: '5mm' is not a time ('5mm' is not a time like 30, 30s, 1m or "
            "500ms)");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\n[b]\nfilename=/t/b\n").substr(0, 30),
            "j.fio:3: [b] stonewall: not gi");
  EXPECT_EQ(Error("[a]\nrw=read\n"),
            "j.fio:1: [a] filename: not given (name the target in the job or with --target)");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\nrw=randread\nrandrepeat=0\n").substr(0, 26),
            "j.fio:4: [a] randrepeat: 0");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\nbs=4k,8k\n").substr(0, 24), "j.fio:3: [a] bs: '4k,8k'");
  EXPECT_EQ(Error("[a]\nfilename=/t/a:/t/b\n").substr(0, 30), "j.fio:2: [a] filename: '/t/a:/");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\nioengine=psync\nhipri\n").substr(0, 20),
            "j.fio:4: [a] hipri: ");
  EXPECT_EQ(Error("[a]\nfilename=sim:tiny\ncpus_allowed=1\n").substr(0, 27),
            "j.fio:3: [a] cpus_allowed: ");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\nzero_buffers\ndedupe_percentage=20\n").substr(0, 32),
            "j.fio:4: [a] dedupe_percentage: ");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\nnumber_ios=4\nbssplit=4k/50:8k/50\n").substr(0, 25),
            "j.fio:3: [a] number_ios: ");
  EXPECT_EQ(Error("[a]\nfilename=/t/a\nrw=read\ndirect=yes\n"),
            "j.fio:4: [a] direct: 'yes' is not 0 or 1");
  // The file's structure.
  EXPECT_EQ(Error("rw=read\n[a]\n"), "j.fio:1: rw: an option before any [section]");
  EXPECT_EQ(Error("[a\n"), "j.fio:1: '[a' lacks its ']'");
  EXPECT_EQ(Error("[global]\nrw=read\n"), "j.fio: no job section (only [global], or none)");
  EXPECT_EQ(Error("[a]\ninclude other.fio\n").substr(0, 17), "j.fio:2: include:");
  EXPECT_EQ(Error("[a]\nfilename=${DEV}\n").substr(0, 23), "j.fio:2: [a] filename: ");
}

TEST(FioJob, SectionSelectsByName) {
  const std::string text = "[global]\nfilename=/t/a\n[a]\n[b]\nbs=8k\n";
  auto b = Translate(text, "b");
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].workload.bs, "8KiB");
  auto none = Translate(text, "c");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "--section c: j.fio has no such section (a, b)");
  auto target = Translate("[a]\nrw=read\n", "", "sim:tiny");
  ASSERT_TRUE(target.ok());
  EXPECT_EQ((*target)[0].target, "sim:tiny");
}

TEST(FioJob, NotesSayWhereSsdlabDiffersFromFio) {
  auto runs = Translate("[a]\nfilename=/t/a\nrw=randread\nrwmixread=70\nnumjobs=2\n");
  ASSERT_TRUE(runs.ok());
  std::string notes;
  for (const std::string& n : (*runs)[0].notes) notes += n + "\n";
  EXPECT_NE(notes.find("rwmixread=70 does not apply to rw=randread"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no ioengine=: fio's default, psync"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no direct=1: fio's default, buffered I/O"), std::string::npos) << notes;
  EXPECT_NE(notes.find("fio's random map"), std::string::npos) << notes;
  EXPECT_NE(notes.find("numjobs=2 without group_reporting"), std::string::npos) << notes;
}

}  // namespace
}  // namespace ssdlab
