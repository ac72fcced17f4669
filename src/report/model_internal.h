// Private to report/: building blocks of the report model shared by its source files.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"
#include "report/util.h"

namespace ssdlab::report {

struct Ctx {
  const std::vector<ReportRun>& runs;
  bool multi = false;
  int next_id = 0;
  std::string Id(const std::string& stem) { return stem + "-" + std::to_string(++next_id); }
};

// The test of that name in a run document, or nullptr.
const json* FindTest(const json& doc, const std::string& name);

json TableBlock(const std::string& id, const std::string& caption, json columns, json rows,
                json notes = json::array());
json ChartBlock(const std::string& id, const std::string& caption, json spec);
json TextBlock(const std::string& text);
json RowBlock(json blocks);
// A table row that heads a group of rows.
json GroupRow(const std::string& title);
// A cell with a CSS class ("good", "bad", "muted").
json Cell(const std::string& text, const std::string& cls);

// The claims-versus-measured section (empty json when there are no claims).
json ClaimsSection(Ctx& ctx, const Claims& claims);

}  // namespace ssdlab::report
