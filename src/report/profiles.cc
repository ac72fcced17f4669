// The review-lab profiles in the report (suite/profile.h): one section per profile, the runs
// holding it side by side, and every fill level of a run (--fill 0,90) as its own column. The
// blocks of each kind are in profiles_review.cc and profiles_load.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/profiles_internal.h"

namespace ssdlab::report {

bool IsProfileTest(const json& test) {
  const json& res = Get(test, "results");
  return Get(res, "kind").is_string() && Get(res, "levels").is_array();
}

namespace profiles {

std::string FmtBytes(double b) {
  if (b >= 1e9) return fmt::format("{} ({:.1f} GB)", FmtInt(b), b / 1e9);
  if (b >= 1 << 20 && std::fmod(b, 1 << 20) == 0) return fmt::format("{:g} MiB", b / (1 << 20));
  return FmtInt(b) + " bytes";
}

std::string SizeLabel(double b) {
  if (b >= (1 << 20) && std::fmod(b, 1 << 20) == 0) return fmt::format("{:g} MiB", b / (1 << 20));
  if (b >= 1024 && std::fmod(b, 1024) == 0) return fmt::format("{:g} KiB", b / 1024);
  return fmt::format("{:g} B", b);
}

void AddOnce(json& sort, const std::string& v) {
  if (std::find(sort.begin(), sort.end(), json(v)) == sort.end()) sort.push_back(v);
}

Ctx SubCtx(const Ctx& ctx, const std::vector<Series>& series) {
  std::set<std::string> labels;
  for (const Series& s : series) labels.insert(s.label);
  return Ctx{ctx.runs, labels.size() > 1};
}

namespace {

// Section ids are used as anchors: letters, digits and '-' only.
std::string Anchor(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

// A run's profile test read through its typed form.
struct ReadTest {
  const ReportRun* run;
  const json* test;
  Result<results::ProfileResults> res;
};

std::vector<ReadTest> ReadTests(const Ctx& ctx) {
  std::vector<ReadTest> out;
  for (const ReportRun& r : ctx.runs) {
    for (const json& t : Get(r.doc, "tests")) {
      if (!IsProfileTest(t)) continue;
      out.push_back(
          {&r, &t,
           results::ProfileResultsFromJson(Get(t, "results"), Str(t, "name") + ".results")});
    }
  }
  return out;
}

// The sections' groups over `tests` (which must outlive them).
std::vector<Group> Groups(const std::vector<ReadTest>& tests) {
  std::vector<Group> groups;
  for (const ReadTest& rt : tests) {
    std::string kind = Str(Get(*rt.test, "results"), "kind");
    std::string key = kind == "curve" ? "curves" : Str(*rt.test, "name");
    auto g =
        std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == key; });
    if (g == groups.end()) {
      groups.push_back({key, kind, {}, {}, {}, {}, {}});
      g = groups.end() - 1;
    }
    if (!rt.res.ok()) {
      g->damaged.push_back(rt.run->label + ": damaged: " + rt.res.status().message());
      continue;
    }
    g->tests.push_back(&*rt.res);
    g->runs.push_back(rt.run);
    g->stored.push_back(rt.test);
    for (const results::ProfileLevel& l : rt.res->levels) {
      std::string label = rt.run->label;
      if (l.fill_pct) label += fmt::format(", {:g}% full", *l.fill_pct);
      g->series.push_back({label, rt.run, rt.test, &l});
    }
  }
  return groups;
}

std::string PrepText(const Series& s) {
  const auto& p = s.level->preparation;
  if (!p) return "none: the target as found";
  std::string t = "purge (" + p->purge_method.value_or("-") + ")";
  double filled = static_cast<double>(p->filled_bytes);
  if (filled > 0)
    t += fmt::format(", then {:g}% ({}) written sequentially at {:.0f} MB/s",
                     s.level->fill_pct.value_or(0), FmtBytes(filled), p->mb_s);
  return t;
}

}  // namespace

json ParamsBlock(Ctx& ctx, const Group& g, const std::vector<Fact>& facts) {
  json cols = json::array({"Parameter"});
  for (const Series& s : g.series) cols.push_back(s.label);
  std::vector<Fact> all = {
      {"Target",
       [](const Series& s) { return Str(Get(Get(s.run->doc, "context"), "target"), "path"); }},
      {"Preparation", PrepText}};
  all.insert(all.end(), facts.begin(), facts.end());
  json rows = json::array();
  for (const auto& [name, fn] : all) {
    json rw = json::array({name});
    for (const Series& s : g.series) rw.push_back(fn(s));
    rows.push_back(rw);
  }
  return TableBlock(ctx.Id("params-profile-" + Anchor(g.key)), "Profile parameters", cols, rows);
}

namespace {

// The same figures at each fill level of a run (--fill 0,90): a table per run and the change
// from the first level per metric as bars.
json FillBlocks(Ctx& ctx, const Group& g) {
  json blocks = json::array(), values = json::array(), sort = json::array();
  std::set<std::string> drives;
  for (size_t i = 0; i < g.tests.size(); ++i) {
    const results::ProfileResults& res = *g.tests[i];
    if (res.differences.empty() || res.levels.size() < 2) continue;
    std::string drive = g.runs[i]->label;
    if (g.kind == "curve") drive += " " + Str(*g.stored[i], "name");
    json cols = json::array({"Metric"});
    for (const results::ProfileLevel& l : res.levels)
      cols.push_back(fmt::format("{:g}% full", l.fill_pct.value_or(0)));
    cols.push_back("Change");
    json rows = json::array();
    for (const results::ProfileDifference& d : res.differences) {
      json rw = json::array({d.metric});
      for (double v : d.values) rw.push_back(FmtNum(v, 4));
      double ch = d.change_pct;
      rw.push_back(Cell(fmt::format("{:+.1f}%", ch), ch <= -10 ? "bad" : ch >= 10 ? "good" : ""));
      rows.push_back(rw);
      values.push_back({{"drive", drive}, {"metric", d.metric}, {"change_pct", R6(ch)}});
      AddOnce(sort, d.metric);
      drives.insert(drive);
    }
    blocks.push_back(
        TableBlock(ctx.Id("fill-table-" + Anchor(g.key)),
                   fmt::format("{}: the figures at each fill level (purged, then filled "
                               "sequentially) and the change from the first level",
                               drive),
                   cols, rows));
  }
  if (values.empty()) return blocks;
  Ctx sub{ctx.runs, drives.size() > 1};
  json s = BarSpec("Change from the first fill level", values, Q("change_pct", "Change, %"),
                   N("metric", "Metric", sort), nullptr, sub, "", false, kNarrow,
                   std::max<int>(kShort, 14 * static_cast<int>(values.size())));
  s["encoding"]["y"]["axis"] = {{"labelLimit", 240}};
  blocks.push_back(
      ChartBlock(ctx.Id("fill-change-" + Anchor(g.key)),
                 "Each summary figure at the last fill level against the first, in percent", s));
  return blocks;
}

struct KindInfo {
  const char* kind;
  const char* title;
  const char* intro;
  json (*blocks)(Ctx&, const Group&);
};

const KindInfo kKinds[] = {
    {"cdm", "CrystalDiskMark-style",
     "CrystalDiskMark's default set on a test file: sequential 1 MiB and random 4 KiB at its queue "
     "depths, best of the passes.",
     CdmBlocks},
    {"cdm-nvme", "CrystalDiskMark-style, NVMe set",
     "CrystalDiskMark's NVMe set: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1, best of the "
     "passes.",
     CdmBlocks},
    {"atto", "ATTO-style block-size sweep",
     "Sequential write and read of a span at block sizes doubling from the smallest to the "
     "largest, at a fixed queue depth.",
     AttoBlocks},
    {"as-ssd", "AS SSD-style",
     "Sequential 16 MiB, 4K at QD1, 4K with 64 threads and access time on a test file, with AS "
     "SSD's score.",
     AsSsdBlocks},
    {"surface", "Surface test (linear write and read)",
     "The whole target written sequentially segment by segment, then read: MB/s against position "
     "shows where a write cache runs out.",
     SurfaceBlocks},
    {"fileio", "sysbench fileio-style",
     "Many threads, one I/O each at a time, on files of a filesystem (O_DIRECT): IOPS and latency "
     "percentiles per mode.",
     FileioBlocks},
    {"curve", "vdbench-style curves",
     "Each workload on a section of a filled target: one uncapped run for the maximum, then runs "
     "paced at a share of it; latency against IOPS (the DC450R review).",
     CurveBlocks},
    {"fill", "Fill", "Sequential fill of part of the target.", FillProfileBlocks},
    {"op-advisor", "Over-provisioning advisor",
     "For each share of the capacity left unused after a purge, sustained 4 KiB random writes over "
     "the rest; the recommendation is the setting with the best "
     "sustained IOPS (the DC500M over-provisioning study).",
     OpAdvisorBlocks},
    {"user", "Profile", "", UserBlocks},
};

}  // namespace
}  // namespace profiles

