#pragma once

/// \file
/// sim::event_queue: the time-ordered queue of a deterministic discrete-event simulation.
/// Events at the same time come out in the order they were pushed, so the same inputs give
/// the same run, bit for bit, whatever the standard library's heap does with ties.
///
/// Times are the library's integral ticks, or floating point for models whose events fall
/// between ticks (the processor-sharing link of sim/workspace_simulation.hpp, where a transfer
/// completes when its share of the bandwidth has carried its last byte). A NaN time has no
/// place in the order and is refused.

#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::sim {

/// A priority queue of timed events that pops them in time order, ties in push order (see
/// the file's description). push and pop are O(log n).
template <class T, class Payload>
requires time_value<T> || std::floating_point<T>
class event_queue {
 public:
  /// One event as the queue holds it.
  struct event {
    T at;                    ///< when it happens
    std::uint64_t sequence;  ///< push order: the deterministic tie-break
    Payload payload;         ///< what happens
  };

  /// Throws invalid_request, pushing nothing, for a NaN time.
  void push(T at, Payload payload) {
    if constexpr (std::floating_point<T>)
      if (std::isnan(at))
        throw invalid_request(
            leasehold::detail::describe("event_queue::push: time ", at, " is not a number"));
    heap_.push(event{at, next_sequence_++, std::move(payload)});
  }

  /// True when no event is pending.
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  /// The number of pending events.
  [[nodiscard]] std::size_t size() const noexcept { return heap_.size(); }

  /// The earliest event; the queue must not be empty.
  [[nodiscard]] const event& top() const {
    if (heap_.empty()) throw invalid_request("event_queue::top: the queue is empty");
    return heap_.top();
  }

  /// Removes and returns the earliest event; throws invalid_request on an empty queue.
  event pop() {
    if (heap_.empty()) throw invalid_request("event_queue::pop: the queue is empty");
    event e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  struct later {
    bool operator()(const event& a, const event& b) const noexcept {
      return a.at != b.at ? a.at > b.at : a.sequence > b.sequence;
    }
  };
  std::priority_queue<event, std::vector<event>, later> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace leasehold::sim
