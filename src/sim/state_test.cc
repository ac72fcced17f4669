// Saved states (sim/state.h): round trips keep every counter and what follows, damaged and
// foreign files are refused with the right message and never crash; every spelling of a state
// resolves to one file and one lock (sim/state_lock.h); saves go through symlinks; a purge may
// replace damage of ssdlab's own, nothing else.
#include "sim/state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "base/units.h"
#include "sim/params.h"
#include "sim/sim.h"
#include "sim/state_lock.h"
#include "sim/test_util.h"

namespace ssdlab::simtest {
namespace {

namespace fs = std::filesystem;

class StateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ssdlab-state-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::string ReadAll(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

void ExpectSameResult(const PhaseResult& a, const PhaseResult& b) {
  EXPECT_EQ(a.measured_ns, b.measured_ns);
  for (int d = 0; d < kDirections; ++d) {
    EXPECT_EQ(a.dirs[d].ios, b.dirs[d].ios) << d;
    EXPECT_EQ(a.dirs[d].bytes, b.dirs[d].bytes) << d;
    EXPECT_EQ(a.dirs[d].latency.sum(), b.dirs[d].latency.sum()) << d;
    EXPECT_EQ(a.dirs[d].latency.max(), b.dirs[d].latency.max()) << d;
    EXPECT_EQ(a.dirs[d].latency.NonEmptyBuckets(), b.dirs[d].latency.NonEmptyBuckets()) << d;
  }
  EXPECT_EQ(a.counters, b.counters);
  EXPECT_EQ(a.notes, b.notes);
}

void ExpectSameCounters(const SimBackend& a, const SimBackend& b) {
  const SimCounters x = a.counters(), y = b.counters();
  EXPECT_EQ(x.host_pages_written, y.host_pages_written);
  EXPECT_EQ(x.nand_pages_written, y.nand_pages_written);
  EXPECT_EQ(x.gc_page_copies, y.gc_page_copies);
  EXPECT_EQ(x.erases, y.erases);
  EXPECT_EQ(x.nand_page_reads, y.nand_page_reads);
  EXPECT_EQ(x.free_blocks, y.free_blocks);
  EXPECT_EQ(x.slc_cache_used_bytes, y.slc_cache_used_bytes);
  EXPECT_EQ(x.virtual_time_ns, y.virtual_time_ns);
  EXPECT_EQ(x.mapped_pages, y.mapped_pages);
  EXPECT_EQ(x.host_read_pages, y.host_read_pages);
  EXPECT_EQ(x.unmapped_read_pages, y.unmapped_read_pages);
}

// One process running all phases against a save after the preparation and a load in a "new
// process" (a new backend): the measured phase and every counter must be identical.
void RoundTrip(const std::string& base, const std::string& path, bool idle) {
  SCOPED_TRACE(base);
  const std::string sep = base.find('?') == std::string::npos ? "?" : "&";
  auto one = Open(base);
  auto saved = Open(base + sep + "state=" + path);
  ASSERT_TRUE(one && saved);
  for (SimBackend* b : {one.get(), saved.get()}) {
    RunSpec(*b, Spec(*b, "write", "128KiB", 16, "1x"));
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 8, "1.5x", "", "0%-100%", 2, 7));
    const std::string mix = b->info().logical_block_bytes == 512 ? "512:20,4KiB:50,64KiB:30"
                                                                 : "4KiB:60,8KiB:10,64KiB:30";
    RunSpec(*b, Spec(*b, "randrw", mix, 4, "", "30ms", "0%-100%", 3, 9));
    if (idle) {
      ASSERT_TRUE(b->Idle(20 * kNsPerMs, RunControl{}).ok());
    }
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 32, "0.3x", "", "0%-50%", 1, 11));
  }
  ASSERT_TRUE(saved->Close().ok());
  saved.reset();
  auto loaded = Open(base + sep + "state=" + path);
  ASSERT_TRUE(loaded);
  ExpectSameCounters(*one, *loaded);
  for (SimBackend* b : {one.get(), loaded.get()})
    ASSERT_EQ(b->info().size_bytes, one->info().size_bytes);
  const PhaseResult a =
      RunSpec(*one, Spec(*one, "randrw", "4KiB:80,16KiB:20", 16, "", "40ms", "0%-100%", 2, 3));
  const PhaseResult b = RunSpec(
      *loaded, Spec(*loaded, "randrw", "4KiB:80,16KiB:20", 16, "", "40ms", "0%-100%", 2, 3));
  ExpectSameResult(a, b);
  ExpectSameCounters(*one, *loaded);
}

