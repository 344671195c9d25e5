#pragma once

/// \file
/// Reading and writing the Standard Workload Format of the Parallel Workloads Archive
/// (Feitelson et al.): header comments starting with ';', then one job a line as 18
/// whitespace-separated fields, -1 meaning "unknown".
///
/// What the reader accepts and what it rejects:
/// - Real logs have quirks that are data, not errors: run time -1, run time above the
///   requested time, requested time <= 0, -1 in any field. They are kept as they are; the
///   lease conversion (swf_leases.hpp) decides what they mean.
/// - Errors: a line with other than 18 fields, a field that is not a number, a negative
///   submit time, a submit time before the previous record's, a processor count (allocated
///   or requested) below -1 (no job runs on -4 processors, and -1 is the only "unknown"), and
///   a header key the reader knows (MaxProcs, ...) with a value that is not an integer. With
///   on_error::stop the first one throws parse_error (line number and offending text); with
///   on_error::skip the line is dropped and counted in log::skipped.
/// - Field 6 (average CPU time) is a real number; "-1" reads as -1.0 (unknown).
/// - A fractional number in an integer field (e.g. "12.5" memory, which some converted logs
///   contain) is rounded to the nearest integer by default (ties away from zero), or
///   rejected with read_options::fractions = fraction_policy::reject. An integral value
///   written with a fraction ("300.0") or an exponent ("3e2") is always accepted.
/// - Blank lines are ignored. `\r\n` line ends read like `\n`.

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/sim/workload/detail/text.hpp"
#include "leasehold/sim/workload/parse_error.hpp"

namespace leasehold::workload::swf {

using leasehold::detail::fraction_policy;

/// The header keys a simulation needs; every comment line is also kept, in order, in
/// `comments` (without the ';' and surrounding blanks), so nothing of the header is lost.
struct header {
  ///@{
  /// MaxNodes, MaxProcs, UnixStartTime: empty when the header does not give them.
  std::optional<std::int64_t> max_nodes, max_procs, unix_start_time;
  ///@}
  std::string time_zone;              ///< TimeZoneString, e.g. "US/Pacific"
  std::vector<std::string> comments;  ///< every comment line, in order
  // Beyond the contract:
  ///@{
  /// MaxJobs, MaxRecords: empty when the header does not give them.
  std::optional<std::int64_t> max_jobs, max_records;
  ///@}
  std::vector<std::string>
      notes;  ///< each "Note:" with its indented continuation lines, '\n'-joined

  /// Equal when every key and comment is equal.
  friend bool operator==(const header&, const header&) = default;
};

/// The 18 SWF fields in order; -1 = unknown, as in the format.
struct record {
  ///@{
  /// The SWF fields 1-18 in order: job number, submit time, wait time, run time, allocated
  /// processors, average CPU time, used memory, requested processors, requested time,
  /// requested memory, status, user, group, executable, queue, partition, preceding job,
  /// think time (times in seconds); -1 where the log does not know.
  std::int64_t job, submit, wait, run_time, allocated_procs;
  double avg_cpu_time;
  std::int64_t used_memory, requested_procs, requested_time, requested_memory, status, user, group,
      executable, queue, partition, preceding_job, think_time;
  ///@}

  /// Equal when every field is equal.
  friend bool operator==(const record&, const record&) = default;
};

/// The number of fields of an SWF line.
inline constexpr std::size_t field_count = 18;

/// Status values (field 11) the lease conversion cares about.
inline constexpr std::int64_t status_failed = 0;     ///< the job failed
inline constexpr std::int64_t status_completed = 1;  ///< the job completed
inline constexpr std::int64_t status_cancelled = 5;  ///< cancelled (before or while running)

/// A whole SWF log as read.
struct log {
  header head;                  ///< the header's keys and comments
  std::vector<record> records;  ///< the job lines, in file order
  std::size_t skipped = 0;      ///< malformed lines dropped under on_error::skip

  /// Equal when header, records and skipped count are equal.
  friend bool operator==(const log&, const log&) = default;
};

/// What reading does with a malformed line: stop with parse_error, or skip it and count it.
enum class on_error { stop, skip };

/// A malformed line; line() is its 1-based number.
struct parse_error : workload::parse_error {
  using workload::parse_error::parse_error;
};

/// How read() treats malformed lines and fractional values.
struct read_options {
  on_error policy = on_error::stop;                    ///< stop at or skip a malformed line
  fraction_policy fractions = fraction_policy::round;  ///< round or reject a fraction
  std::size_t expected_records = 0;  ///< a capacity hint, e.g. the MaxRecords of a known log
  /// Under on_error::skip, called with each malformed line's error before the line is dropped,
  /// so that a caller can report which lines were skipped and why, not only how many.
  std::function<void(const parse_error&)> on_skipped{};
};

namespace detail {

/// A comment body (after the ';') indented by at least two blanks continues the Note above.
constexpr bool continues(std::string_view body) noexcept {
  return body.size() > 2 && leasehold::detail::is_blank(body[0]) &&
         leasehold::detail::is_blank(body[1]);
}

/// Splits a "Key: value" comment; false when the text before the colon is not one word.
inline bool split_key(std::string_view comment, std::string_view& key, std::string_view& value) {
  const auto colon = comment.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  key = comment.substr(0, colon);
  for (const char c : key)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  value = leasehold::detail::trim(comment.substr(colon + 1));
  return true;
}

/// The leading integer of a header value: "184  ( 6,  171,   7)" (SDSC DataStar lists its
/// partitions after the total) reads as 184.
inline std::optional<std::int64_t> header_integer(std::string_view value) {
  std::int64_t number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc{} || end == value.data()) return std::nullopt;
  const std::string_view rest =
      leasehold::detail::trim(value.substr(static_cast<std::size_t>(end - value.data())));
  if (!rest.empty() && rest.front() != '(') return std::nullopt;
  return number;
}

class reader {
 public:
  explicit reader(const read_options& options) : options_(options) {}

