// fio's option names typed out of habit on ssdlab's command line, and what ssdlab calls each.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ssdlab {

// For an argument such as "--iodepth" or "--iodepth=4" that names one of fio's options ssdlab
// has no flag of that name for: one line saying which ssdlab flag (or default) does the same,
// e.g. "--iodepth is fio's name; ssdlab's is --qd N (queue depth per job)". Otherwise nullopt
// (not a fio name, or a name ssdlab shares with fio, such as --bs or --runtime).
std::optional<std::string> FioFlagHint(std::string_view arg);

}  // namespace ssdlab
