// Power-loss campaigns in the report (`ssdlab plp --db`, usecase/plp.h, docs/plp.md): the
// findings by cut and class, the load at each cut and the time from power-on to ready.
#include <fmt/format.h>

#include "report/model_internal.h"

namespace ssdlab::report {
namespace {

constexpr const char* kClasses[] = {"lost_flushed", "old_generation", "torn",
                                    "misdirected",  "unreadable",     "lost_unflushed"};
// The two rules' breaches: flushed data lost, or a unit torn, misdirected, unreadable.
bool IsFailure(const std::string& c) { return c != "lost_unflushed"; }

std::string FmtMs(double ns) { return fmt::format("{:.1f}", ns / 1e6); }

// True for a test stored by `ssdlab plp` (results of kind "plp" with its cuts).
bool IsPlpTest(const json& test) {
  const json& r = Get(test, "results");
  return Str(r, "kind") == "plp" && Get(r, "cuts").is_array();
}

}  // namespace

json PlpRunFacts(const ReportRun& run) {
  const json& config = Get(Get(run.doc, "context"), "config");
  return {
      {"spec", fmt::format("ssdlab plp: {:g} cuts, --flush {}, --bs {}, --qd {:g}, {:g}% reads",
                           Num(config, "cuts"), Str(config, "flush"), Str(config, "bs"),
                           Num(config, "qd"), Num(config, "rwmix_read"))},
      {"active_range", fmt::format("{} bytes from offset 0", FmtInt(Num(config, "range_bytes")))},
      {"preconditioning", "none (the drive as it was)"},
      {"rounds", fmt::format("{:g} power cuts, each at a random time within {} of load",
                             Num(config, "cuts"), Str(config, "segment"))},
      {"steady_state", "not applicable (power-loss campaign)"}};
}

json PlpSection(Ctx& ctx) {
  json totals = json::array(), cuts = json::array();
  json columns = json::array({"Drive", "Cut", "Time", "IOPS", "In flight", "Ready, ms"});
  json total_columns = json::array({"Drive", "Cuts", "Ready p50 / max, ms"});
  for (const char* c : kClasses) {
    columns.push_back(c);
    total_columns.push_back(c);
  }
  for (const ReportRun& r : ctx.runs) {
    for (const json& t : Get(r.doc, "tests")) {
      if (!IsPlpTest(t)) continue;
      const json& res = Get(t, "results");
      std::vector<double> ready;
      for (const json& c : Get(res, "cuts")) {
        const json& load = Get(c, "load");
        const json& f = Get(c, "findings");
        ready.push_back(Num(c, "power_on_to_ready_ns"));
        json row = json::array({r.label, FmtInt(Num(c, "cut")),
                                fmt::format("{:.3f} s", Num(c, "time_ns") / 1e9),
                                FmtInt(Num(load, "iops")), FmtInt(Num(load, "in_flight")),
                                FmtMs(Num(c, "power_on_to_ready_ns"))});
        for (const char* k : kClasses) {
          const double n = Num(f, k);
          row.push_back(n > 0 && IsFailure(k) ? Cell(FmtInt(n), "bad") : json(FmtInt(n)));
        }
        cuts.push_back(row);
      }
      std::sort(ready.begin(), ready.end());
      json row = json::array(
          {r.label, FmtInt(static_cast<double>(ready.size())),
           ready.empty() ? "-" : FmtMs(ready[ready.size() / 2]) + " / " + FmtMs(ready.back())});
      const json& sum = Get(res, "summary");
      for (const char* k : kClasses) {
        const double n = Num(sum, k);
        row.push_back(n > 0 && IsFailure(k) ? Cell(FmtInt(n), "bad")
                                            : Cell(FmtInt(n), n > 0 ? "muted" : "good"));
      }
      totals.push_back(row);
      if (Get(res, "failed").is_string())
        cuts.push_back(json::array({r.label, Cell("stopped: " + Str(res, "failed"), "bad")}));
    }
  }
  if (totals.empty()) return nullptr;
  json blocks = json::array();
  blocks.push_back(TableBlock(
      ctx.Id("plp-summary"), "Findings by class (4 KiB units), all cuts", total_columns, totals,
      json::array({"lost_flushed and old_generation: acknowledged data made durable by a flush "
                   "or FUA is gone (a PLP failure); torn, misdirected, unreadable: the unit "
                   "did not come back whole; lost_unflushed: acknowledged without a flush, "
                   "allowed by the protocol.",
                   "Ready: from power-on to the drive answering as itself (simulated drives: "
                   "until the work booked before the cut ended)."})));
  blocks.push_back(TableBlock(ctx.Id("plp-cuts"), "Findings by cut", columns, cuts,
                              json::array({"Time: on the rig's clock (virtual for a simulated "
                                           "drive). IOPS and in flight: the load at the cut."})));
  return Section("plp", "Power-loss integrity",
                 "Power cut at random times under a write load; every unit of the range read "
                 "back and checked against the journal of acknowledgements (ssdlab plp).",
                 blocks);
}

}  // namespace ssdlab::report
