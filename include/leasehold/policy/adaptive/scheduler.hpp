#pragma once

/// \file
/// The online scheduler of Netto & Buyya (§3.3) for adaptive requests with hard deadlines, on
/// any availability profile whose capacity is a scalar (a homogeneous cluster of R resources).
/// Two strategies, both with conservative backfilling (every accepted request holds a
/// reservation; a later one may only use the holes it leaves):
///
///  - strategy::fifo: each arrival is placed by Algorithm 1 around the existing reservations,
///    which never move.
///  - strategy::missing_deadline_first: on each arrival, the requests still waiting for their
///    first resource are released, sorted together with the newcomer by how close they are to
///    missing their deadline (the slack D - now - T at R_max, smallest first), and placed again
///    by Algorithm 1 in that order. If the new order would leave an accepted request without a
///    placement by its deadline, or does not fit the newcomer, the old reservations are restored
///    and the newcomer is placed around them as FIFO would. Running requests are never touched
///    (Fig. 3), and a rejected request changes nothing.
///
/// The policy owns no clock: submit() and advance_to() take the current time, which never goes
/// back. Requests run exactly as placed (the paper's rectangles in a Gantt chart); a request is
/// running, and out of the rescheduler's reach, from the start of its first piece.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/policy/adaptive/detail/placement_search.hpp"
#include "leasehold/policy/adaptive/detail/shapes.hpp"
#include "leasehold/policy/adaptive/metrics.hpp"
#include "leasehold/policy/adaptive/placement.hpp"
#include "leasehold/policy/adaptive/pricing.hpp"
#include "leasehold/policy/adaptive/request.hpp"

namespace leasehold::policy::adaptive {

/// How the scheduler orders arrivals (see the file's description).
enum class strategy {
  fifo,                    ///< FIFO with conservative backfilling, no rescheduling
  missing_deadline_first,  ///< reschedule the waiting queue on each arrival
};

/// The scheduler's strategy and pricing.
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
struct scheduler_config {
  /// FIFO or Missing-Deadline-First.
  strategy order = strategy::fifo;
  pricing_function<T, C> price = algorithm2{};  ///< omega
};

/// The answer to submit().
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
struct decision {
  /// The request's id.
  std::uint64_t id = 0;
  /// Whether it was accepted.
  bool accepted = false;
  placement<T, C> where;  ///< empty when rejected
  double price = 0.0;     ///< omega at acceptance; a later rescheduling may change it
  std::string reason;     ///< why it was rejected
};

/// An accepted request and where it runs now.
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
struct accepted_request {
  /// The request as submitted.
  adaptive_request<T, C> request;
  /// Its current placement.
  placement<T, C> where;
};

/// The online scheduler of Netto & Buyya §3.3 over a scalar availability profile: submit()
/// places each adaptive request so that it meets its deadline, or rejects it; every accepted
/// request holds its reservation (conservative backfilling). Mutating calls give the strong
/// guarantee.
template <availability Backend = free_list<>>
class scheduler {
  static_assert(scalar_capacity<typename Backend::capacity_type>,
                "adaptive::scheduler needs an availability with a scalar capacity: a homogeneous "
                "cluster of R resources is one scalar profile");

 public:
  /// The availability profile of the cluster.
  using backend_type = Backend;
  /// The profile's time type.
  using time_type = typename Backend::time_type;
  /// The profile's (scalar) capacity type.
  using capacity_type = typename Backend::capacity_type;
  /// What submit() takes.
  using request_type = adaptive_request<time_type, capacity_type>;
  /// Where an accepted request runs.
  using placement_type = placement<time_type, capacity_type>;
  /// What submit() answers.
  using decision_type = decision<time_type, capacity_type>;
  /// An accepted request with its placement.
  using record_type = accepted_request<time_type, capacity_type>;
  /// The strategy and pricing.
  using config_type = scheduler_config<time_type, capacity_type>;

  /// `profile` is the cluster; what is already booked in it is not the scheduler's to move.
  explicit scheduler(Backend profile, config_type config = {})
      : profile_(std::move(profile)), config_(std::move(config)), now_(profile_.origin()) {
    if (!config_.price) throw invalid_request("adaptive::scheduler: the pricing function is empty");
  }

