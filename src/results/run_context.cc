#include "results/run_context.h"

#include "results/read.h"

namespace ssdlab::results {

namespace {

Status Text(const nlohmann::json& j, const std::string& where, const std::string& key,
            std::string& out) {
  return internal::Read(
      j, where, key, "a string", [](const nlohmann::json& v) { return v.is_string(); }, out);
}

}  // namespace

Result<RunContext> RunContextFromJson(const nlohmann::json& context, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(context, where));
  RunContext c;
  SSDLAB_RETURN_IF_ERROR(Text(context, where, "run", c.run));
  SSDLAB_RETURN_IF_ERROR(Text(context, where, "status", c.status));
  SSDLAB_RETURN_IF_ERROR(Text(context, where, "created_at", c.created_at));
  SSDLAB_RETURN_IF_ERROR(Text(context, where, "finished_at", c.finished_at));
  SSDLAB_RETURN_IF_ERROR(Text(context, where, "host", c.host));
  auto target = context.find("target");
  if (target != context.end() && !target->is_null()) {
    SSDLAB_RETURN_IF_ERROR(internal::Object(*target, where + ".target"));
    SSDLAB_RETURN_IF_ERROR(Text(*target, where + ".target", "path", c.target_path));
  }
  return c;
}

}  // namespace ssdlab::results