  log run(std::istream& in) {
    log result;
    result.records.reserve(options_.expected_records);
    leasehold::detail::line_reader lines(in);
    while (const auto line = lines.next()) {
      line_ = lines.line_number();
      const auto text = leasehold::detail::trim(*line);
      if (text.empty()) {
        in_note_ = false;
        continue;
      }
      try {
        if (text.front() == ';')
          comment(*line, text.substr(1), result.head);
        else
          result.records.push_back(parse_record(text));
      } catch (const parse_error& e) {
        if (options_.policy == on_error::stop) throw;
        if (options_.on_skipped) options_.on_skipped(e);
        ++result.skipped;
      }
    }
    return result;
  }

  /// Parses one line; throws parse_error naming `line_`.
  record parse_record(std::string_view text) {
    in_note_ = false;
    std::array<std::string_view, field_count> fields;
    const auto found = leasehold::detail::split_fields(text, fields);
    if (found != field_count)
      fail(leasehold::detail::describe("expected ", field_count, " fields, found ", found, ": ",
                                       leasehold::detail::quote(text)));
    record r{};
    std::int64_t* const integer_fields[] = {&r.job,
                                            &r.submit,
                                            &r.wait,
                                            &r.run_time,
                                            &r.allocated_procs,
                                            nullptr,
                                            &r.used_memory,
                                            &r.requested_procs,
                                            &r.requested_time,
                                            &r.requested_memory,
                                            &r.status,
                                            &r.user,
                                            &r.group,
                                            &r.executable,
                                            &r.queue,
                                            &r.partition,
                                            &r.preceding_job,
                                            &r.think_time};
    for (std::size_t i = 0; i < field_count; ++i) {
      if (integer_fields[i] == nullptr) {
        const auto value = leasehold::detail::parse_double(fields[i]);
        if (!value) bad_field(i, fields[i], "a number", text);
        r.avg_cpu_time = *value;
      } else {
        const auto value = leasehold::detail::parse_int(fields[i], options_.fractions);
        if (!value)
          bad_field(i, fields[i],
                    options_.fractions == fraction_policy::reject ? "an integer"
                                                                  : "a number in int64 range",
                    text);
        *integer_fields[i] = *value;
      }
    }
    if (r.submit < 0)
      fail(leasehold::detail::describe("negative submit time ", r.submit, ": ",
                                       leasehold::detail::quote(text)));
    for (const auto& [count, what] : {std::pair{r.allocated_procs, "allocated (field 5)"},
                                      std::pair{r.requested_procs, "requested (field 8)"}})
      if (count < -1)
        fail(leasehold::detail::describe(
            "negative processor count ", count, " ", what,
            " (-1 is the only value meaning unknown): ", leasehold::detail::quote(text)));
    if (last_submit_ && r.submit < *last_submit_)
      fail(leasehold::detail::describe(
          "submit time ", r.submit, " is before the previous ", *last_submit_,
          " (records must be in submit order): ", leasehold::detail::quote(text)));
    last_submit_ = r.submit;
    return r;
  }

 private:
  void comment(std::string_view raw_line, std::string_view body, header& head) {
    const auto text = leasehold::detail::trim(body);
    std::string_view key, value;
    if (in_note_ && !text.empty() && continues(body)) {
      // An indented line continues the Note above it (the archive's cleaning notes span
      // several lines).
      head.notes.back().push_back('\n');
      head.notes.back().append(text);
    } else if (split_key(text, key, value)) {
      in_note_ = false;
      if (key == "MaxNodes") {
        head.max_nodes = integer(key, value, raw_line);
      } else if (key == "MaxProcs") {
        head.max_procs = integer(key, value, raw_line);
      } else if (key == "UnixStartTime") {
        head.unix_start_time = integer(key, value, raw_line);
      } else if (key == "MaxJobs") {
        head.max_jobs = integer(key, value, raw_line);
      } else if (key == "MaxRecords") {
        head.max_records = integer(key, value, raw_line);
      } else if (key == "TimeZoneString") {
        head.time_zone = std::string(value);
      } else if (key == "Note") {
        head.notes.emplace_back(value);
        in_note_ = true;
      }
    } else {
      in_note_ = false;
    }
    head.comments.emplace_back(text);
  }