  /// A cluster of `total` resources, fully free from time 0.
  explicit scheduler(capacity_type total, config_type config = {}) requires
      std::constructible_from<Backend, capacity_type>
      : scheduler(Backend(total), std::move(config)) {}

  /// Offers a request at time `now` (>= every earlier now, >= its submission). Throws
  /// invalid_request, changing nothing, for a malformed request (see detail::shapes_of), a
  /// duplicate id, or a time that goes back. Otherwise accepts it with a placement that
  /// completes by its deadline, or rejects it; a rejection changes no reservation.
  /// Strong guarantee: if anything throws (an allocation, the pricing function), the scheduler
  /// is exactly as before the call (see transaction()).
  decision_type submit(const request_type& req, time_type now) {
    auto shapes = detail::shapes_of(req, profile_.total());
    check_time("submit", now);
    if (req.submit > now)
      throw invalid_request(leasehold::detail::describe("adaptive request ", req.id,
                                                        ": submitted at ", req.submit,
                                                        ", after the current time ", now));
    if (seen_.contains(req.id))
      throw invalid_request(
          leasehold::detail::describe("adaptive request ", req.id, ": duplicate id"));
    return transaction([&] { return submit_at(req, std::move(shapes), now); });
  }

  /// Moves the present to `now`: requests that have started leave the waiting queue, and the
  /// profile forgets the past.
  void advance_to(time_type now) {
    check_time("advance_to", now);
    profile_.advance_to(now);
    now_ = now;
    std::erase_if(waiting_, [this](std::uint64_t id) {
      return accepted_.at(id).record.where.start() <= now_;
    });
  }

  /// The scheduler's clock: the latest time advanced to.
  [[nodiscard]] time_type now() const noexcept { return now_; }
  /// The cluster's profile, read-only.
  [[nodiscard]] const Backend& profile() const noexcept { return profile_; }
  /// The strategy and pricing it runs with.
  [[nodiscard]] const config_type& config() const noexcept { return config_; }
  /// How many accepted requests have not started yet.
  [[nodiscard]] std::size_t waiting() const noexcept { return waiting_.size(); }

  /// The current placement of an accepted request, or nullptr.
  [[nodiscard]] const placement_type* find(std::uint64_t id) const {
    const auto it = accepted_.find(id);
    return it == accepted_.end() ? nullptr : &it->second.record.where;
  }

  /// Calls f(const record_type&) for every accepted request, by id.
  template <class F>
  void for_each_accepted(F&& f) const {
    for (const auto& [id, e] : accepted_) f(e.record);
  }

  /// The paper's metrics over everything submitted so far, priced at the final placements.
  [[nodiscard]] adaptive_metrics metrics() const {
    adaptive_metrics m;
    m.submitted = submitted_;
    m.accepted = accepted_.size();
    m.rejected = rejected_;
    m.reschedules = reschedules_;
    double response = 0.0;
    double modification = 0.0;
    std::size_t pieces = 0;
    for (const auto& [id, e] : accepted_) {
      const auto& [req, where] = e.record;
      m.profit += config_.price(req, where);
      response += static_cast<double>(where.completion() - req.submit);
      if (e.shapes.size() > 1) {
        ++m.moldable_accepted;
        const auto most = e.shapes.front().resource_count;
        const auto least = e.shapes.back().resource_count;
        const bool reshaped = std::ranges::any_of(
            where.pieces, [most](const sub_request<time_type, capacity_type>& piece) {
              return most > piece.resource_count;
            });
        if (reshaped) {
          ++m.reshaped;
          modification += (static_cast<double>(most) - where.mean_resources()) /
                          static_cast<double>(most - least);
        }
      }
      if (req.preemptive()) {
        ++m.preemptive_accepted;
        if (where.pieces.size() > 1) {
          ++m.split;
          pieces += where.pieces.size();
        }
      }
    }
    if (m.accepted > 0) m.mean_response = response / static_cast<double>(m.accepted);
    if (m.reshaped > 0) m.mean_modification = modification / static_cast<double>(m.reshaped);
    if (m.split > 0) m.mean_pieces = static_cast<double>(pieces) / static_cast<double>(m.split);
    return m;
  }

