#include "results/profile.h"

#include "results/fields_more.h"

namespace ssdlab::results {

namespace f = fields;
using nlohmann::json;

namespace {

constexpr auto kFigure = f::Object<SummaryFigure>(f::Text("metric", &SummaryFigure::metric),
                                                  f::Number("value", &SummaryFigure::value));

// A level's keys but its results, which its profile's kind reads.
constexpr auto kLevel = f::Object<ProfileLevel>(
    f::Nullable("fill_pct", &ProfileLevel::fill_pct, f::NumberOf<double>()),
    f::Nullable("preparation", &ProfileLevel::preparation, f::Via<FillPreparationFromJson>()),
    f::Count("workspace_begin_bytes", &ProfileLevel::workspace_begin_bytes),
    f::List("summary", &ProfileLevel::summary, kFigure),
    f::List("notes", &ProfileLevel::notes, f::TextOf()));

constexpr auto kDifference = f::Object<ProfileDifference>(
    f::Text("metric", &ProfileDifference::metric),
    f::List("values", &ProfileDifference::values, f::NumberOf<double>()),
    f::Number("change_pct", &ProfileDifference::change_pct));

// A level of a profile of `kind` (`kind_where` names its key in errors).
struct LevelCodec {
  const std::string* kind = nullptr;
  const std::string* kind_where = nullptr;
  json Write(const ProfileLevel& l) const {
    json out = kLevel.Write(l);
    out["results"] = ToJson(l.results);
    return out;
  }
  Status Read(const json& j, const std::string& where, ProfileLevel& l) const {
    SSDLAB_RETURN_IF_ERROR(kLevel.Read(j, where, l));
    auto r = ProfileKindResultsFromJson(
        *kind, *kind_where, j.contains("results") ? j["results"] : json(), where + ".results");
    if (!r.ok()) return r.status();
    l.results = std::move(r).value();
    return Status::Ok();
  }
};

constexpr auto kProfile = f::Object<ProfileResults>(
    f::Text("profile", &ProfileResults::profile), f::Text("kind", &ProfileResults::kind),
    f::Text("description", &ProfileResults::description),
    f::List("fill_levels", &ProfileResults::fill_levels, f::NumberOf<double>()),
    f::List("differences", &ProfileResults::differences, kDifference));

}  // namespace

json ToJson(const ProfileResults& p) {
  json out = kProfile.Write(p);
  out["levels"] = f::ListOf(LevelCodec{}).Write(p.levels);
  return out;
}

Result<ProfileResults> ProfileResultsFromJson(const json& j, const std::string& where) {
  ProfileResults p;
  SSDLAB_RETURN_IF_ERROR(kProfile.Read(j, where, p));
  const std::string kind_where = where + ".kind";
  if (!IsProfileKind(p.kind))
    return Status::Invalid(kind_where + " '" + p.kind + "' is not a profile kind");
  if (auto it = j.find("levels"); it != j.end() && !it->is_null())
    SSDLAB_RETURN_IF_ERROR(
        f::ListOf(LevelCodec{&p.kind, &kind_where}).Read(*it, where + ".levels", p.levels));
  return p;
}

}  // namespace ssdlab::results
