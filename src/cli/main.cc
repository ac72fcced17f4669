#include <csignal>
#include <iostream>

#include "cli/commands.h"
#include "cli/device_cmds.h"
#include "cli/report_cmds.h"
#include "cli/version.h"

namespace ssdlab {

std::atomic<bool>& StopFlag() {
  static std::atomic<bool> flag{false};
  return flag;
}

void PrintError(const std::string& message) { std::cerr << "ssdlab: error: " << message << std::endl; }

int ExitCodeFor(const Status& s) {
  switch (s.code()) {
    case Code::kInvalidArgument:
    case Code::kNotFound:
    case Code::kPermission:
    case Code::kNoSpace:
    case Code::kUnsupported:
      return kExitUsage;
    case Code::kInterrupted:
      return kExitInterrupted;
    default:
      return kExitFailed;
  }
}

}  // namespace ssdlab

namespace {

void OnSignal(int sig) {
  ssdlab::StopFlag().store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C ends the program at once
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ssdlab;
  CLI::App app{"ssdlab: an SSD test lab (SNIA PTS, review workloads, simulated drives)", "ssdlab"};
  app.set_version_flag("--version", std::string(kVersion) + " (" + kGitRevision + ")");
  app.require_subcommand(1);
  int exit_code = kExitOk;
  AddRunCommand(app, &exit_code);
  AddSimCommand(app, &exit_code);
  AddPtsCommands(app, &exit_code);
  AddInfoCommand(app, &exit_code);
  AddPurgeCommand(app, &exit_code);
  AddProfileCommand(app, &exit_code);
  AddAppCommand(app, &exit_code);
  AddReportCommands(app, &exit_code);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    PrintError(what.empty() ? "bad command line" : what + " (see ssdlab --help)");
    return kExitUsage;
  }
  return exit_code;
}
