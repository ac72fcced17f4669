// Subcommands. Each Add*Command registers its flags on `app` and a callback that stores the
// exit status in *exit_code. Exit statuses: 0 success; 1 the run finished but saw I/O errors
// or verify failures; 2 bad input or a refusal (nothing was written); 3 the run failed;
// 4 `pts --require-steady-state`: the battery finished but a test did not reach steady state;
// 130 interrupted (results measured so far are still written).
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "usecase/console.h"

namespace ssdlab {

// The exit statuses, declared in usecase/console.h (the MPI use cases pass them between ranks).
using usecase::kExitFailed;
using usecase::kExitFindings;
using usecase::kExitInterrupted;
using usecase::kExitNotSteady;
using usecase::kExitOk;
using usecase::kExitUsage;

// True for a subcommand shown in --help, the manual pages and the completion: a hidden one has
// an empty group.
inline bool ShownInHelp(const CLI::App* a) { return !a->get_group().empty(); }

// Set by SIGINT/SIGTERM.
std::atomic<bool>& StopFlag();

void AddRunCommand(CLI::App& app, int* exit_code);
void AddSimCommand(CLI::App& app, int* exit_code);
// `sim fit` and `sim compare` under `sim` (cli/twin_cmd.cc): the digital twin of a run.
void AddSimTwinCommands(CLI::App& sim, int* exit_code);
// `sim serve` under `sim` (cli/serve_cmd.cc): the drive in real time over FUSE (serve/serve.h).
void AddSimServeCommand(CLI::App& sim, int* exit_code);
// `import`: fio JSON and CSVs of published figures as stored runs (twin/import.h).
void AddImportCommand(CLI::App& app, int* exit_code);
// `pts` (cli/pts_cmd.cc).
void AddPtsCommands(CLI::App& app, int* exit_code);
// `ls` and `show`: the runs of a results database (cli/runs_cmds.cc).
void AddRunsCommands(CLI::App& app, int* exit_code);
// `profile`: the review-lab profiles (suite/profile.h).
void AddProfileCommand(CLI::App& app, int* exit_code);
// `app`: application tests on real database servers (apps/app.h).
void AddAppCommand(CLI::App& app, int* exit_code);
// `replay` (cli/replay_cmd.cc) and `trace stats|capture` (cli/trace_cmd.cc): block traces.
void AddReplayCommand(CLI::App& app, int* exit_code);
void AddTraceCommand(CLI::App& app, int* exit_code);
// `plp`: power-loss campaigns (cli/plp_cmd.cc, usecase/plp.h).
void AddPlpCommand(CLI::App& app, int* exit_code);
// `db copy`: runs between results stores (cli/db_cmd.cc).
void AddDbCommand(CLI::App& app, int* exit_code);

// Prints "ssdlab: error: <message>" to stderr, its secrets masked (base/secrets.h).
void PrintError(const std::string& message);
// The last message PrintError printed ("" when none): a fleet rank's reason for failing.
const std::string& LastError();
// The exit status for a failed Status: bad input, refusals, missing things and unsupported
// requests are kExitUsage; interruption kExitInterrupted; the rest kExitFailed.
int ExitCodeFor(const Status& status);
// The use cases' Console on the terminal: Note on stderr, Fail as Fail below, LastError as
// LastError above.
usecase::Console& CliConsole();
// The one way a command fails on a Status: prints it (PrintError) and returns ExitCodeFor(it).
int Fail(const Status& status);

// `--progress json`: from now on stderr carries JSON lines only, one object a line. The progress
// events and the commands' own events ("end", "verdict") are written as such; every other line
// written to std::cerr (notes, warnings, errors) goes out as {"stage": "note", "message": LINE}
// or, for PrintError's, {"stage": "error", "message": MESSAGE}; blank lines are dropped.
void UseJsonLinesOnStderr();
// True after UseJsonLinesOnStderr.
bool JsonLinesOnStderr();

}  // namespace ssdlab