  std::int64_t integer(std::string_view key, std::string_view value, std::string_view raw_line) {
    const auto number = header_integer(value);
    if (!number)
      fail(leasehold::detail::describe("header ", key,
                                       " is not an integer: ", leasehold::detail::quote(raw_line)));
    return *number;
  }

  [[noreturn]] void bad_field(std::size_t index, std::string_view field, const char* wanted,
                              std::string_view text) const {
    fail(leasehold::detail::describe("field ", index + 1, " ", leasehold::detail::quote(field),
                                     " is not ", wanted, ": ", leasehold::detail::quote(text)));
  }

  [[noreturn]] void fail(const std::string& message) const { throw parse_error(line_, message); }

  read_options options_;
  std::size_t line_ = 0;
  std::optional<std::int64_t> last_submit_;
  bool in_note_ = false;
};

}  // namespace detail

/// Reads a whole SWF log. Throws parse_error at the first malformed line under
/// on_error::stop; under on_error::skip drops malformed lines and counts them.
inline log read(std::istream& in, const read_options& options) {
  detail::reader parser(options);
  return parser.run(in);
}

/// read(in, read_options{.policy = policy}).
inline log read(std::istream& in, on_error policy = on_error::stop) {
  return read(in, read_options{.policy = policy});
}

/// Writes one record as an SWF line (no newline). Integers as they are; field 6 in the
/// shortest form that reads back to the same double.
inline void write_record(std::ostream& out, const record& r) {
  std::array<char, 32> buffer{};
  const auto cpu = std::to_chars(buffer.data(), buffer.data() + buffer.size(), r.avg_cpu_time);
  out << r.job << ' ' << r.submit << ' ' << r.wait << ' ' << r.run_time << ' ' << r.allocated_procs
      << ' ' << std::string_view(buffer.data(), static_cast<std::size_t>(cpu.ptr - buffer.data()))
      << ' ' << r.used_memory << ' ' << r.requested_procs << ' ' << r.requested_time << ' '
      << r.requested_memory << ' ' << r.status << ' ' << r.user << ' ' << r.group << ' '
      << r.executable << ' ' << r.queue << ' ' << r.partition << ' ' << r.preceding_job << ' '
      << r.think_time;
}

/// Writes a log that read() turns back into an equal log (skipped is not written). The
/// comments are written as they are; a header field that no comment carries (e.g. a
/// header built in code) gets its own "; Key: value" line first.
inline void write(std::ostream& out, const log& data) {
  const auto& head = data.head;
  const auto carried = [&](std::string_view wanted) {
    for (const auto& comment : head.comments) {
      std::string_view key, value;
      if (detail::split_key(comment, key, value) && key == wanted) return true;
    }
    return false;
  };
  const auto emit = [&](std::string_view key, const std::optional<std::int64_t>& value) {
    if (value && !carried(key)) out << "; " << key << ": " << *value << '\n';
  };
  emit("MaxJobs", head.max_jobs);
  emit("MaxRecords", head.max_records);
  emit("UnixStartTime", head.unix_start_time);
  if (!head.time_zone.empty() && !carried("TimeZoneString"))
    out << "; TimeZoneString: " << head.time_zone << '\n';
  emit("MaxNodes", head.max_nodes);
  emit("MaxProcs", head.max_procs);
  if (!carried("Note"))
    for (const auto& note : head.notes) {
      std::string_view rest = note;
      auto newline = rest.find('\n');
      out << "; Note: " << rest.substr(0, newline) << '\n';
      while (newline != std::string_view::npos) {
        rest.remove_prefix(newline + 1);
        newline = rest.find('\n');
        out << ";       " << rest.substr(0, newline) << '\n';
      }
    }
  /// Continuation lines of a Note are written indented so they read back as part of it.
  std::size_t note = 0;
  std::string_view pending;  ///< the continuation lines of the last Note not yet written
  for (const auto& comment : head.comments) {
    std::string_view key, value;
    const auto newline = pending.find('\n');
    if (!pending.empty() && pending.substr(0, newline) == comment) {
      out << ";       " << comment << '\n';
      pending =
          newline == std::string_view::npos ? std::string_view{} : pending.substr(newline + 1);
      continue;
    }
    pending = {};
    if (detail::split_key(comment, key, value) && key == "Note" && note < head.notes.size()) {
      const std::string_view text = head.notes[note++];
      const auto first_end = text.find('\n');
      if (first_end != std::string_view::npos) pending = text.substr(first_end + 1);
    }
    out << ';' << (comment.empty() ? "" : " ") << comment << '\n';
  }
  for (const auto& r : data.records) {
    write_record(out, r);
    out << '\n';
  }
}

}  // namespace leasehold::workload::swf

namespace leasehold {
/// The name users know: the Standard Workload Format live under sim/workload, so in the folder's
/// namespace.
namespace swf = workload::swf;
}  // namespace leasehold
