#pragma once

// Part of the lease scheduler's transactions (the book's journal undoes the state): the
// observer events of a call in progress are held here and delivered only once the call has
// succeeded, so that an observer never hears of a call that was rolled back.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/observer.hpp"

namespace leasehold::policy::lease::detail {

template <time_value T>
class deferred_events final : public lease_observer<T> {
 public:
  void on_ready(std::uint64_t id, T at, std::span<const std::size_t> nodes) override {
    events_.push_back({kind::ready, id, at, {nodes.begin(), nodes.end()}, {}});
  }
  void on_suspended(std::uint64_t id, T at) override {
    events_.push_back({kind::suspended, id, at, {}, {}});
  }
  void on_resumed(std::uint64_t id, T at, std::span<const std::size_t> nodes) override {
    events_.push_back({kind::resumed, id, at, {nodes.begin(), nodes.end()}, {}});
  }
  void on_migrated(std::uint64_t id, T at, std::span<const std::size_t> from,
                   std::span<const std::size_t> to, interval<T> transfer) override {
    events_.push_back(
        {kind::migrated, id, at, {to.begin(), to.end()}, {}, {from.begin(), from.end()}, transfer});
  }
  void on_resuming(std::uint64_t id, std::span<const std::size_t> nodes,
                   interval<T> span) override {
    events_.push_back({kind::resuming, id, span.begin, {nodes.begin(), nodes.end()}, {}, {}, span});
  }
  void on_ended(std::uint64_t id, T at) override {
    events_.push_back({kind::ended, id, at, {}, {}});
  }
  void on_rejected(std::uint64_t id, T at, std::string_view reason) override {
    events_.push_back({kind::rejected, id, at, {}, std::string(reason)});
  }
  void on_requeued(std::uint64_t id, T at) override {
    events_.push_back({kind::requeued, id, at, {}, {}});
  }
  void on_transfer_started(const transfer_notice<T>& transfer) override {
    hold_transfer(kind::transfer_started, transfer, transfer.span.begin);
  }
  void on_transfer_withdrawn(const transfer_notice<T>& transfer) override {
    hold_transfer(kind::transfer_withdrawn, transfer, transfer.span.begin);
  }
  void on_transfer_finished(const transfer_notice<T>& transfer) override {
    hold_transfer(kind::transfer_finished, transfer, transfer.span.end);
  }

  void replay(lease_observer<T>& to) const {
    for (const event_record& e : events_) {
      switch (e.what) {
        case kind::suspended:
          to.on_suspended(e.id, e.at);
          break;
        case kind::ended:
          to.on_ended(e.id, e.at);
          break;
        case kind::requeued:
          to.on_requeued(e.id, e.at);
          break;
        case kind::ready:
          to.on_ready(e.id, e.at, e.nodes);
          break;
        case kind::resumed:
          to.on_resumed(e.id, e.at, e.nodes);
          break;
        case kind::transfer_started:
          to.on_transfer_started(*e.transfer);
          break;
        case kind::transfer_withdrawn:
          to.on_transfer_withdrawn(*e.transfer);
          break;
        case kind::transfer_finished:
          to.on_transfer_finished(*e.transfer);
          break;
        case kind::rejected:
          to.on_rejected(e.id, e.at, e.reason);
          break;
        case kind::migrated:
          to.on_migrated(e.id, e.at, e.from, e.nodes, e.span);
          break;
        case kind::resuming:
          to.on_resuming(e.id, e.nodes, e.span);
          break;
      }
    }
  }

 private:
  enum class kind {
    ready,
    suspended,
    resumed,
    ended,
    rejected,
    requeued,
    migrated,
    resuming,
    transfer_started,
    transfer_withdrawn,
    transfer_finished
  };
  struct event_record {
    kind what;
    std::uint64_t id;
    T at;
    std::vector<std::size_t> nodes;  // where (the destination of a migration)
    std::string reason;
    std::vector<std::size_t> from{};               // a migration's source
    interval<T> span{};                            // a migration's transfer, a resume's phase
    std::optional<transfer_notice<T>> transfer{};  // an image transfer's
  };
  std::vector<event_record> events_;

  void hold_transfer(kind what, const transfer_notice<T>& transfer, T at) {
    events_.push_back({what, transfer.transfer, at, {}, {}, {}, transfer.span, transfer});
  }
};

}  // namespace leasehold::policy::lease::detail
