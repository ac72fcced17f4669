#include "results/run_context.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace {

namespace f = fields;

constexpr auto kContext = f::Object<RunContext>(
    f::Text("run", &RunContext::run), f::Text("status", &RunContext::status),
    f::Text("created_at", &RunContext::created_at),
    f::Text("finished_at", &RunContext::finished_at), f::Text("host", &RunContext::host),
    f::At<RunContext>("target", f::Object<RunContext>(f::Text("path", &RunContext::target_path))));

}  // namespace

Result<RunContext> RunContextFromJson(const nlohmann::json& context, const std::string& where) {
  return kContext.Parse(context, where);
}

}  // namespace ssdlab::results
