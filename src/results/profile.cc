#include "results/profile.h"

#include "results/read_extra.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

json LevelJson(const ProfileLevel& l) {
  json out = {
      {"fill_pct", internal::OrNull(l.fill_pct)},
      {"preparation", l.preparation ? ToJson(*l.preparation) : json(nullptr)},
      {"workspace_begin_bytes", l.workspace_begin_bytes},
      {"summary", internal::ListJson(l.summary,
                                     [](const SummaryFigure& f) {
                                       return json{{"metric", f.metric}, {"value", f.value}};
                                     })},
      {"results", ToJson(l.results)}};
  if (l.notes) out["notes"] = *l.notes;
  return out;
}

Result<SummaryFigure> FigureFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  SummaryFigure f;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "metric", f.metric));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "value", f.value));
  return f;
}

Result<ProfileDifference> DifferenceFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  ProfileDifference d;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "metric", d.metric));
  SSDLAB_RETURN_IF_ERROR(internal::Numbers(j, where, "values", d.values));
  SSDLAB_RETURN_IF_ERROR(internal::Number(j, where, "change_pct", d.change_pct));
  return d;
}

}  // namespace

json ToJson(const ProfileResults& p) {
  return {{"profile", p.profile},
          {"kind", p.kind},
          {"description", p.description},
          {"fill_levels", p.fill_levels},
          {"levels", internal::ListJson(p.levels, LevelJson)},
          {"differences", internal::ListJson(p.differences, [](const ProfileDifference& d) {
             return json{{"metric", d.metric}, {"values", d.values}, {"change_pct", d.change_pct}};
           })}};
}

Result<ProfileResults> ProfileResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  ProfileResults p;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "profile", p.profile));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "kind", p.kind));
  if (!IsProfileKind(p.kind))
    return Status::Invalid(where + ".kind '" + p.kind + "' is not a profile kind");
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "description", p.description));
  SSDLAB_RETURN_IF_ERROR(internal::Numbers(j, where, "fill_levels", p.fill_levels));
  // Each level's results are read by the profile's kind.
  auto level = [&](const json& l, const std::string& at) -> Result<ProfileLevel> {
    SSDLAB_RETURN_IF_ERROR(internal::Object(l, at));
    ProfileLevel out;
    SSDLAB_RETURN_IF_ERROR(
        internal::Optional(l, at, "fill_pct", internal::Number<double>, out.fill_pct));
    SSDLAB_RETURN_IF_ERROR(
        internal::Sub(l, at, "preparation", FillPreparationFromJson, out.preparation));
    SSDLAB_RETURN_IF_ERROR(
        internal::Count(l, at, "workspace_begin_bytes", out.workspace_begin_bytes));
    SSDLAB_RETURN_IF_ERROR(internal::List(l, at, "summary", FigureFromJson, out.summary));
    SSDLAB_RETURN_IF_ERROR(internal::Optional(l, at, "notes", internal::Texts, out.notes));
    SSDLAB_ASSIGN_OR_RETURN(
        out.results,
        ProfileKindResultsFromJson(p.kind, where + ".kind",
                                   l.contains("results") ? l["results"] : json(), at + ".results"));
    return out;
  };
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "levels", level, p.levels));
  SSDLAB_RETURN_IF_ERROR(
      internal::List(j, where, "differences", DifferenceFromJson, p.differences));
  return p;
}

}  // namespace ssdlab::results
