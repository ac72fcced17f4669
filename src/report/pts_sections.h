// Private to report/: the PTS tests' sections (pts_sections.cc, one per test of the suite's
// registry) and the run facts and labels they share with the rest of the model (model.cc).
#pragma once

#include <string>
#include <vector>

#include "report/model_internal.h"

namespace ssdlab::report::pts {

// One PTS test's section of the report, mirroring the suite's registry (suite/tests.h):
// adding a test adds one entry to PtsSections(), in battery order.
struct PtsSectionDef {
  const char* name;   // the stored test name
  const char* title;  // section heading and table labels
  json (*build)(Ctx& ctx, const std::string& name);
};
const std::vector<PtsSectionDef>& PtsSections();

// The section title of a stored test name (the name itself when unknown).
std::string TestTitle(const std::string& name);
// The PTS tests any of the runs holds, in battery order.
std::vector<std::string> TestsPresent(const Ctx& ctx);
// A description of the load of a test (the first stored cell's workload).
std::string LoadOf(const json& test);

// ---- Labels and axes ----
json RoundAxis();
bool EndsWith(const std::string& s, const std::string& suffix);
// Tracking variables in readable units: bandwidth in MB/s, latency in microseconds.
double VarScale(const std::string& var);
std::string VarLabel(const std::string& var);
// "randread bs=4 KiB qd=8 jobs=16" -> "16 threads x QD 8"
std::string LoadText(const std::string& description);
json ThreadsParam(const std::vector<int>& threads);

// ---- Run facts ----
const json& Ctxt(const ReportRun& r);
const json& Options(const ReportRun& r);
std::string PurgeOf(const ReportRun& r);
double BandPct(const ReportRun& r);
std::string RuleText(const ReportRun& r);
std::string SpecName(const std::string& s);
std::string VerdictText(const json& ss);
json VerdictCell(const json& ss);

}  // namespace ssdlab::report::pts
