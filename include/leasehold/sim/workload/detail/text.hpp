#pragma once

// Text scanning shared by the workload readers: a chunked line reader over any
// std::istream and std::from_chars based field conversion. Reading a 243,000-line log must
// take a fraction of a second, so no per-field iostream extraction and no per-line
// allocation.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace leasehold::detail {

[[nodiscard]] constexpr bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

[[nodiscard]] constexpr std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

// Text from a file as an error message shows it, cut to a length a terminal shows whole.
// Bytes outside printable ASCII (control characters, DEL, and every byte of a non-ASCII or
// binary line) and the backslash are written as escapes (\t, \r, \n, \\, \xNN), so that a
// garbage line in a file is shown, never acted on by the terminal that prints the message.
[[nodiscard]] inline std::string escape(std::string_view text, std::size_t limit = 120) {
  std::string quoted;
  const bool cut = text.size() > limit;
  for (const char c : cut ? text.substr(0, limit) : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      quoted.append("\\\\");
    } else if (c == '\t') {
      quoted.append("\\t");
    } else if (c == '\r') {
      quoted.append("\\r");
    } else if (c == '\n') {
      quoted.append("\\n");
    } else if (byte < 0x20 || byte >= 0x7f) {
      constexpr char digits[] = "0123456789abcdef";
      quoted.append("\\x");
      quoted.push_back(digits[byte >> 4]);
      quoted.push_back(digits[byte & 0xf]);
    } else {
      quoted.push_back(c);
    }
  }
  if (cut) quoted.append("...");
  return quoted;
}

// The offending text quoted in an error message: escape()d, between single quotes.
[[nodiscard]] inline std::string quote(std::string_view text, std::size_t limit = 120) {
  return "'" + escape(text, limit) + "'";
}

// Reads an istream in large chunks and hands out one line at a time (without its '\n',
// and without a trailing '\r' so Windows line ends read the same). A returned view stays
// valid until the next call.
class line_reader {
 public:
  explicit line_reader(std::istream& in, std::size_t chunk = std::size_t{1} << 16)
      : in_(in), chunk_(chunk) {}

  // The next line, or nullopt at the end of the stream.
  [[nodiscard]] std::optional<std::string_view> next() {
    for (;;) {
      const auto newline = buffer_.find('\n', scan_);
      if (newline != std::string::npos) {
        std::string_view line(buffer_.data() + begin_, newline - begin_);
        begin_ = scan_ = newline + 1;
        ++number_;
        return strip_cr(line);
      }
      scan_ = buffer_.size();
      if (!fill()) {
        if (begin_ == buffer_.size()) return std::nullopt;
        std::string_view line(buffer_.data() + begin_, buffer_.size() - begin_);
        begin_ = scan_ = buffer_.size();
        ++number_;
        return strip_cr(line);
      }
    }
  }

  // 1-based number of the line last returned.
  [[nodiscard]] std::size_t line_number() const noexcept { return number_; }

 private:
  static std::string_view strip_cr(std::string_view line) noexcept {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  }

  // Drops consumed text and appends the next chunk; false at the end of the stream.
  bool fill() {
    if (!in_) return false;
    buffer_.erase(0, begin_);
    scan_ -= begin_;
    begin_ = 0;
    const auto old_size = buffer_.size();
    buffer_.resize(old_size + chunk_);
    in_.read(buffer_.data() + old_size, static_cast<std::streamsize>(chunk_));
    const auto got = static_cast<std::size_t>(in_.gcount());
    buffer_.resize(old_size + got);
    return got > 0;
  }

  std::istream& in_;
  std::size_t chunk_;
  std::string buffer_;
  std::size_t begin_ = 0;  // start of the unconsumed text
  std::size_t scan_ = 0;   // where the search for the next '\n' resumes
  std::size_t number_ = 0;
};

// Splits on blanks into at most `out.size()` fields; returns the number of fields found
// (which may exceed out.size(): the caller reports a wrong count).
template <std::size_t N>
[[nodiscard]] std::size_t split_fields(std::string_view line,
                                       std::array<std::string_view, N>& out) noexcept {
  std::size_t count = 0;
  std::size_t i = 0;
  const auto size = line.size();
  while (i < size) {
    while (i < size && is_blank(line[i])) ++i;
    if (i == size) break;
    const auto start = i;
    while (i < size && !is_blank(line[i])) ++i;
    if (count < N) out[count] = line.substr(start, i - start);
    ++count;
  }
  return count;
}

// A whole field as a double (decimal or exponent notation; "inf"/"nan" rejected).
[[nodiscard]] inline std::optional<double> parse_double(std::string_view field) noexcept {
  double value = 0;
  const char* first = field.data();
  const char* last = first + field.size();
  if (first != last && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc{} || end != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

// How a reader treats a fractional number where the format wants an integer.
enum class fraction_policy {
  round,   // round to nearest, ties away from zero
  reject,  // a parse error
};

// A whole field as int64. Plain integers take the fast path; a number with a fraction or
// exponent is rounded or rejected according to `fractions`.
[[nodiscard]] inline std::optional<std::int64_t> parse_int(std::string_view field,
                                                           fraction_policy fractions) noexcept {
  std::int64_t value = 0;
  const char* first = field.data();
  const char* last = first + field.size();
  if (first != last && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc{} && end == last) return value;
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  const auto real = parse_double(field);
  if (!real) return std::nullopt;
  const double rounded = std::round(*real);
  if (rounded != *real && fractions == fraction_policy::reject) return std::nullopt;
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  constexpr double limit = 9223372036854775808.0;
  if (!(rounded < limit && rounded >= -limit)) return std::nullopt;
  return static_cast<std::int64_t>(rounded);
}

}  // namespace leasehold::detail
