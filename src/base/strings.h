// Splitting and trimming of text, written once for the whole project. No locale: "whitespace"
// is the ASCII set kSpace. Numbers from text: base/units.h (ParseCount, ParsePositiveCount, ...).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ssdlab {

// ASCII whitespace: what std::isspace accepts in the C locale.
inline constexpr std::string_view kSpace = " \t\n\v\f\r";

// The fields of `s` between the separators `sep`, in order, every one kept: empty fields stay
// (",a,,b," -> "", "a", "", "b", ""), "" is one empty field, and n separators make n + 1 fields.
// Nothing is trimmed.
std::vector<std::string> Split(std::string_view s, char sep);

// Split without the empty fields ("a,,b," -> "a", "b"; "" and "," -> none). Nothing is trimmed.
std::vector<std::string> SplitNonEmpty(std::string_view s, char sep);

// Split into at most `max` (>= 1) views of `s` (no allocation): fields as Split's, but the last
// view holds the rest of `s`, separators and all, when there are more. Returns how many views
// were written, 1 .. max. The views point into `s`.
size_t SplitN(std::string_view s, char sep, std::string_view* out, size_t max);

// `s` without its leading and trailing characters that are in `chars` (by default whitespace);
// a view into `s` (copy it before `s` goes: Trim of a temporary is used in the same expression).
std::string_view Trim(std::string_view s, std::string_view chars = kSpace);
// Only the trailing ones.
std::string_view TrimRight(std::string_view s, std::string_view chars = kSpace);

// The ASCII digits '0'-'9' at the start of `s`, as many as there are ("12ab" -> "12", "ab" ->
// ""); a view into `s`. For the small matchers of fixed names that std::regex would cost every
// file using it some seconds of compilation for (ParseCount turns the digits into a number).
std::string_view LeadingDigits(std::string_view s);

}  // namespace ssdlab
