#pragma once

// What the lease scheduler knows about each lease: its terms, its state, the work it still
// owes, the segment it is booked for now and the history of segments it ran. A lease runs as
// one or more segments (§3.2: "each lease as a workflow of actions"): on one set of nodes, an
// optional migration of its image and memory state, an optional resume, the run itself, and
// then either a shutdown (the lease is done) or a suspension (its remainder is requeued).

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

enum class lease_state {
  queued,     // waiting in the best-effort queue (new, suspended, or cancelled and requeued)
  scheduled,  // booked for a segment that has not begun
  running,    // inside a segment (migrating, resuming, running, shutting down or suspending)
  done,
  rejected,
  withdrawn,  // taken back by its user before it ever started
};

inline std::ostream& operator<<(std::ostream& out, lease_state state) {
  return leasehold::detail::write_enum_name(
      out, state, std::array{"queued", "scheduled", "running", "done", "rejected", "withdrawn"});
}

// How a segment ended.
enum class segment_outcome { completed, suspended, cancelled, released };

// One booked stretch of a lease on one set of nodes. `booked` is what the slot table holds
// (per_node on every node); the phases lie inside it in this order:
//   [booked.begin, run.begin)  migration (if migrates) then resume (if resumes)
//   run                        the lease computes
//   [run.end, booked.end)      shutdown (VMs, the lease completes) or suspension
// `finish` is when the segment really ends: before booked.end when the lease's real
// duration runs out early (a premature end, §4.2), which frees the rest of the booking.
template <time_value T = std::int64_t, vector_capacity C = node_resources>
struct segment {
  std::vector<std::size_t> nodes;
  C per_node{};
  interval<T> booked{};
  interval<T> run{};
  bool migrates = false;
  bool resumes = false;
  bool suspends = false;   // booked to end in a suspension rather than a shutdown
  bool completes = false;  // the lease's work (or its maximum duration) ends in this segment
  T finish{};
  // A planned migration under migration_step::transfer_first: the transfer to `nodes`, booked
  // on its own when the segment is booked (and then cleared: the memory state is on its way).
  std::optional<interval<T>> transfer;

  friend bool operator==(const segment&, const segment&) = default;
};

// A segment as it really happened.
template <time_value T = std::int64_t>
struct segment_record {
  std::vector<std::size_t> nodes;
  interval<T> span{};  // from the segment's begin to its real end
  interval<T> run{};   // the computing part, as executed
  T work{};            // work done, in real-duration units (run length / slowdown)
  segment_outcome outcome = segment_outcome::completed;

  friend bool operator==(const segment_record&, const segment_record&) = default;
};

template <time_value T = std::int64_t, vector_capacity C = node_resources>
struct lease_record {
  using capacity_type = C;
  lease_terms<T, C> terms;
  lease_state state = lease_state::queued;
  T remaining_max{};             // of the maximum duration, in work units
  T remaining_real{};            // of the real duration, in work units
  std::optional<T> first_start;  // t_s of §4.4: the first segment's begin
  std::optional<T> end;          // t_e
  std::optional<segment<T, C>> current;
  std::vector<std::size_t> suspended_on;  // where its memory state lies after a suspension
  // The last migration_step::transfer_first transfer, to suspended_on (it holds their disk
  // over this span; the lease cannot resume there before its end).
  std::optional<interval<T>> migration_transfer;
  std::vector<segment_record<T>> history;
  std::size_t suspensions = 0;
  std::size_t migrations = 0;
  std::size_t cancellations = 0;
  std::string rejection;
  std::uint64_t generation = 0;  // bumped whenever `current` changes; stale events are ignored

  friend bool operator==(const lease_record&, const lease_record&) = default;

  [[nodiscard]] bool is_best_effort() const noexcept {
    return terms.kind == lease_kind::best_effort;
  }
  [[nodiscard]] T work_done() const {
    T total{};
    for (const auto& s : history) total += s.work;
    return total;
  }
};

}  // namespace leasehold::policy::lease