 private:
  using shape_list = std::vector<detail::shape<time_type, capacity_type>>;

  struct entry {
    record_type record;
    shape_list shapes;
  };

  void check_time(const char* operation, time_type now) const {
    if (now < now_)
      throw invalid_request(leasehold::detail::describe("adaptive::scheduler ", operation, " at ",
                                                        now, ": before the current time ", now_));
  }

  /// One change to the profile, kept so that it can be undone (see transaction()).
  struct profile_change {
    interval<time_type> span;
    capacity_type amount;
    bool reserved;  // reserve (undone by release) or release (undone by reserve)
  };

  /// Every public mutating call of this class is a transaction. Changes to the profile go
  /// through reserve_logged / release_logged, which append to a journal whose room is made
  /// before the profile changes; everything else the call changes is prepared first (nodes
  /// allocated, the price computed) and committed at the end by steps that cannot throw. On a
  /// failure the journal is undone in reverse order: for a backend with nothrow_rollback that
  /// cannot throw and costs what the call changed; any other backend is restored from a copy
  /// taken when the call began.
  template <class Body>
  decltype(auto) transaction(Body body) {
    journal_.clear();
    std::optional<Backend> backup;
    if constexpr (!nothrow_rollback_availability<Backend>) backup.emplace(profile_);
    try {
      return body();
    } catch (...) {
      if constexpr (nothrow_rollback_availability<Backend>) {
        undo_to(0);
      } else {
        using std::swap;
        swap(profile_, *backup);
      }
      journal_.clear();
      throw;
    }
  }

  void make_journal_room() {
    if (journal_.size() == journal_.capacity())
      journal_.reserve(std::max<std::size_t>(16, 2 * journal_.capacity()));
  }

  void reserve_logged(interval<time_type> span, capacity_type amount) {
    make_journal_room();
    profile_.reserve(span, amount);
    journal_.push_back({span, amount, true});  // cannot throw: room made above
  }

  void release_logged(interval<time_type> span, capacity_type amount) {
    make_journal_room();
    profile_.release(span, amount);
    journal_.push_back({span, amount, false});
  }

  /// Undoes the journal back to `mark` entries, newest first.
  void undo_to(std::size_t mark) {
    while (journal_.size() > mark) {
      const profile_change& change = journal_.back();
      if (change.reserved)
        profile_.release(change.span, change.amount);
      else
        profile_.reserve(change.span, change.amount);
      journal_.pop_back();
    }
  }

  /// submit() after its checks, inside a transaction. The profile is advanced to `now` only
  /// at the end: its past cannot be restored, and the search never looks before `now`, so
  /// placing first gives the same schedule.
  decision_type submit_at(const request_type& req, shape_list shapes, time_type now) {
    // Requests that have started by `now` are running: out of the rescheduler's reach.
    std::vector<std::uint64_t> waiting;
    waiting.reserve(waiting_.size() + 1);
    for (const std::uint64_t id : waiting_)
      if (accepted_.at(id).record.where.start() > now) waiting.push_back(id);

    std::vector<std::pair<std::uint64_t, placement_type>> moved;
    std::optional<placement_type> where = config_.order == strategy::missing_deadline_first
                                              ? reschedule_with(req, shapes, waiting, moved, now)
                                              : place_around(req, shapes, now);

    decision_type answer;
    answer.id = req.id;
    // Nodes for the id and the record are allocated now, inserted at the commit.
    std::set<std::uint64_t> seen_node{req.id};
    std::map<std::uint64_t, entry> accepted_node;
    if (where) {
      answer.accepted = true;
      answer.where = *where;
      answer.price = config_.price(req, *where);  // a user's function: may throw
      accepted_node.emplace(req.id, entry{record_type{req, std::move(*where)}, std::move(shapes)});
    } else {
      answer.reason = leasehold::detail::describe("no shape of request ", req.id,
                                                  " completes by its deadline ", req.deadline);
    }
    profile_.advance_to(now);  // the last step that may throw (only without nothrow_rollback)

    // Commit: nothing below allocates or throws.
    journal_.clear();
    now_ = now;
    ++submitted_;
    seen_.insert(seen_node.extract(seen_node.begin()));
    if (answer.accepted) {
      const time_type start = answer.where.start();
      accepted_.insert(accepted_node.extract(accepted_node.begin()));
      if (start > now) waiting.push_back(req.id);  // room reserved above
    } else {
      ++rejected_;
    }
    bool rescheduled = false;
    for (auto& [id, placed] : moved) {
      placement_type& current = accepted_.find(id)->second.record.where;
      rescheduled = rescheduled || current != placed;
      current = std::move(placed);
    }
    if (rescheduled) ++reschedules_;
    // The new order may start a waiting request at now: it is running from here on.
    std::erase_if(waiting, [this, now](std::uint64_t id) {
      return accepted_.find(id)->second.record.where.start() <= now;
    });
    waiting_.swap(waiting);
    return answer;
  }

