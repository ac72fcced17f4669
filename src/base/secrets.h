// Secrets in what ssdlab prints: a results database URL may carry a password
// (postgresql://user:PASSWORD@host/db, ?password=PASSWORD, or a libpq keyword string with
// password=PASSWORD). Every message that can hold one passes through MaskSecrets.
#pragma once

#include <string>

namespace ssdlab {

// `text` with every password it holds replaced by "***": the password of each URL's user
// information (scheme://user:***@host) and the value of each `password=` key (a URL query
// parameter, up to `&`; a keyword string's value, up to a blank, or quoted). The rest of the
// text, and a text without one, is returned unchanged.
std::string MaskSecrets(const std::string& text);

}  // namespace ssdlab
