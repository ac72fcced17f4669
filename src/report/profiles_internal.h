// Private to report/: the review-lab profiles' sections (profiles.cc groups the runs' profile
// tests and adds the parameter and fill-level blocks; the blocks of each kind are in
// profiles_review.cc and profiles_load.cc). Every profile test is read through its typed form
// (results/profile.h); one whose results are damaged adds no figures and says why in its
// section ("RUN: damaged: KEY is not ...").
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "report/model_internal.h"
#include "results/profile.h"

namespace ssdlab::report::profiles {

// One column of a profile section: a run's profile test at one fill level.
struct Series {
  std::string label;  // legend name: the run's label, and the fill level when one was set
  const ReportRun* run = nullptr;
  const json* test = nullptr;                    // as stored
  const results::ProfileLevel* level = nullptr;  // an entry of its typed results' levels
  // The level's results as kind T (empty ones when the test is of another kind: a user profile
  // named like a built-in one shares its section).
  template <class T>
  const T& Res() const {
    static const T kNone{};
    const T* r = std::get_if<T>(&level->results);
    return r ? *r : kNone;
  }
  std::string Name() const { return Str(*test, "name"); }
};

// The tests of one section: every run's test of that profile (all curves share one).
struct Group {
  std::string key, kind;
  std::vector<const results::ProfileResults*> tests;  // the readable ones
  std::vector<const ReportRun*> runs;                 // of each test
  std::vector<const json*> stored;                    // of each test, as stored
  std::vector<Series> series;
  std::vector<std::string> damaged;  // "RUN: damaged: KEY is not ..." of each unreadable test
};

using Fact = std::pair<std::string, std::function<std::string(const Series&)>>;

std::string FmtBytes(double b);
// "512 B", "4 KiB", "64 MiB" (ATTO's axis).
std::string SizeLabel(double b);
// Nominal values in first-seen order (a legend's or axis' sort).
void AddOnce(json& sort, const std::string& v);
// The local context of a section's charts: several series -> the drive legend.
Ctx SubCtx(const Ctx& ctx, const std::vector<Series>& series);
// Parameters of a profile: one row per fact (after the target and the preparation), one column
// per series.
json ParamsBlock(Ctx& ctx, const Group& g, const std::vector<Fact>& facts);

// The blocks of each kind's section.
json CdmBlocks(Ctx& ctx, const Group& g);  // profiles_review.cc
json AttoBlocks(Ctx& ctx, const Group& g);
json AsSsdBlocks(Ctx& ctx, const Group& g);
json SurfaceBlocks(Ctx& ctx, const Group& g);
json FileioBlocks(Ctx& ctx, const Group& g);  // profiles_load.cc
json CurveBlocks(Ctx& ctx, const Group& g);
json FillProfileBlocks(Ctx& ctx, const Group& g);
json OpAdvisorBlocks(Ctx& ctx, const Group& g);
json UserBlocks(Ctx& ctx, const Group& g);

}  // namespace ssdlab::report::profiles