json ProfileSections(Ctx& ctx) {
  using namespace profiles;
  json sections = json::array();
  const std::vector<ReadTest> tests = ReadTests(ctx);
  for (const Group& g : Groups(tests)) {
    const KindInfo* info = &kKinds[std::size(kKinds) - 1];
    for (const KindInfo& k : kKinds) {
      if (g.kind == k.kind) info = &k;
    }
    // What is damaged first, then the figures of the readable tests.
    json blocks = json::array();
    for (const std::string& d : g.damaged) blocks.push_back(TextBlock(d));
    if (!g.tests.empty()) {
      Append(blocks, info->blocks(ctx, g));
      Append(blocks, FillBlocks(ctx, g));
    }
    std::string title = info->title;
    std::string intro = info->intro;
    if (g.kind != "curve") title += " (" + g.key + ")";
    if (intro.empty() && !g.tests.empty()) intro = g.tests.front()->description;
    sections.push_back(Section("profile-" + Anchor(g.key), title, intro, blocks));
  }
  return sections;
}

json ProfileRunFacts(const ReportRun& run) {
  const json& config = Get(Get(run.doc, "context"), "config");
  if (Get(config, "app").is_string()) return AppRunFacts(run);
  if (Get(config, "trace").is_string() && Get(config, "timing").is_string())
    return ReplayRunFacts(run);
  if (Get(config, "trace_stats").is_string()) return TraceStatsRunFacts(run);
  if (Get(config, "cuts").is_number() && Get(config, "flush").is_string()) return PlpRunFacts(run);
  if (Get(config, "run").is_string() && Get(config, "workload").is_object())
    return RunRunFacts(run);
  if (!Get(config, "profile").is_string()) return nullptr;
  std::string description;  // none when the results are damaged (the section says why)
  for (const json& t : Get(run.doc, "tests")) {
    if (!IsProfileTest(t)) continue;
    auto res = results::ProfileResultsFromJson(Get(t, "results"), Str(t, "name") + ".results");
    description = res.ok() ? res->description : "";
  }
  std::string fills;
  for (const json& f : Get(Get(Get(Get(run.doc, "context"), "config"), "options"), "fill_pcts"))
    fills += (fills.empty() ? "" : ", ") + fmt::format("{:g}%", f.get<double>());
  return {
      {"spec", "ssdlab profile " + Str(config, "profile") +
                   (description.empty() ? "" : ": " + description)},
      {"active_range", "the profile's test area (see its section)"},
      {"preconditioning",
       fills.empty() ? std::string("none: the target as found (the profile writes what it reads)")
                     : "purge, then sequential fill to " + fills +
                           " of the capacity; the profile runs at each level"},
      {"rounds", "none: fixed phases"},
      {"steady_state", "not applicable (profile)"}};
}

}  // namespace ssdlab::report
