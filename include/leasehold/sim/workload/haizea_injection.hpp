#pragma once

/// \file
/// Haizea's old plain-text lease format, used by the advance-reservation injection files of
/// the Haizea paper (Sotomayor, Keahey & Foster, HPDC'08, §4.2): one lease a line, ten
/// whitespace-separated fields
///
///   arrival start duration real-duration nodes cpus memory-MB disk-MB 'image' image-MB
///
/// with times in seconds from the start of the trace. Despite the files' .lwf extension
/// this is not the XML Lease Workload Format (haizea_lwf.hpp reads that). The image may be
/// quoted with ' or " (or not at all, if it has no blanks).

#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/lease_terms.hpp"
#include "leasehold/sim/workload/detail/text.hpp"
#include "leasehold/sim/workload/parse_error.hpp"

namespace leasehold::workload::haizea {

/// One line of an injection file, field by field.
struct injection {
  std::int64_t arrival = 0;        ///< submit time, s
  std::int64_t start = 0;          ///< requested start, s (advance notice = start - arrival)
  std::int64_t duration = 0;       ///< requested duration, s
  std::int64_t real_duration = 0;  ///< how long it really runs, s
  std::int64_t nodes = 1;          ///< how many nodes (VMs), one VM per node
  std::int64_t cpus = 1;           ///< per node
  std::int64_t memory_mb = 1024;   ///< per node
  std::int64_t disk_mb = 0;        ///< extra disk per node
  std::string image = "NONE.img";  ///< the disk image's name, as the file writes it
  std::int64_t image_mb = 0;       ///< the disk image's size, MB

  /// Equal when every field is equal.
  friend bool operator==(const injection&, const injection&) = default;
};

/// What reading does with a malformed line: stop with an error, or skip it and count it.
enum class on_error { stop, skip };

/// A whole injection file as read.
struct injection_file {
  std::vector<injection> leases;  ///< the well-formed lines, in file order
  std::size_t skipped = 0;        ///< malformed lines dropped under on_error::skip
};

namespace detail {

/// Splits an injection line into its ten fields; the ninth may be quoted and hold blanks.
inline std::size_t split_injection(std::string_view line, std::array<std::string_view, 10>& out,
                                   std::string& unquoted_image, std::size_t line_number) {
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && leasehold::detail::is_blank(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t start = i;
    std::string_view field;
    if ((line[i] == '\'' || line[i] == '"') && count == 8) {
      const char quote = line[i];
      const auto close = line.find(quote, i + 1);
      if (close == std::string_view::npos)
        throw workload::parse_error(
            line_number, "unterminated quoted image name: " + leasehold::detail::quote(line));
      field = line.substr(i + 1, close - i - 1);
      unquoted_image.assign(field);
      i = close + 1;
      if (i < line.size() && !leasehold::detail::is_blank(line[i]))
        throw workload::parse_error(
            line_number,
            "text after the closing quote of the image name: " + leasehold::detail::quote(line));
    } else {
      while (i < line.size() && !leasehold::detail::is_blank(line[i])) ++i;
      field = line.substr(start, i - start);
      if (count == 8) unquoted_image.assign(field);
    }
    if (count < out.size()) out[count] = field;
    ++count;
  }
  return count;
}

inline injection parse_injection(std::string_view line, std::size_t line_number) {
  static constexpr const char* names[] = {
      "arrival",       "start",           "duration",      "real duration", "nodes",
      "CPUs per node", "memory per node", "disk per node", "image",         "image size"};
  std::array<std::string_view, 10> fields;
  injection lease;
  const auto found = split_injection(line, fields, lease.image, line_number);
  const auto fail = [&](const std::string& why) -> void {
    throw workload::parse_error(line_number, why + ": " + leasehold::detail::quote(line));
  };
  if (found != fields.size())
    fail(leasehold::detail::describe("expected 10 fields, found ", found));
  std::int64_t* const numbers[] = {&lease.arrival,       &lease.start,   &lease.duration,
                                   &lease.real_duration, &lease.nodes,   &lease.cpus,
                                   &lease.memory_mb,     &lease.disk_mb, nullptr,
                                   &lease.image_mb};
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (numbers[i] == nullptr) continue;
    const auto value =
        leasehold::detail::parse_int(fields[i], leasehold::detail::fraction_policy::reject);
    if (!value)
      fail(leasehold::detail::describe("field ", i + 1, " (", names[i], ") ",
                                       leasehold::detail::quote(fields[i]), " is not an integer"));
    if (*value < 0 && i != 1)
      fail(leasehold::detail::describe("field ", i + 1, " (", names[i], ") is negative: ", *value));
    *numbers[i] = *value;
  }
  if (lease.duration <= 0) fail("the duration must be positive");
  if (lease.nodes <= 0) fail("the number of nodes must be positive");
  return lease;
}

}  // namespace detail