TEST_F(StateTest, RoundTripKeepsEveryCounterAndTheNextPhase) {
  RoundTrip("sim:tiny?capacity=64MiB", Path("a.st"), false);
  RoundTrip("sim:tiny?capacity=64MiB&gc=dchoices&gc_lazy=1", Path("b.st"), true);
  RoundTrip("sim:tiny?capacity=64MiB&gc_lazy=1&gc_batch_pct=20&gc_batch_pace=2", Path("g.st"),
            true);
  RoundTrip("sim:tiny?capacity=64MiB&gc=fifo&interface=nvme", Path("c.st"), true);
  RoundTrip("sim:tiny?capacity=64MiB&gc=costbenefit&slc_dynamic_pct=30&slc_static=8MiB",
            Path("d.st"), true);
  RoundTrip("sim:client-nvme-tlc?scale=1024", Path("e.st"), true);
  RoundTrip("sim:dc-sata-read-intensive?scale=4096", Path("f.st"), true);
}

// A state is the drive's, not the process's: two drives driven alike save the same bytes,
// wherever they are saved (no field carries a path or a time; padding, which would carry
// whatever the memory held, is refused when the state writer is compiled).
TEST_F(StateTest, TwoDrivesDrivenAlikeSaveTheSameBytes) {
  const std::string t = "sim:dc-sata-mixed?scale=2048";
  for (const char* name : {"one.st", "two.st"}) {
    auto b = Open(t + "&state=" + Path(name));
    ASSERT_TRUE(b);
    RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
    RunSpec(*b, Spec(*b, "randrw", "4KiB:70,64KiB:30", 16, "", "30ms", "0%-100%", 2, 5));
    ASSERT_TRUE(b->Close().ok());
  }
  const std::string one = ReadAll(Path("one.st")), two = ReadAll(Path("two.st"));
  EXPECT_GT(one.size(), 1000u);
  EXPECT_TRUE(one == two) << one.size() << " and " << two.size() << " bytes";
}

TEST_F(StateTest, CommandSequenceEqualsOneProcess) {
  // `run --rw write --io-size 2x` then `run --rw randread`, as two commands with a state.
  const std::string t = "sim:dc-sata-mixed?scale=2048";
  auto one = Open(t);
  RunSpec(*one, Spec(*one, "write", "128KiB", 1, "2x"));
  const PhaseResult want = RunSpec(*one, Spec(*one, "randread", "4KiB", 1, "", "1s"));
  {
    auto first = Open(t + "&state=" + Path("s"));
    RunSpec(*first, Spec(*first, "write", "128KiB", 1, "2x"));
    ASSERT_TRUE(first->Close().ok());
  }
  auto second = Open(t + "&state=" + Path("s"));
  const PhaseResult got = RunSpec(*second, Spec(*second, "randread", "4KiB", 1, "", "1s"));
  ExpectSameResult(want, got);
  EXPECT_GT(Counter(got, "nand_page_reads"), 0);
  // 128 KiB writes leave the last partial block of the drive unwritten: a page or so.
  EXPECT_LT(Counter(got, "unmapped_read_pages"), 1e-3 * Counter(got, "host_read_pages"));
}

