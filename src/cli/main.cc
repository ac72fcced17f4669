#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>

#include "base/secrets.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/device_cmds.h"
#include "cli/examples.h"
#include "cli/fio_names.h"
#include "cli/help_topics.h"
#include "cli/man.h"
#include "cli/report_cmds.h"
#include "usecase/version.h"

namespace ssdlab {

std::atomic<bool>& StopFlag() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {
std::string& LastErrorSlot() {
  static std::string last;
  return last;
}
}  // namespace

void PrintError(const std::string& message) {
  LastErrorSlot() = MaskSecrets(message);
  std::cerr << "ssdlab: error: " << LastErrorSlot() << std::endl;
}

const std::string& LastError() { return LastErrorSlot(); }

int ExitCodeFor(const Status& s) { return usecase::ExitStatusFor(s); }

int Fail(const Status& status) {
  PrintError(status.message());
  return ExitCodeFor(status);
}

usecase::Console& CliConsole() {
  struct Stderr : usecase::Console {
    void Note(const std::string& lines) override {
      std::cerr << lines << (lines.empty() || lines.back() != '\n' ? "\n" : "") << std::flush;
    }
    int Fail(const Status& status) override { return ssdlab::Fail(status); }
    std::string LastError() const override { return ssdlab::LastError(); }
  };
  static Stderr console;
  return console;
}

}  // namespace ssdlab

namespace {

// Every SIGINT or SIGTERM asks the running phase to stop; none kills the program, so that what
// was measured is still stored and written (service managers and `timeout` send SIGTERM more
// than once). SIGKILL remains the way to abort at once.
void OnSignal(int) {
  static std::atomic<int> count{0};
  ssdlab::StopFlag().store(true);
  if (count.fetch_add(1) == 1) {
    constexpr char kMsg[] =
        "ssdlab: already stopping; saving what was measured (SIGKILL aborts without saving)\n";
    ssize_t ignored = write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
    (void)ignored;
  }
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
  AddImportCommand(app, &exit_code);
  AddPtsCommands(app, &exit_code);
  AddRunsCommands(app, &exit_code);
  AddInfoCommand(app, &exit_code);
  AddPurgeCommand(app, &exit_code);
  AddProfileCommand(app, &exit_code);
  AddAppCommand(app, &exit_code);
  AddReportCommands(app, &exit_code);
  AddReplayCommand(app, &exit_code);
  AddTraceCommand(app, &exit_code);
  AddPlpCommand(app, &exit_code);
  AddDbCommand(app, &exit_code);
  AddHelpCommand(app, &exit_code);
  AddExamples(app);
  AddManCommand(app, &exit_code, kVersion);
  AddCompletionCommand(app, &exit_code);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    for (int i = 1; i < argc; ++i)
      if (std::optional<std::string> hint = FioFlagHint(argv[i])) {
        PrintError(*hint);
        return kExitUsage;
      }
    std::string what = e.what();
    PrintError(what.empty() ? "bad command line" : what + " (see ssdlab --help)");
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    PrintError(
        "out of memory (a smaller simulated drive, a larger sim scale or a lower --qd/--jobs needs "
        "less)");
    return kExitFailed;
  } catch (const std::exception& e) {
    // Expected failures are Status values; this is a bug or a damaged input that slipped by.
    PrintError(std::string("unexpected failure: ") + e.what());
    return kExitFailed;
  }
  return exit_code;
}
