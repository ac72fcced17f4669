#include "cli/output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>

#include "base/output_file.h"
#include "base/units.h"
#include "cli/commands.h"
#include "results/ids.h"
#include "results/phase_metrics.h"
#include "workload/parse.h"

namespace ssdlab {

using nlohmann::json;

Status WriteJsonOutput(const std::string& path, const json& doc) {
  std::string text = doc.dump(1) + "\n";
  if (path == "-") {
    std::cout << text << std::flush;
    return std::cout ? Status::Ok() : Status::Io("--json -: write to stdout failed");
  }
  return WriteOutputFile("--json", path, text);
}

int PhaseExitCode(const PhaseResult& r, int code) {
  if (r.io_errors) {
    PrintError(fmt::format("{} I/O errors; first: {}", r.io_errors,
                           r.errors.empty() ? "" : r.errors.front()));
    code = kExitFindings;
  }
  if (r.verify_failures) {
    const VerifyRecord& v = r.verify_records.front();
    PrintError(fmt::format("verify: {} blocks failed; first at offset {}: {}", r.verify_failures,
                           v.offset, v.problem));
    code = kExitFindings;
  }
  if (r.interrupted) {
    PrintError("interrupted; results measured so far were kept");
    code = kExitInterrupted;
  }
  return code;
}

std::string SummaryTable(const PhaseResult& r) {
  std::string out = fmt::format("{:<6} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "",
                                "IOPS", "MB/s", "mean", "p50", "p99", "p99.9", "p99.99", "max");
  auto row = [&](const char* name, const DirectionStats& d) {
    const Histogram& h = d.latency;
    out +=
        fmt::format("{:<6} {:>10.0f} {:>10.1f} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", name,
                    r.Iops(d), r.BytesPerS(d) / 1e6, FormatNs(h.Mean()), FormatNs(h.Percentile(50)),
                    FormatNs(h.Percentile(99)), FormatNs(h.Percentile(99.9)),
                    FormatNs(h.Percentile(99.99)), FormatNs(static_cast<double>(h.max())));
  };
  int used = 0;
  for (int d = 0; d < kDirections; ++d) {
    if (r.dirs[d].ios) {
      row(DirectionName(static_cast<Direction>(d)), r.dirs[d]);
      ++used;
    }
  }
  if (used != 1) row("total", r.Total());
  return out;
}

}  // namespace ssdlab