TEST_F(StateTest, ArrayMembersKeepTheirOwnStates) {
  const std::string a = "sim:tiny?capacity=64MiB&state=" + Path("m0"),
                    b = "sim:tiny?capacity=64MiB&state=" + Path("m1");
  auto target = ArrayTarget({a, b}, "raid1", "64KiB");
  ASSERT_TRUE(target.ok()) << target.status().message();
  auto plain =
      ArrayTarget({"sim:tiny?capacity=64MiB", "sim:tiny?capacity=64MiB"}, "raid1", "64KiB");
  auto one = Open(plain.value());
  auto first = Open(target.value());
  for (SimBackend* x : {one.get(), first.get()})
    RunSpec(*x, Spec(*x, "randwrite", "4KiB", 8, "2x"));
  ASSERT_TRUE(first->Close().ok());
  EXPECT_TRUE(fs::exists(Path("m0")) && fs::exists(Path("m1")));
  first.reset();
  auto second = Open(target.value());
  ExpectSameCounters(*one, *second);
  ExpectSameResult(RunSpec(*one, Spec(*one, "randrw", "4KiB", 8, "", "20ms")),
                   RunSpec(*second, Spec(*second, "randrw", "4KiB", 8, "", "20ms")));

  auto same = OpenSimBackend(ArrayTarget({a, a}, "raid1", "64KiB").value());
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.status().message().find("share the state file"), std::string::npos);
  auto mixed =
      OpenSimBackend(ArrayTarget({a, "sim:tiny?capacity=64MiB"}, "raid1", "64KiB").value());
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("some array members have a state"), std::string::npos);
}

TEST_F(StateTest, NothingRunNothingSaved) {
  auto b = Open("sim:tiny?capacity=64MiB&state=" + Path("x"));
  ASSERT_TRUE(b->Close().ok());
  EXPECT_FALSE(fs::exists(Path("x")));
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "0.5x"));
  ASSERT_TRUE(b->Close().ok());
  EXPECT_TRUE(fs::exists(Path("x")));
  // Nothing but the state and its lock file (sim/state_lock.h, kept): no temporary file.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 2);
  EXPECT_TRUE(fs::exists(Path(".x.ssdlab-lock")));
}

TEST_F(StateTest, HeaderSummaryAndPurgeKeepsWear) {
  const std::string t = "sim:tiny?capacity=64MiB&state=" + Path("w");
  {
    auto b = Open(t);
    RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 8, "2x"));
    ASSERT_TRUE(b->Close().ok());
  }
  auto p = sim::ParseSimTarget(t);
  auto s = sim::ReadStateHeader(Path("w"), p.value());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_GT(s->fill_pct(), 99.0);
  EXPECT_GT(s->write_amplification(), 1.0);
  EXPECT_GT(s->erase_count_max, 0u);
  EXPECT_GT(s->virtual_time_ns, 0u);
  {
    auto b = Open(t);
    ASSERT_TRUE(b->Purge("auto", RunControl{}).ok());
    ASSERT_TRUE(b->Close().ok());
  }
  auto after = sim::ReadStateHeader(Path("w"), p.value());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->mapped_pages, 0u);
  EXPECT_EQ(after->host_pages, 0u);
  EXPECT_EQ(after->virtual_time_ns, 0u);
  EXPECT_EQ(after->erase_count_max, s->erase_count_max);  // wear survives a purge
  EXPECT_EQ(after->erase_count_mean, s->erase_count_mean);
}

