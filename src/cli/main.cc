#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <string>

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
std::atomic<bool> json_lines_on_stderr{false};

// std::cerr's buffer under UseJsonLinesOnStderr: each line that is not already a JSON object goes
// out as one; blank lines are dropped. Restores the terminal's buffer when destroyed (at exit).
// Thread-safe: a write from another thread waits for the one under way (each piece of a line,
// not whole lines: pieces of lines written by two threads at once may mix, as on a terminal).
class JsonLinesBuf : public std::streambuf {
 public:
  explicit JsonLinesBuf(std::streambuf* out) : out_(out) {}
  ~JsonLinesBuf() override {
    if (!line_.empty()) EmitLine();
    std::cerr.rdbuf(out_);
  }

 protected:
  int_type overflow(int_type c) override {
    std::lock_guard<std::mutex> lock(mu_);
    return Put(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::streamsize i = 0; i < n; ++i) Put(traits_type::to_int_type(s[i]));
    return n;
  }
  int sync() override { return out_->pubsync(); }

 private:
  int_type Put(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    if (traits_type::to_char_type(c) == '\n') {
      EmitLine();
    } else {
      line_.push_back(traits_type::to_char_type(c));
    }
    return c;
  }
  void EmitLine() {
    static const std::string kError = "ssdlab: error: ";
    std::string out;
    if (line_.empty()) return;
    if (line_.front() == '{' && nlohmann::json::accept(line_)) {
      out = line_;
    } else {
      const bool error = line_.rfind(kError, 0) == 0;
      out = nlohmann::json{{"stage", error ? "error" : "note"},
                           {"message", error ? line_.substr(kError.size()) : line_}}
                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    out += '\n';
    out_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
    line_.clear();
  }

  std::mutex mu_;
  std::streambuf* out_;
  std::string line_;
};

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

void UseJsonLinesOnStderr() {
  static JsonLinesBuf buf(std::cerr.rdbuf());
  std::cerr.rdbuf(&buf);
  json_lines_on_stderr = true;
}

bool JsonLinesOnStderr() { return json_lines_on_stderr; }

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
    constexpr char kJson[] =
        "{\"stage\":\"note\",\"message\":\"ssdlab: already stopping; saving what was measured "
        "(SIGKILL aborts without saving)\"}\n";
    const bool json = ssdlab::JsonLinesOnStderr();
    ssize_t ignored =
        write(STDERR_FILENO, json ? kJson : kMsg, json ? sizeof kJson - 1 : sizeof kMsg - 1);
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
