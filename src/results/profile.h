// The results of a review-lab profile test (`ssdlab profile`, suite/profile.h): the profile,
// one entry per fill level (--fill 0,90; one entry for the target as found without it), each
// with its preparation, summary figures and the kind's own results (results/profile_kinds.h),
// and with two or more levels the change of each summary figure. One ToJson / FromJson pair;
// the battery's "health" beside these keys is not part of it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "results/profile_kinds.h"

namespace ssdlab::results {

// A figure of a fill level's summary ("RND4K Q1T1 read MB/s").
struct SummaryFigure {
  std::string metric;
  double value = 0;
};

struct ProfileLevel {
  std::optional<double> fill_pct;              // null: the target as found
  std::optional<FillPreparation> preparation;  // the purge and fill before this level
  uint64_t workspace_begin_bytes = 0;          // where the test area starts (after the fill)
  std::vector<SummaryFigure> summary;
  // Why the profile departed from its defaults ("the test file shrunk ..."); absent in
  // documents written before notes were kept.
  std::optional<std::vector<std::string>> notes;
  ProfileKindResults results;
};

// A summary figure at every fill level and its change from the first to the last, in percent.
struct ProfileDifference {
  std::string metric;
  std::vector<double> values;
  double change_pct = 0;
};

struct ProfileResults {
  std::string profile, kind, description;
  std::vector<double> fill_levels;  // --fill as given (empty: none)
  std::vector<ProfileLevel> levels;
  std::vector<ProfileDifference> differences;  // empty with fewer than two levels
};

// {"profile", "kind", "description", "fill_levels", "levels": [{"fill_pct", "preparation",
// "workspace_begin_bytes", "summary": [{"metric", "value"}], "notes", "results"}],
// "differences": [{"metric", "values", "change_pct"}]}
nlohmann::json ToJson(const ProfileResults& p);
// `where` names the object in errors ("cdm.results"); keys beside these ("health") are
// ignored; a wrongly typed key, or an unknown kind, is Invalid naming it.
Result<ProfileResults> ProfileResultsFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