TEST_F(StateTest, UnmappedReadsAreCountedAndNoted) {
  auto b = Open("sim:tiny?capacity=64MiB");
  PhaseResult r = RunSpec(*b, Spec(*b, "randread", "4KiB", 1, "", "20ms"));
  EXPECT_EQ(Counter(r, "nand_page_reads"), 0);
  EXPECT_EQ(Counter(r, "unmapped_read_pages"), Counter(r, "host_read_pages"));
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0],
            "100% of reads found unwritten space and were answered without NAND reads (use "
            "--prefill or precondition first)");
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "", "", "0%-50%"));
  r = RunSpec(*b, Spec(*b, "randread", "4KiB", 1, "", "50ms"));
  const double share = Counter(r, "unmapped_read_pages") / Counter(r, "host_read_pages");
  EXPECT_GT(share, 0.4);
  EXPECT_LT(share, 0.6);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("% of reads found unwritten space"), std::string::npos);
  RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
  r = RunSpec(*b, Spec(*b, "randread", "4KiB", 1, "", "20ms"));
  EXPECT_EQ(Counter(r, "unmapped_read_pages"), 0);
  EXPECT_TRUE(r.notes.empty());
}

class StateRefusal : public StateTest {
 protected:
  void SetUp() override {
    StateTest::SetUp();
    auto b = Open(kTarget + Path("good"));
    RunSpec(*b, Spec(*b, "write", "128KiB", 4, "1x"));
    RunSpec(*b, Spec(*b, "randwrite", "4KiB", 8, "0.5x"));
    ASSERT_TRUE(b->Close().ok());
    good_ = ReadAll(Path("good"));
    ASSERT_GT(good_.size(), 100u);
  }
  // Opens `bytes` as a state; returns the error (empty: it loaded).
  std::string Try(const std::string& bytes, const std::string& target = kTarget) {
    WriteAll(Path("bad"), bytes);
    auto b = OpenSimBackend(target + Path("bad"));
    return b.ok() ? "" : b.status().message();
  }
  static inline const std::string kTarget = "sim:tiny?capacity=64MiB&op=20&state=";
  std::string good_;
};

TEST_F(StateRefusal, GoodFileLoads) { EXPECT_EQ(Try(good_), ""); }

TEST_F(StateRefusal, WrongMagic) {
  std::string e = Try("hello, this is a text file\n");
  EXPECT_NE(e.find("is not an ssdlab simulator state"), std::string::npos) << e;
  std::string bad = good_;
  bad[0] = 'X';
  EXPECT_NE(Try(bad).find("is not an ssdlab simulator state"), std::string::npos);
}

TEST_F(StateRefusal, NewerVersion) {
  std::string bad = good_;
  bad[8] = 99;
  std::string e = Try(bad);
  EXPECT_NE(e.find("format version 99, newer than this ssdlab reads (1)"), std::string::npos) << e;
}

TEST_F(StateRefusal, OtherParametersNameTheFirstDifference) {
  auto b = OpenSimBackend("sim:tiny?capacity=64MiB&op=25&gc=fifo&state=" + Path("good"));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(),
            "sim state '" + Path("good") +
                "' was made for op=20, this target has op=25; use another state= path or the "
                "same parameters");
  auto c = OpenSimBackend("sim:dc-sata-mixed?state=" + Path("good"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("was made for preset=tiny, this target has "
                                      "preset=dc-sata-mixed"),
            std::string::npos)
      << c.status().message();
  // mem_limit is not a drive parameter.
  EXPECT_TRUE(
      OpenSimBackend("sim:tiny?capacity=64MiB&op=20&mem_limit=1GiB&state=" + Path("good")).ok());
}