/// Reads an injection file. Blank lines and lines starting with '#' or ';' are skipped.
/// A requested start before the arrival (even before 0) is data, not an error: four leases
/// of the paper's files have one (the generator's inter-arrival range (i - 1 h, i + 1 h)
/// goes negative when i < 1 h); a scheduler rejects them as unsatisfiable. For the same
/// reason arrivals are not always in order (in ten of the 72 files, e.g. 41 of the 815
/// lines of work_10-dur_1h-size_1small arrive before the line above them): the lines are
/// kept in file order, sort by submit time before simulating. Malformed lines (wrong field
/// count, a non-integer number, a negative number other than the start, a non-positive
/// duration or node count) throw
/// workload::parse_error with the line number under on_error::stop, or are dropped and
/// counted under on_error::skip.
inline injection_file read_injections(std::istream& in, on_error policy = on_error::stop) {
  injection_file file;
  leasehold::detail::line_reader lines(in);
  while (const auto line = lines.next()) {
    const auto text = leasehold::detail::trim(*line);
    if (text.empty() || text.front() == '#' || text.front() == ';') continue;
    try {
      auto lease = detail::parse_injection(text, lines.line_number());
      file.leases.push_back(std::move(lease));
    } catch (const workload::parse_error&) {
      if (policy == on_error::stop) throw;
      ++file.skipped;
    }
  }
  return file;
}

/// Writes leases in the same format, one a line, image names in single quotes.
inline void write_injections(std::ostream& out, const std::vector<injection>& leases) {
  for (const auto& l : leases)
    out << l.arrival << ' ' << l.start << ' ' << l.duration << ' ' << l.real_duration << ' '
        << l.nodes << ' ' << l.cpus << ' ' << l.memory_mb << ' ' << l.disk_mb << " '" << l.image
        << "' " << l.image_mb << '\n';
}

/// How injection lines become lease_terms.
struct injection_conversion {
  /// The injection files carry a placeholder image ('NONE.img', 600 MB); the paper assigns
  /// images itself (workload::assign_images), so by default the image is left unset.
  bool keep_image = false;
};

/// An injection line as the advance-reservation lease it describes: kind
/// advance_reservation, not preemptible (Haizea paper §4.2), per-node vector
/// {cpus, memory, disk, 0}. The real duration is capped at the requested duration.
template <time_value T = std::int64_t>
[[nodiscard]] lease_terms<T> to_lease_terms(const injection& line, std::uint64_t id,
                                            const injection_conversion& options = {}) {
  lease_terms<T> lease;
  lease.id = id;
  lease.submit = static_cast<T>(line.arrival);
  lease.kind = lease_kind::advance_reservation;
  lease.start = static_cast<T>(line.start);
  lease.nodes = line.nodes;
  lease.per_node = node_resources{line.cpus, line.memory_mb, line.disk_mb, 0};
  lease.duration = static_cast<T>(line.duration);
  lease.real_duration = static_cast<T>(std::min(line.real_duration, line.duration));
  lease.preemptible = false;
  if (options.keep_image) lease.image = disk_image{line.image, line.image_mb};
  return lease;
}

/// The whole file as leases with ids first_id, first_id + 1, ...
template <time_value T = std::int64_t>
[[nodiscard]] std::vector<lease_terms<T>> to_lease_terms(const std::vector<injection>& lines,
                                                         std::uint64_t first_id = 0,
                                                         const injection_conversion& options = {}) {
  std::vector<lease_terms<T>> leases;
  leases.reserve(lines.size());
  for (const auto& line : lines) leases.push_back(to_lease_terms<T>(line, first_id++, options));
  return leases;
}

}  // namespace leasehold::workload::haizea

namespace leasehold {
/// The name users know: Haizea's own formats live under sim/workload, so in the folder's namespace.
namespace haizea = workload::haizea;
}  // namespace leasehold
