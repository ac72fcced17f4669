#include "cli/man.h"

#include <filesystem>
#include <sstream>

#include "base/output_file.h"
#include "cli/commands.h"

namespace ssdlab {
namespace {

// Text as roff shows it: backslashes and hyphens escaped, no line starting a request.
std::string Roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

// The options of `cmd` (help included), as .TP paragraphs: name, value and default, text.
void Options(const CLI::App& cmd, std::ostringstream& out) {
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_group().empty()) continue;
    const bool positional = !o->nonpositional();
    out << ".TP\n\\fB" << Roff(positional ? o->get_name(true, false) : o->get_name(false, true))
        << "\\fR";
    if (o->get_type_size() != 0 && !o->get_type_name().empty())
      out << " \\fI" << Roff(o->get_type_name()) << "\\fR";
    if (o->get_expected_max() == CLI::detail::expected_max_vector_size) out << " ...";
    out << "\n" << Roff(o->get_description());
    if (!o->get_default_str().empty()) out << " (default: " << Roff(o->get_default_str()) << ")";
    if (o->get_required()) out << " (required)";
    out << "\n";
  }
}

// The command path of `cmd` ("ssdlab sim presets").
std::string PathOf(const CLI::App& cmd) {
  std::string path = cmd.get_name();
  for (const CLI::App* p = cmd.get_parent(); p; p = p->get_parent())
    path = p->get_name() + " " + path;
  return path;
}

// A subcommand's section (recursively for its own subcommands).
void Subcommand(const CLI::App& sub, std::ostringstream& out) {
  out << ".SS \"" << Roff(PathOf(sub)) << "\"\n" << Roff(sub.get_description()) << "\n";
  std::ostringstream opts;
  Options(sub, opts);
  if (!opts.str().empty()) out << ".PP\nOptions:\n" << opts.str();
  for (const CLI::App* s : sub.get_subcommands(ShownInHelp)) Subcommand(*s, out);
}

}  // namespace

std::string ManPage(const CLI::App& cmd, const std::string& version) {
  const bool top = cmd.get_parent() == nullptr;
  const std::string page = top ? "ssdlab" : "ssdlab-" + cmd.get_name();
  std::string upper = page;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::ostringstream out;
  out << ".TH " << upper << " 1 \"\" \"ssdlab " << Roff(version) << "\" \"ssdlab manual\"\n";
  out << ".SH NAME\n" << Roff(page) << " \\- " << Roff(cmd.get_description()) << "\n";
  out << ".SH SYNOPSIS\n.B " << Roff(PathOf(cmd)) << "\n"
      << (top ? "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n" : "[\\fIOPTIONS\\fR]\n");
  const auto subs = cmd.get_subcommands(ShownInHelp);
  if (top) {
    out << ".SH COMMANDS\nEach command has its own page, ssdlab\\-COMMAND(1).\n";
    for (const CLI::App* s : subs)
      out << ".TP\n\\fB" << Roff(s->get_name()) << "\\fR\n" << Roff(s->get_description()) << "\n";
    out << ".SH EXIT STATUS\n0 success; 1 the run finished but saw I/O errors or verify "
           "failures; 2 bad input or a refusal (nothing was written); 3 the run failed; 4 pts "
           "\\-\\-require\\-steady\\-state: a test did not reach steady state; 130 interrupted "
           "(results measured so far are still written).\n";
  }
  std::ostringstream opts;
  Options(cmd, opts);
  if (!opts.str().empty()) out << ".SH OPTIONS\n" << opts.str();
  if (!top && !subs.empty()) {
    out << ".SH SUBCOMMANDS\n";
    for (const CLI::App* s : subs) Subcommand(*s, out);
  }
  if (!cmd.get_footer().empty())
    out << ".SH EXAMPLES\n.nf\n" << Roff(cmd.get_footer()) << "\n.fi\n";
  out << ".SH SEE ALSO\n";
  if (top) {
    for (size_t i = 0; i < subs.size(); ++i)
      out << (i ? ",\n" : "") << "ssdlab\\-" << Roff(subs[i]->get_name()) << "(1)";
    out << ", fio(1)\n";
  } else {
    out << "ssdlab(1)\n";
  }
  return out.str();
}

Status WriteManPages(const CLI::App& app, const std::string& dir, const std::string& version) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Io(dir + ": " + ec.message());
  auto write = [&](const CLI::App& cmd, const std::string& name) {
    return WriteOutputFile("--dir", dir + "/" + name + ".1", ManPage(cmd, version));
  };
  SSDLAB_RETURN_IF_ERROR(write(app, "ssdlab"));
  for (const CLI::App* s : app.get_subcommands(ShownInHelp))
    SSDLAB_RETURN_IF_ERROR(write(*s, "ssdlab-" + s->get_name()));
  return Status::Ok();
}

void AddManCommand(CLI::App& app, int* exit_code, const std::string& version) {
  auto dir = std::make_shared<std::string>();
  CLI::App* man = app.add_subcommand("man", "Write the manual pages (for the build and install)");
  man->group("");  // not a user's command: hidden from --help and from the pages themselves
  man->add_option("--dir", *dir, "Directory to write ssdlab.1 and ssdlab-COMMAND.1 into")
      ->required();
  man->callback([&app, dir, exit_code, version] {
    Status s = WriteManPages(app, *dir, version);
    *exit_code = s.ok() ? kExitOk : Fail(s);
  });
}

}  // namespace ssdlab