TEST_F(StateRefusal, TruncatedAndDamaged) {
  for (size_t n :
       {size_t{0}, size_t{5}, size_t{8}, size_t{20}, good_.size() / 2, good_.size() - 1}) {
    std::string e = Try(good_.substr(0, n));
    EXPECT_NE(e.find("is damaged or truncated"), std::string::npos) << n << ": " << e;
  }
  std::string bad = good_;
  bad[bad.size() / 2] ^= 0x10;
  std::string e = Try(bad);
  EXPECT_NE(e.find("is damaged or truncated"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  e = Try(good_ + "x");
  EXPECT_NE(e.find("is damaged or truncated"), std::string::npos) << e;
}

TEST_F(StateRefusal, FuzzedFilesAreRefusedNeverCrash) {
  std::mt19937_64 rng(42);
  int refused = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bad = good_;
    switch (i % 4) {
      case 0:  // truncation anywhere
        bad.resize(rng() % good_.size());
        break;
      case 1:  // one bit flipped
        bad[rng() % bad.size()] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 2:  // a run of random bytes
        for (size_t k = 0, at = rng() % bad.size(); k < 64 && at + k < bad.size(); ++k)
          bad[at + k] = static_cast<char>(rng());
        break;
      case 3:  // a bit flipped in the header or trailer, where lengths live
        if (rng() % 2) {
          bad[rng() % std::min<size_t>(64, bad.size())] ^= static_cast<char>(1 << (rng() % 8));
        } else {
          bad[bad.size() - 1 - rng() % 16] ^= static_cast<char>(1 << (rng() % 8));
        }
        break;
    }
    if (bad == good_) continue;
    const std::string e = Try(bad);
    ASSERT_NE(e, "") << "case " << i << " loaded a damaged file";
    EXPECT_EQ(e.find('\n'), std::string::npos);
    const bool known = e.find("is damaged or truncated") != std::string::npos ||
                       e.find("is not an ssdlab simulator state") != std::string::npos ||
                       e.find("newer than this ssdlab") != std::string::npos;
    EXPECT_TRUE(known) << e;
    ++refused;
  }
  EXPECT_GT(refused, 390);
}

// The state's identity and lock (sim/state_lock.h) ----------------------------------------------

std::string StateOrigin(const SimBackend& b) {
  for (const auto& [k, v] : b.info().details)
    if (k == "state_origin") return v;
  return "";
}

// Runs `f` with `dir` as the working directory.
template <class F>
void InDirectory(const fs::path& dir, F&& f) {
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  f();
  fs::current_path(before);
}

TEST_F(StateTest, EverySpellingOfOneStateResolvesToOneFile) {
  fs::create_directory(dir_ / "d");
  fs::create_directory_symlink("d", dir_ / "dl");          // a symlinked directory
  fs::create_symlink("d/x.st", dir_ / "link.st");          // relative, dangling: x.st is not there
  fs::create_symlink(Path("link.st"), dir_ / "link2.st");  // a chain
  const std::string want = (fs::canonical(dir_) / "d" / "x.st").string();
  for (const std::string& s : {Path("d/x.st"), Path("dl/x.st"), Path("link.st"), Path("link2.st"),
                               Path("d/.././d/x.st")}) {
    auto r = sim::ResolveStatePath(s);
    ASSERT_TRUE(r.ok()) << s << ": " << r.status().message();
    EXPECT_EQ(r.value(), want) << s;
  }
  InDirectory(dir_, [&] {
    auto r = sim::ResolveStatePath("d/x.st");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value(), want);
  });
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  auto loop = sim::ResolveStatePath(Path("a"));
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.status().message().find("too many levels of symbolic links"), std::string::npos);
}

