// `ssdlab profile NAME|FILE.toml`: the review-lab profiles (suite/profile.h), stored in the
// results database as a run of kind "profile".
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "base/units.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/suite_cli.h"
#include "lab/mpi.h"
#include "report/report.h"
#include "results/profile.h"
#include "sim/sim.h"
#include "suite/profile.h"
#include "usecase/profile.h"
#include "usecase/targets.h"

namespace ssdlab {
namespace {

using nlohmann::json;

struct ProfileArgs {
  usecase::ProfileRequest r;  // the flags but --json and --progress, bound into the request
  std::string json_path, progress = "auto";
};

// The human summary: each fill level's figures, then the differences (nothing of a test whose
// stored results are damaged but the reason). A time-scaled run's capacity cost and cliff
// position are the full drive's, the simulated figure beside them (report::FullDrive, as the
// report gives them).
void PrintSummary(const json& doc, std::ostream& out) {
  const report::FullDrive full = report::FullDriveOfRun(doc);
  for (const json& t : doc["tests"]) {
    const std::string name = t["name"];
    if (!t["results"].contains("levels")) continue;
    auto r = results::ProfileResultsFromJson(t["results"], name + ".results");
    if (!r.ok()) {
      out << name << ": damaged: " << r.status().message() << "\n";
      continue;
    }
    for (const results::ProfileLevel& lv : r->levels) {
      out << fmt::format("{}{}\n", name,
                         lv.fill_pct ? fmt::format(" at {:g}% full", *lv.fill_pct) : "");
      for (const std::string& n : lv.notes.value_or(std::vector<std::string>{}))
        out << "  note: " << n << "\n";
      for (const results::SummaryFigure& m : lv.summary) {
        // Small figures (access times in ms, ...) with three decimals, so 0.04 is not "0.0".
        const double v = m.value;
        out << (std::abs(v) < 10 && v != 0 ? fmt::format("  {:<40} {:>12.3f}\n", m.metric, v)
                                           : fmt::format("  {:<40} {:>12.1f}\n", m.metric, v));
      }
    }
    if (!r->differences.empty()) {
      out << "differences (last fill level against the first):\n";
      for (const results::ProfileDifference& d : r->differences)
        out << fmt::format("  {:<40} {:>+8.1f}%\n", d.metric, d.change_pct);
    }
    if (r->levels.empty()) continue;
    const results::ProfileKindResults& last = r->levels.back().results;
    if (const auto* op = std::get_if<results::OpAdvisorResults>(&last)) {
      const results::OpRecommendation& x = op->recommendation;
      if (x.no_recommendation) {
        out << "warning: no recommendation: " << *x.no_recommendation << "\n";
        continue;
      }
      out << fmt::format(
          "recommendation: OP {:g}% ({:.0f} sustained IOPS, {:+.1f}% over {:g}%), costs {} of "
          "capacity\n",
          x.op_pct, x.sustained_iops, x.gain_pct, x.baseline_op_pct,
          full.Capacity(x.capacity_cost_bytes));
    }
    const auto* surface = std::get_if<results::SurfaceResults>(&last);
    if (surface && surface->cliff.found) {
      const results::SurfaceCliff& x = surface->cliff;
      out << fmt::format("write cliff at {:.1f}% of the surface (at {}): {:.0f} -> {:.0f} MB/s\n",
                         x.position_pct, full.Capacity(x.position_bytes), x.before_mb_s,
                         x.after_mb_s);
    }
  }
}

// The request of `profile` from its flags.
usecase::ProfileRequest ProfileRequestOf(const ProfileArgs& a) {
  usecase::ProfileRequest r = a.r;
  r.outputs = {{"--json", a.json_path}};
  r.stop = &StopFlag();
  r.console = &CliConsole();
  return r;
}

// `opened`: the backend to run on, opened already (pass 2 of a spread run, usecase/sim_spread.h).
int RunProfileCommand(const ProfileArgs& a, std::unique_ptr<Backend> opened = nullptr) {
  usecase::ProfileRequest r = ProfileRequestOf(a);
  std::unique_ptr<CliProgress> progress = MakeProgress(a.progress);
  r.progress = progress.get();
  r.ended = [&] {
    if (progress) progress->Done();
  };
  Status st;
  r.write_outputs = [&](usecase::ProfileOutcome& o) {
    st = PrintStoredRun(o.run, a.r.db, o.measured, o.doc, a.json_path, [&](const json& doc) {
      if (o.measured.ok()) PrintSummary(doc, a.json_path == "-" ? std::cerr : std::cout);
    });
    return o.measured.ok() ? st : Status::Ok();
  };
  auto outcome = usecase::RunProfile(std::move(r), std::move(opened));
  if (!outcome.ok()) return Fail(outcome.status());
  if (!outcome->end.closed.ok()) {
    PrintError(outcome->end.closed.message());
    if (st.ok()) st = outcome->end.closed;
  }
  if (!st.ok()) {
    PrintError(st.code() == Code::kInterrupted
                   ? "interrupted; finished steps are stored in run " + outcome->run
                   : st.message());
    return st.code() == Code::kInterrupted ? kExitInterrupted : ExitCodeFor(st);
  }
  return kExitOk;
}

// --time-scale: "auto" becomes the number (ApplyTimeScale: from the phase time, --time or the
// profile kind's default), and every simulated --target gets scale=N.
Status ApplyProfileTimeScale(ProfileArgs& a) {
  auto it = a.r.options.find("--time-scale");
  if (it == a.r.options.end() || it->second.empty()) return Status::Ok();
  uint64_t phase_ns = 0;
  if (auto t = a.r.options.find("--time"); t != a.r.options.end())
    SSDLAB_RETURN_IF_ERROR(usecase::DurationFlag("--time", t->second, phase_ns));
  if (phase_ns == 0 && it->second == "auto") {
    SSDLAB_ASSIGN_OR_RETURN(ProfileDef def, usecase::LoadProfileDef(a.r.name));
    phase_ns = DefaultPhaseNs(def.kind);
  }
  SSDLAB_ASSIGN_OR_RETURN(uint32_t n, usecase::ApplyTimeScale(it->second, phase_ns, a.r.targets));
  it->second = std::to_string(n);
  return Status::Ok();
}

}  // namespace

void AddProfileCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ProfileArgs>();
  a->r.options = {{"--purge", "auto"}};  // the profile's options (usecase::ProfileOptionDefs)
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Run a review-lab profile (cdm, atto, surface, curves, op-advisor, ...) or a profile file");
  cmd->add_option("name", a->r.name,
                  "Profile name (cdm, cdm-nvme, atto, as-ssd, surface, fileio, fill, op-advisor, "
                  "4k-randread, sql, ...) or a .toml profile file")
      ->required();
  AddTargetOptions(cmd, &a->r.targets, &a->r.layout, &a->r.chunk,
                   "File, block device, sim:PRESET[?k=v], or (fileio) a directory");
  AddStoredRunOptions(cmd, &a->r.db, &a->r.run, "Name of the run (default profile-NAME-DATE-TIME)",
                      &a->json_path, &a->progress);
  cmd->add_flag("--destructive", a->r.destructive,
                "Allow writing to a block device (destroys its data)");
  cmd->add_option("--confirm", a->r.confirm, "For a block device: its serial (or WWN), for purges");
  cmd->add_option("--temp-interval", a->r.temp_interval, "Temperature sampling interval (1s)");
  cmd->add_flag("--prefill", a->r.prefill,
                "Write the whole target once sequentially before the profile (not measured; "
                "needs --destructive on a block device)");
  cmd->add_option("--target-size", a->r.target_size, "Size of a target file to create");
  AddOptionDefs(cmd, usecase::ProfileOptionDefs(), a->r.options);
  cmd->add_option("--files", a->r.files, "fileio: number of files (64)");
  cmd->callback([a, exit_code] {
    if (a->progress == "json") UseJsonLinesOnStderr();
    if (Status s = ApplyProfileTimeScale(*a); !s.ok()) {
      *exit_code = Fail(s);
      return;
    }
    if (StartedByMpirun() && a->r.targets.size() == 1 && IsSimTarget(a->r.targets[0])) {
      *exit_code =
          usecase::RunSpreadProfile(ProfileRequestOf(*a), [a](std::unique_ptr<Backend> opened) {
            return RunProfileCommand(*a, std::move(opened));
          });
      return;
    }
    *exit_code = RunProfileCommand(*a);
  });
}

}  // namespace ssdlab
