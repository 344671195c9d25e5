#pragma once

#include <string>
#include <string_view>

namespace leasehold::io::detail {

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled;
// any other field is written as it is, so numbers and plain names stay unquoted.
inline void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace leasehold::io::detail