TEST_F(StateTest, AStateIsLockedOnceEvenWithinOneProcess) {
  auto a = sim::LockState(Path("x.st"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  auto b = sim::LockState(Path("./x.st"));  // another spelling, another open file description
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), Code::kPermission);
  EXPECT_NE(b.status().message().find("'" + Path("./x.st") + "' (" + Path("x.st") +
                                      ") is in use by another ssdlab process or by another "
                                      "member of this command"),
            std::string::npos)
      << b.status().message();
  EXPECT_FALSE(fs::exists(Path("x.st"))) << "the lock created the state";
  EXPECT_TRUE(fs::exists(Path(".x.st.ssdlab-lock")));
  { sim::StateLock released = std::move(a.value()); }
  EXPECT_TRUE(sim::LockState(Path("x.st")).ok()) << "the lock outlived its holder";
  auto missing = sim::LockState(Path("none/x.st"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);
}

TEST_F(StateTest, AnOpenBackendHoldsItsStateAndSavesThroughASymlink) {
  fs::create_symlink("real.st", dir_ / "link.st");
  const std::string target = "sim:tiny?capacity=64MiB&state=" + Path("link.st");
  {
    auto b = Open(target);
    auto second = OpenSimBackend("sim:tiny?capacity=64MiB&state=" + Path("real.st"));
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), Code::kPermission);
    RunSpec(*b, Spec(*b, "write", "128KiB", 4, "0.5x"));
    ASSERT_TRUE(b->Close().ok());
  }
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.st")) << "the save replaced the symlink";
  ASSERT_TRUE(fs::is_regular_file(dir_ / "real.st"));
  const std::string saved = ReadAll(Path("real.st"));
  auto c = OpenSimBackend(target);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(StateOrigin(**c), "loaded");
  // Without the lock (a look only): opens beside the holder, and never saves.
  auto look = OpenSimBackend(target, SimOpenOptions{.lock_state = false});
  ASSERT_TRUE(look.ok()) << look.status().message();
  RunSpec(**look, Spec(**look, "randwrite", "4KiB", 4, "", "10ms"));
  ASSERT_TRUE((*look)->Close().ok());
  EXPECT_EQ(ReadAll(Path("real.st")), saved);
}

TEST_F(StateTest, ArrayMembersSpelledTwoWaysShareOneFile) {
  InDirectory(dir_, [&] {
    auto target = ArrayTarget(
        {"sim:tiny?capacity=64MiB&state=a.st", "sim:tiny?capacity=64MiB&state=" + Path("a.st")},
        "raid1", "64KiB");
    ASSERT_TRUE(target.ok()) << target.status().message();
    auto b = OpenSimBackend(target.value());
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.status().message().find("array members share the state file"), std::string::npos)
        << b.status().message();
  });
  EXPECT_FALSE(fs::exists(Path("a.st")));
}

TEST_F(StateRefusal, APurgeReplacesDamageOfOursOnly) {
  const SimOpenOptions reset{.reset_damaged_state = true};
  std::string flipped = good_;
  flipped[flipped.size() / 2] ^= 0x10;
  for (const std::string& bytes :
       {good_.substr(0, good_.size() / 2), good_.substr(0, 20), good_.substr(0, 5), flipped}) {
    WriteAll(Path("bad"), bytes);
    EXPECT_FALSE(OpenSimBackend(kTarget + Path("bad")).ok());
    auto b = OpenSimBackend(kTarget + Path("bad"), reset);
    ASSERT_TRUE(b.ok()) << bytes.size() << ": " << b.status().message();
    EXPECT_EQ(StateOrigin(**b).rfind("damaged", 0), 0u) << StateOrigin(**b);
    EXPECT_EQ((*b)->counters().mapped_pages, 0u) << "a partial load was kept";
  }
  std::string newer = good_;
  newer[8] = 99;
  auto params = sim::ParseSimTarget(kTarget + Path("bad"));
  ASSERT_TRUE(params.ok());
  for (const std::string& bytes : {std::string("hello, this is a text file\n"), newer}) {
    WriteAll(Path("bad"), bytes);
    EXPECT_FALSE(OpenSimBackend(kTarget + Path("bad"), reset).ok());
    bool damaged = false;
    EXPECT_FALSE(sim::ReadStateHeader(Path("bad"), params.value(), &damaged).ok());
    EXPECT_FALSE(damaged) << bytes.substr(0, 8);
  }
  WriteAll(Path("bad"), good_.substr(0, 20));
  bool damaged = false;
  EXPECT_FALSE(sim::ReadStateHeader(Path("bad"), params.value(), &damaged).ok());
  EXPECT_TRUE(damaged);
  auto other = OpenSimBackend("sim:tiny?capacity=64MiB&op=25&state=" + Path("good"), reset);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("was made for op=20"), std::string::npos);
}

}  // namespace
}  // namespace ssdlab::simtest
