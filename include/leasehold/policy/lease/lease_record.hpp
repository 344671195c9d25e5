#pragma once

/// \file
/// What the lease scheduler knows about each lease: its terms, its state, the work it still
/// owes, the segment it is booked for now and the history of segments it ran. A lease runs as
/// one or more segments (§3.2: "each lease as a workflow of actions"): on one set of nodes, an
/// optional migration of its image and memory state, an optional resume, the run itself, and
/// then either a shutdown (the lease is done) or a suspension (its remainder is requeued).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "leasehold/core/detail/enum_name.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"

namespace leasehold::policy::lease {

/// Where a lease is in its life.
enum class lease_state {
  queued,     ///< waiting in the best-effort queue (new, suspended, or cancelled and requeued)
  scheduled,  ///< booked for a segment that has not begun
  running,    ///< inside a segment (migrating, resuming, running, shutting down or suspending)
  done,
  rejected,
  withdrawn,  ///< taken back by its user before it ever started
};

/// Writes the state's name ("queued", "running", ...).
inline std::ostream& operator<<(std::ostream& out, lease_state state) {
  return leasehold::detail::write_enum_name(
      out, state, std::array{"queued", "scheduled", "running", "done", "rejected", "withdrawn"});
}

/// How a segment ended.
enum class segment_outcome { completed, suspended, cancelled, released };

/// One booked stretch of a lease on one set of nodes. `booked` is what the slot table holds
/// (per_node on every node); the phases lie inside it in this order:
///   [booked.begin, run.begin)  migration (if migrates) then resume (if resumes)
///   run                        the lease computes
///   [run.end, booked.end)      shutdown (VMs, the lease completes) or suspension
/// `finish` is when the segment really ends: before booked.end when the lease's real
/// duration runs out early (a premature end, §4.2), which frees the rest of the booking.
template <time_value T = std::int64_t, vector_capacity C = node_resources>
struct segment {
  /// The nodes it holds.
  std::vector<std::size_t> nodes;
  /// What it holds on each.
  C per_node{};
  /// What the slot table holds for it (per_node on every node).
  interval<T> booked{};
  /// The computing part.
  interval<T> run{};
  /// Begins with a migration to `nodes`.
  bool migrates = false;
  /// Begins with a resume.
  bool resumes = false;
  bool suspends = false;   ///< booked to end in a suspension rather than a shutdown
  bool completes = false;  ///< the lease's work (or its maximum duration) ends in this segment
  /// When the segment really ends (see above).
  T finish{};
  /// A planned migration under migration_step::transfer_first: the transfer to `nodes`, booked
  /// on its own when the segment is booked (and then cleared: the memory state is on its way).
  std::optional<interval<T>> transfer;

  /// Equal when every field is equal.
  friend bool operator==(const segment&, const segment&) = default;
};

/// A segment as it really happened.
template <time_value T = std::int64_t>
struct segment_record {
  /// The nodes it ran on.
  std::vector<std::size_t> nodes;
  interval<T> span{};  ///< from the segment's begin to its real end
  interval<T> run{};   ///< the computing part, as executed
  T work{};            ///< work done, in real-duration units (run length / slowdown)
  /// How it ended.
  segment_outcome outcome = segment_outcome::completed;

  /// Equal when every field is equal.
  friend bool operator==(const segment_record&, const segment_record&) = default;
};

/// Everything the scheduler knows of one lease: its terms, its state, what is left of its work,
/// its current segment and the segments it ran.
template <time_value T = std::int64_t, vector_capacity C = node_resources>
struct lease_record {
  /// The per-node resource vector.
  using capacity_type = C;
  /// The terms it was submitted with.
  lease_terms<T, C> terms;
  /// Where it is in its life.
  lease_state state = lease_state::queued;
  T remaining_max{};             ///< of the maximum duration, in work units
  T remaining_real{};            ///< of the real duration, in work units
  std::optional<T> first_start;  ///< t_s of §4.4: the first segment's begin
  std::optional<T> end;          ///< t_e
  /// The segment booked or running now, if any.
  std::optional<segment<T, C>> current;
  std::vector<std::size_t> suspended_on;  ///< where its memory state lies after a suspension
  /// The last migration_step::transfer_first transfer, to suspended_on (it holds their disk
  /// over this span; the lease cannot resume there before its end).
  std::optional<interval<T>> migration_transfer;
  /// The segments it ran, in order.
  std::vector<segment_record<T>> history;
  /// How many times it was suspended.
  std::size_t suspensions = 0;
  /// How many times it migrated.
  std::size_t migrations = 0;
  /// How many times it was cancelled and requeued (without suspension).
  std::size_t cancellations = 0;
  /// Why it was rejected (empty otherwise).
  std::string rejection;
  std::uint64_t generation = 0;  ///< bumped whenever `current` changes; stale events are ignored

  /// Equal when every field is equal.
  friend bool operator==(const lease_record&, const lease_record&) = default;

  /// True for a best-effort lease.
  [[nodiscard]] bool is_best_effort() const noexcept {
    return terms.kind == lease_kind::best_effort;
  }
  /// The work its segments did, in real-duration units. O(segments).
  [[nodiscard]] T work_done() const {
    T total{};
    for (const auto& s : history) total += s.work;
    return total;
  }
};

}  // namespace leasehold::policy::lease
