// Measurements made elsewhere, as tests of a stored run that `show`, `report` and `sim fit`
// read (`ssdlab import`):
//  - a CSV of published figures, header (fixed)
//      test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,
//      lat_p99_99_us,lat_max_us,role,source
//    one row per published cell; test is ssdlab's test or profile name (iops, tp, lat, wsat,
//    hir, lvi, cdm, ...); x the curve position (wsat: GiB written; hir: wait in s); an empty
//    field is not published; role is calibration or predicted; source where it comes from.
//  - fio's JSON output (--output-format=json): every job with its options (rw, bs, iodepth,
//    numjobs, rwmixread, from the job or the global options) becomes a cell: random jobs at
//    QD1 x 1 job of test "lat", other random jobs "iops", sequential jobs "tp".
// Each test's results hold "imported_cells": [{block_bytes, read_pct, threads, qd, x (or
// null), sequential, role, source, and the metrics given: iops, mb_s, lat_mean_us, ...}].
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"

namespace ssdlab::twin {

struct ImportedTest {
  std::string name;
  nlohmann::json results;
};

// Invalid naming the file and line (CSV) or job (fio) for a malformed row or field, a header
// that differs, an unknown role, a file with no cells.
Result<std::vector<ImportedTest>> ParseFiguresCsv(const std::string& text,
                                                  const std::string& origin);
Result<std::vector<ImportedTest>> ParseFioJson(const std::string& text, const std::string& origin);

}  // namespace ssdlab::twin
