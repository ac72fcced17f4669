// `ssdlab replay TRACE --target T`: a block trace replayed through the Backend seam (real
// targets in wall time, simulated drives in virtual time), as a run result plus a `replay`
// object: the trace, the timing, how late submissions were, recorded against replayed latency.
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "base/clock.h"
#include "base/output_file.h"
#include "base/secrets.h"
#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/lat_log.h"
#include "cli/output.h"
#include "cli/suite_cli.h"
#include "results/ids.h"
#include "store/store.h"
#include "trace/replay_source.h"
#include "trace/trace.h"
#include "usecase/paths.h"
#include "usecase/replay.h"
#include "usecase/targets.h"
#include "workload/parse.h"

namespace ssdlab {
namespace {

struct ReplayArgs {
  std::string trace;
  std::vector<std::string> targets;
  std::string layout, chunk;
  // The request's options as text (usecase::ReplayOptionDefs: the trace, timing, sizes, engine).
  usecase::OptionTexts options;
  std::string json;
  std::string lat_log;
  std::string db;
  std::string run;
};

// The replay's lines for people: what was replayed, the summary table, recorded against
// replayed latency, the notes, where it is stored.
void PrintReplay(const usecase::ReplayRequest& q, const usecase::ReplayOutcome& o,
                 std::ostream& human) {
  const PhaseResult& r = o.result;
  const Histogram& lag = r.submit_lag;
  std::string lag_text =
      !o.timed ? "afap qd " + std::to_string(q.qd)
               : fmt::format("{}, lag p50 {} p99 {} max {}{}", q.timing_text,
                             FormatNs(lag.Percentile(50)), FormatNs(lag.Percentile(99)),
                             FormatNs(static_cast<double>(lag.max())),
                             o.behind ? " (COULD NOT KEEP UP)" : "");
  human << fmt::format(
      "replay of {} ({}, {} records) on {} ({}, {}), {}, {:.2f} s measured{}\n", q.trace, o.format,
      o.counts.records, q.target, o.target.kind, FormatBytes(o.target.size_bytes), lag_text,
      static_cast<double>(r.measured_ns) / 1e9, r.interrupted ? " (INTERRUPTED)" : "");
  human << SummaryTable(r);
  if (o.recorded.count()) {
    const Histogram& rep_total = r.Total().latency;
    human << fmt::format("latency recorded vs replayed: p50 {} / {}, p99 {} / {}, max {} / {}\n",
                         FormatNs(o.recorded.Percentile(50)), FormatNs(rep_total.Percentile(50)),
                         FormatNs(o.recorded.Percentile(99)), FormatNs(rep_total.Percentile(99)),
                         FormatNs(static_cast<double>(o.recorded.max())),
                         FormatNs(static_cast<double>(rep_total.max())));
  }
  for (const auto& n : r.notes) human << "note: " << n << "\n";
  if (!o.run.empty()) human << fmt::format("stored as run '{}' in {}\n", o.run, MaskSecrets(q.db));
}

int Replay(const ReplayArgs& a) {
  usecase::ReplayRequest q;
  auto composed = usecase::ComposeTarget(a.targets, a.layout, a.chunk);
  if (!composed.ok()) return Fail(Status::Invalid(composed.status().message()));
  q.target = composed.value();
  if (Status s = usecase::ApplyOptionDefs(usecase::ReplayOptionDefs(), a.options, q); !s.ok())
    return Fail(Status::Invalid(s.message()));
  q.trace = a.trace;
  q.db = a.db;
  q.run = a.run;
  q.outputs = {{"--json", a.json}, {"--lat-log", a.lat_log}};
  q.stop = &StopFlag();
  q.console = &CliConsole();
  std::unique_ptr<CsvIoLog> lat_log;
  int code = kExitOk;
  q.write_outputs = [&](usecase::ReplayOutcome& o) {
    if (lat_log) {
      if (Status st = lat_log->Close(); !st.ok()) {
        PrintError(st.message());
        code = kExitFailed;
      }
    }
    if (!o.end.stored.ok()) {
      PrintError("cannot store the replay in " + a.db + ": " + o.end.stored.message());
      code = kExitFailed;
    }
    PrintReplay(q, o, a.json == "-" || a.lat_log == "-" ? std::cerr : std::cout);
    if (!a.json.empty()) {
      if (Status st = WriteJsonOutput(a.json, results::ToJson(o.doc)); !st.ok()) {
        PrintError(st.message());
        code = kExitFailed;
      }
    }
    return code == kExitOk ? Status::Ok() : Status::Io("an output was not written");
  };
  if (!a.lat_log.empty()) {
    q.open_io_log = [&]() -> Result<IoLogSink*> {
      auto l = CsvIoLog::Open(a.lat_log);
      if (!l.ok()) return Status::Invalid(l.status().message());
      lat_log = std::move(l.value());
      return lat_log.get();
    };
  }
  auto outcome = usecase::Replay(q);
  if (!outcome.ok()) return Fail(outcome.status());
  if (!outcome->end.closed.ok()) {
    PrintError(outcome->end.closed.message());
    code = kExitFailed;
  }
  return PhaseExitCode(outcome->result, code);
}

}  // namespace

void AddReplayCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Replay a block trace against a target (file, block device, simulated drive)");
  cmd->add_option("TRACE", a->trace,
                  "Trace file (plain, .gz or .zst; blktrace: NAME or NAME.blktrace.N)")
      ->required();
  AddTargetOptions(cmd, &a->targets, &a->layout, &a->chunk,
                   "File, block device, or sim:PRESET[?key=value&...]");
  AddOptionDefs(cmd, usecase::ReplayOptionDefs(), a->options);
  cmd->add_option("--json", a->json, "Write the JSON result to FILE (- for stdout)");
  cmd->add_option("--lat-log", a->lat_log, "Write every I/O as CSV to FILE (- for stdout)");
  cmd->add_option("--db", a->db, "Store the replay in this results database");
  cmd->add_option("--run", a->run, "Run name in --db (default replay-YYYYMMDD-HHMMSS)");
  cmd->callback([a, exit_code] { *exit_code = Replay(*a); });
}

}  // namespace ssdlab