  [[nodiscard]] std::optional<placement_type> search(const request_type& req,
                                                     const shape_list& shapes,
                                                     time_type now) const {
    return detail::placement_search<Backend>(profile_, shapes, req.split, now, req.deadline).run();
  }

  void book(const placement_type& where) {
    for (const auto& piece : where.pieces) reserve_logged(piece.span, piece.resource_count);
  }

  void unbook(const placement_type& where) {
    for (const auto& piece : where.pieces) release_logged(piece.span, piece.resource_count);
  }

  /// FIFO: Algorithm 1 around the reservations already made.
  std::optional<placement_type> place_around(const request_type& req, const shape_list& shapes,
                                             time_type now) {
    auto where = search(req, shapes, now);
    if (where) book(*where);
    return where;
  }

  /// Missing-Deadline-First, as described at the top of this file. `waiting` are the requests
  /// that have not started by `now`; the new placements of those that moved go to `moved`.
  std::optional<placement_type> reschedule_with(
      const request_type& req, const shape_list& shapes, const std::vector<std::uint64_t>& waiting,
      std::vector<std::pair<std::uint64_t, placement_type>>& moved, time_type now) {
    if (waiting.empty()) return place_around(req, shapes, now);

    struct candidate {
      std::uint64_t id;
      double slack;  // D - now - T(R_max); double, as D may be forever
      time_type submit;
      const request_type* request;
      const shape_list* shapes;
    };
    const auto slack_of = [now](const request_type& r, const shape_list& s) {
      return static_cast<double>(r.deadline) - static_cast<double>(now) -
             static_cast<double>(s.front().duration);
    };
    std::vector<candidate> order;
    order.reserve(waiting.size() + 1);
    for (const std::uint64_t id : waiting) {
      const entry& e = accepted_.at(id);
      order.push_back({id, slack_of(e.record.request, e.shapes), e.record.request.submit,
                       &e.record.request, &e.shapes});
    }
    order.push_back({req.id, slack_of(req, shapes), req.submit, &req, &shapes});
    std::ranges::stable_sort(order, [](const candidate& a, const candidate& b) {
      if (a.slack != b.slack) return a.slack < b.slack;
      if (a.submit != b.submit) return a.submit < b.submit;
      return a.id < b.id;
    });

    const std::size_t mark = journal_.size();
    moved.reserve(order.size());
    for (const std::uint64_t id : waiting) unbook(accepted_.at(id).record.where);
    std::optional<placement_type> mine;
    for (const candidate& c : order) {
      auto where = search(*c.request, *c.shapes, now);
      if (!where) {
        if (c.id == req.id) continue;
        mine.reset();  // an accepted deadline would break: keep the old order
        break;
      }
      book(*where);
      if (c.id == req.id)
        mine = std::move(where);
      else
        moved.emplace_back(c.id, std::move(*where));
    }
    if (!mine) {
      undo_to(mark);
      moved.clear();
      return place_around(req, shapes, now);
    }
    return mine;
  }

  Backend profile_;
  config_type config_;
  time_type now_;
  std::map<std::uint64_t, entry> accepted_;
  std::vector<std::uint64_t> waiting_;  ///< accepted, first piece not yet started
  std::set<std::uint64_t> seen_;
  std::size_t submitted_ = 0;
  std::size_t rejected_ = 0;
  std::size_t reschedules_ = 0;
  std::vector<profile_change> journal_;  ///< this call's profile changes (see transaction())
};

}  // namespace leasehold::policy::adaptive
