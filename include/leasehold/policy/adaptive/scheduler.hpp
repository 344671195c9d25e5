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
///
/// A request that has completed (its last piece ended by now()) is kept, as accepted, until
/// take_finished() hands it out; after that only metrics() counts it. A service that takes the
/// finished requests regularly keeps memory and the cost of a call in proportion to the
/// requests still to run, however long it runs.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/journal.hpp"
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
  /// is exactly as before the call: each change it makes (bookings, placements, records,
  /// counters) goes through journal_, which undoes them in place, newest first.
  decision_type submit(const request_type& req, time_type now) {
    auto shapes = detail::shapes_of(req, profile_.total());
    check_time("submit", now);
    if (req.submit > now)
      throw invalid_request(leasehold::detail::describe("adaptive request ", req.id,
                                                        ": submitted at ", req.submit,
                                                        ", after the current time ", now));
    if (seen(req.id))
      throw invalid_request(
          leasehold::detail::describe("adaptive request ", req.id, ": duplicate id"));
    return journal_.transaction([&] { return submit_at(req, std::move(shapes), now); });
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

  /// The current placement of an accepted request, or nullptr (also once take_finished() took it).
  [[nodiscard]] const placement_type* find(std::uint64_t id) const {
    const auto it = accepted_.find(id);
    return it == accepted_.end() ? nullptr : &it->second.record.where;
  }

  /// Calls f(const record_type&) for every accepted request not taken by take_finished(), by id.
  template <class F>
  void for_each_accepted(F&& f) const {
    for (const auto& [id, e] : accepted_) f(e.record);
  }

  /// The paper's metrics over everything submitted so far, priced at the final placements
  /// (those taken by take_finished() included: a started request is never moved again).
  [[nodiscard]] adaptive_metrics metrics() const {
    metric_sums sums = taken_;
    for (const auto& [id, e] : accepted_) add(sums, e);
    adaptive_metrics m;
    m.submitted = submitted_;
    m.accepted = sums.accepted;
    m.rejected = rejected_;
    m.reschedules = reschedules_;
    m.profit = sums.profit;
    m.moldable_accepted = sums.moldable_accepted;
    m.reshaped = sums.reshaped;
    m.preemptive_accepted = sums.preemptive_accepted;
    m.split = sums.split;
    if (m.accepted > 0) m.mean_response = sums.response / static_cast<double>(m.accepted);
    if (m.reshaped > 0) m.mean_modification = sums.modification / static_cast<double>(m.reshaped);
    if (m.split > 0)
      m.mean_pieces = static_cast<double>(sums.pieces) / static_cast<double>(m.split);
    return m;
  }

  /// Hands out the accepted requests that have completed by now() (the end of their last piece
  /// at or before it), by id, and forgets them: find() answers nullptr for them and
  /// for_each_accepted() no longer visits them; metrics() still counts them, and their ids stay
  /// taken. Until it is called a completed request is kept like any other. Costs what the
  /// scheduler holds (running, waiting and completed requests not yet taken). Strong guarantee.
  std::vector<record_type> take_finished() {
    std::vector<record_type> taken;
    std::vector<typename std::map<std::uint64_t, entry>::iterator> finished;
    metric_sums sums = taken_;
    for (auto it = accepted_.begin(); it != accepted_.end(); ++it) {
      if (it->second.record.where.completion() > now_) continue;
      add(sums, it->second);  // prices with the user's function: may throw
      taken.push_back(it->second.record);
      finished.push_back(it);
    }
    for (const auto it : finished) accepted_.erase(it);  // nothing below throws
    taken_ = sums;
    return taken;
  }

  /// How many requests the scheduler holds: accepted and not taken by take_finished() (running,
  /// waiting, or completed and not yet taken).
  [[nodiscard]] std::size_t held() const noexcept { return accepted_.size(); }

 private:
  using shape_list = std::vector<detail::shape<time_type, capacity_type>>;

  struct entry {
    record_type record;
    shape_list shapes;
  };

  /// metrics() as sums over accepted requests, so that the requests take_finished() handed out
  /// are still counted without being kept.
  struct metric_sums {
    std::size_t accepted = 0;
    double profit = 0.0;
    double response = 0.0;
    double modification = 0.0;
    std::size_t pieces = 0;
    std::size_t moldable_accepted = 0;
    std::size_t reshaped = 0;
    std::size_t preemptive_accepted = 0;
    std::size_t split = 0;
  };

  void add(metric_sums& sums, const entry& e) const {
    const auto& [req, where] = e.record;
    ++sums.accepted;
    sums.profit += config_.price(req, where);
    sums.response += static_cast<double>(where.completion() - req.submit);
    if (e.shapes.size() > 1) {
      ++sums.moldable_accepted;
      const auto most = e.shapes.front().resource_count;
      const auto least = e.shapes.back().resource_count;
      const bool reshaped = std::ranges::any_of(
          where.pieces, [most](const sub_request<time_type, capacity_type>& piece) {
            return most > piece.resource_count;
          });
      if (reshaped) {
        ++sums.reshaped;
        sums.modification += (static_cast<double>(most) - where.mean_resources()) /
                             static_cast<double>(most - least);
      }
    }
    if (req.preemptive()) {
      ++sums.preemptive_accepted;
      if (where.pieces.size() > 1) {
        ++sums.split;
        sums.pieces += where.pieces.size();
      }
    }
  }

  /// Whether an id was submitted before. The ids are kept as ranges of consecutive ids, so that
  /// a service numbering its requests keeps a handful of ranges, not every id it ever saw.
  [[nodiscard]] bool seen(std::uint64_t id) const {
    auto after = seen_.upper_bound(id);
    if (after == seen_.begin()) return false;
    return id <= std::prev(after)->second;
  }

  /// Adds an id not seen before to the ranges, through the journal.
  void mark_seen(std::uint64_t id) {
    const auto next = seen_.upper_bound(id);  // the first range above id
    const bool joins_next = next != seen_.end() && next->first == id + 1;
    if (next != seen_.begin() && std::prev(next)->second + 1 == id) {
      const auto previous = std::prev(next);
      journal_.save_entry(seen_, previous->first);
      if (joins_next) {
        const std::uint64_t last = next->second;
        (void)journal_.erase(seen_, next);
        previous->second = last;
      } else {
        previous->second = id;
      }
    } else if (joins_next) {
      const std::uint64_t last = next->second;
      (void)journal_.erase(seen_, next);
      journal_.save_entry(seen_, id);
      seen_.emplace(id, last);
    } else {
      journal_.save_entry(seen_, id);
      seen_.emplace(id, id);
    }
  }

  void check_time(const char* operation, time_type now) const {
    if (now < now_)
      throw invalid_request(leasehold::detail::describe("adaptive::scheduler ", operation, " at ",
                                                        now, ": before the current time ", now_));
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

    bool rescheduled = false;
    std::optional<placement_type> where =
        config_.order == strategy::missing_deadline_first
            ? reschedule_with(req, shapes, waiting, rescheduled, now)
            : place_around(req, shapes, now);

    decision_type answer;
    answer.id = req.id;
    if (where) {
      answer.accepted = true;
      answer.where = *where;
      answer.price = config_.price(req, *where);  // a user's function: may throw
      const time_type start = where->start();
      journal_.save_entry(accepted_, req.id);  // absent: a rollback erases it
      accepted_.emplace(req.id, entry{record_type{req, std::move(*where)}, std::move(shapes)});
      if (start > now) waiting.push_back(req.id);  // room reserved above
    } else {
      answer.reason = leasehold::detail::describe("no shape of request ", req.id,
                                                  " completes by its deadline ", req.deadline);
      journal_.assign(rejected_, rejected_ + 1);
    }
    mark_seen(req.id);
    journal_.assign(submitted_, submitted_ + 1);
    if (rescheduled) journal_.assign(reschedules_, reschedules_ + 1);
    // The new order may start a waiting request at now: it is running from here on.
    std::erase_if(waiting, [this, now](std::uint64_t id) {
      return accepted_.find(id)->second.record.where.start() <= now;
    });
    journal_.assign(waiting_, std::move(waiting));
    profile_.advance_to(now);  // last: the profile's past cannot be restored
    now_ = now;
    return answer;
  }

  [[nodiscard]] std::optional<placement_type> search(const request_type& req,
                                                     const shape_list& shapes,
                                                     time_type now) const {
    return detail::placement_search<Backend>(profile_, shapes, req.split, now, req.deadline).run();
  }

  void book(const placement_type& where) {
    for (const auto& piece : where.pieces)
      journal_.reserve(profile_, piece.span, piece.resource_count);
  }

  void unbook(const placement_type& where) {
    for (const auto& piece : where.pieces)
      journal_.release(profile_, piece.span, piece.resource_count);
  }

  /// FIFO: Algorithm 1 around the reservations already made.
  std::optional<placement_type> place_around(const request_type& req, const shape_list& shapes,
                                             time_type now) {
    auto where = search(req, shapes, now);
    if (where) book(*where);
    return where;
  }

  /// Missing-Deadline-First, as described at the top of this file. `waiting` are the requests
  /// that have not started by `now`; those that move get their new placements, and
  /// `rescheduled` says whether any did.
  std::optional<placement_type> reschedule_with(const request_type& req, const shape_list& shapes,
                                                const std::vector<std::uint64_t>& waiting,
                                                bool& rescheduled, time_type now) {
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

    const std::size_t savepoint = journal_.mark();
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
      if (c.id == req.id) {
        mine = std::move(where);
      } else {
        placement_type& current = accepted_.find(c.id)->second.record.where;
        rescheduled = rescheduled || current != *where;
        journal_.assign(current, std::move(*where));
      }
    }
    if (!mine) {
      journal_.rollback_to(savepoint);  // the old bookings and placements
      rescheduled = false;
      return place_around(req, shapes, now);
    }
    return mine;
  }

  Backend profile_;
  config_type config_;
  time_type now_;
  std::map<std::uint64_t, entry> accepted_;
  std::vector<std::uint64_t> waiting_;           ///< accepted, first piece not yet started
  std::map<std::uint64_t, std::uint64_t> seen_;  ///< every id submitted, as ranges [first, last]
  std::size_t submitted_ = 0;
  std::size_t rejected_ = 0;
  std::size_t reschedules_ = 0;
  metric_sums taken_;  ///< the requests take_finished() handed out
  journal journal_;    ///< the open call's changes, undone if it throws
};

}  // namespace leasehold::policy::adaptive
