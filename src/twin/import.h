// Measurements made elsewhere, as tests of a stored run that `show`, `report` and `sim fit`
// read (`ssdlab import`):
//  - a CSV of published figures, header (fixed)
//      test,block_size,read_pct,threads,qd,x,iops,mb_s,lat_mean_us,lat_p99_us,lat_p99_9_us,
//      lat_p99_99_us,lat_max_us,role,source
//    one row per published cell; test is ssdlab's test or profile name (iops, tp, lat, wsat,
//    hir, lvi, cdm, ...); x the curve position (wsat: GiB written; hir: wait in s); an empty
//    field is not published; role is calibration or predicted; source where it comes from.
//  - fio's JSON output (--output-format=json or json+): each job's figures, exactly as fio gives
//    them (docs/twin.md has the table of fio's fields and the cells' keys). A job's workload
//    from its options (rw, bs, iodepth, numjobs, rwmixread or rwmixwrite; the global options
//    under the job's): random jobs at QD1 x 1 thread are test "lat", other random jobs "iops",
//    sequential jobs "tp". Per job, fio's group totals (scope "group": the clones of a job run
//    with numjobs and without group_reporting summed: IOPS and bandwidth summed, the mean
//    weighted by I/Os, min and max the extremes, percentiles from the merged json+ bins only)
//    and, when there are clones, each clone (scope "job"); each as direction "total" and, for a
//    mixed job, "read" and "write". Latency from fio's lat_ns when it gives lat percentiles
//    (--lat_percentiles=1), else from clat_ns ("latency": "lat" or "clat"); json+ bins become
//    "histogram_ns" and the percentiles are recomputed from them as fio does.
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
// What fio says of its run: {"version", "time", "timestamp", "timestamp_ms", "global_options"},
// those it gives.
Result<nlohmann::json> FioProvenance(const std::string& text);

}  // namespace ssdlab::twin
