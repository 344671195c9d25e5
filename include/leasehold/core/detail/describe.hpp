#pragma once

// Exception messages are sentences that name the values involved ("reserve [120, 80): end
// before begin"); every layer builds them the same way, so the helper lives at the bottom.

#include <sstream>
#include <string>

namespace leasehold::detail {

// Builds an exception message from streamable pieces; only on the cold path. A stream
// swallows a failed allocation and sets badbit, which would silently truncate the message (and
// a lease's rejection reason with it), so badbit is made to throw: std::bad_alloc propagates.
template <class... Parts>
[[nodiscard]] std::string describe(const Parts&... parts) {
  std::ostringstream out;
  out.exceptions(std::ios::badbit);
  (out << ... << parts);
  return out.str();
}

}  // namespace leasehold::detail
