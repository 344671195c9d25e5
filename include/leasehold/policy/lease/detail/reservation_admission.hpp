#pragma once

// Admission of advance reservations and immediate leases (Sotomayor, Keahey & Foster §3.2):
// accepted at once, or rejected with a reason. One path serves every preparation step:
//
//  - the span: the requested start, now for an immediate lease, or, for a window of starts,
//    the earliest start without preemption (else the window's first instant);
//  - the candidate nodes, ranked by the paper's rules: nodes free over the span first, then
//    nodes where preemption frees enough (those holding only leases not yet begun before
//    those with running ones); with image staging, nodes that need no new image transfer
//    next; the node choice's key and the node id last;
//  - with image staging the lease is viable only if its transfers can finish by its start:
//    "The exception to this policy is when a lease will be viable only if images are
//    reused, in which case priority is given to nodes with a reusable copy of the required
//    image" (§3.2), so a second pick puts the image rank first;
//  - the best-effort leases in the way are preempted (§3.1) and the lease is booked.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/policy/lease/detail/book_component.hpp"
#include "leasehold/policy/lease/detail/lease_book.hpp"
#include "leasehold/policy/lease/detail/lease_checks.hpp"
#include "leasehold/policy/lease/preparation.hpp"

namespace leasehold::policy::lease::detail {

// A component over a lease book (lease_book.hpp): it reads the table, the leases on each node
// and the preparation step, and books, unbooks and requeues through the book's changes.
template <class Book>
class book_component<Book>::reservation_admission : public book_component<Book> {
 public:
  using book_component::book_component;

  // Books an advance reservation or immediate lease; returns the rejection reason, or "".
  std::string admit(record_type& l) {
    const terms_type& t = l.terms;
    const auto n = static_cast<std::size_t>(t.nodes);
    const capacity_type v = times().booked_vector(t);
    const time_type length = times().reservation_length(t);
    using leasehold::detail::describe;

    std::optional<time_type> start;
    if (t.kind == lease_kind::immediate) {
      start = book_.now();
    } else if (t.start) {
      start = *t.start;
    } else {
      // A window of starts: the earliest without preemption, else its first instant with it.
      const time_type first = std::max(t.start_window->begin, book_.now());
      const auto p = book_.table().earliest_fit(
          {n, v, length, {first, static_cast<time_type>(t.start_window->end + length)}});
      start = p ? p->start() : first;
    }
    const interval<time_type> span{*start, static_cast<time_type>(*start + length)};
    const bool stages_image = stages_images && t.image.has_value();

    struct candidate {
      int preemption;  // 0: free over the span; 1: only leases not yet begun in the way; 2: running
      int image;       // the preparation's reservation_rank (0 without image staging)
      node_key_type key;  // the node choice's
      std::size_t node;
    };
    std::vector<candidate> candidates;
    // nullopt when the node cannot take the image at all.
    const auto image_rank = [&](std::size_t node) -> std::optional<int> {
      if constexpr (stages_images)
        if (stages_image)
          return book_.preparation().reservation_rank(t, node, span.begin, book_.now());
      return 0;
    };
    const std::vector<std::size_t> free = book_.table().nodes_free(span, v);
    for (std::size_t node : free)
      if (const auto image = image_rank(node))
        candidates.push_back({0, *image, book_.node_key(node, l, span), node});
    bool preemptible_added = false;
    const auto add_preemptible = [&] {
      if (preemptible_added || t.kind == lease_kind::immediate) return;
      preemptible_added = true;
      for (std::size_t node = 0; node < book_.table().node_count(); ++node) {
        if (std::ranges::binary_search(free, node)) continue;
        const auto rank = preemption_rank(node, span, v);
        if (!rank) continue;
        if (const auto image = image_rank(node))
          candidates.push_back({*rank, *image, book_.node_key(node, l, span), node});
      }
    };
    if (candidates.size() < n) add_preemptible();
    if (candidates.size() < n) {
      return describe("only ", candidates.size(), " of ", n, " nodes can hold it",
                      stages_image ? " and its image" : "", " over ", span,
                      t.kind == lease_kind::immediate ? " (an immediate lease preempts nothing)"
                                                      : ", even preempting best-effort leases");
    }
    // The n best candidates, in increasing node order.
    const auto pick = [&](bool images_first) {
      std::ranges::sort(candidates, [images_first](const candidate& a, const candidate& b) {
        const auto ka = images_first ? std::tie(a.image, a.preemption, a.key, a.node)
                                     : std::tie(a.preemption, a.image, a.key, a.node);
        const auto kb = images_first ? std::tie(b.image, b.preemption, b.key, b.node)
                                     : std::tie(b.preemption, b.image, b.key, b.node);
        return ka < kb;
      });
      std::vector<candidate> chosen(candidates.begin(),
                                    candidates.begin() + static_cast<std::ptrdiff_t>(n));
      std::ranges::sort(chosen, {}, &candidate::node);
      return chosen;
    };
    const auto viable = [&](const std::vector<candidate>& chosen) {
      if constexpr (stages_images) {
        if (!stages_image) return true;
        std::vector<std::size_t> nodes;
        for (const auto& c : chosen) nodes.push_back(c.node);
        return book_.preparation().can_prepare(t, std::span<const std::size_t>(nodes), span.begin,
                                               book_.now());
      } else {
        (void)chosen;
        return true;
      }
    };
    std::vector<candidate> chosen = pick(false);
    if (!viable(chosen)) {
      add_preemptible();  // the exception may need nodes that preemption frees
      chosen = pick(true);
      if (!viable(chosen))
        return describe("its image ", t.image->id, " (", t.image->size_mb, " MB) cannot reach ", n,
                        " nodes by its start ", span.begin);
    }
    std::vector<std::size_t> nodes;
    std::vector<std::size_t> preempt_on;
    for (const auto& c : chosen) {
      nodes.push_back(c.node);
      if (c.preemption != 0) preempt_on.push_back(c.node);
    }
    book_reservation(l, span, std::move(nodes), preempt_on);
    return {};
  }

  // Makes a best-effort lease give up [at, ...) (§3.1): unscheduled if it has not begun;
  // else suspended, its booking ending exactly at `at` and its run the suspension (or the
  // shutdown, if longer: suspension_tail) before; else (no suspension, or no time left to
  // suspend) cancelled and requeued with its work lost.
  // `victim` is the book's own record (Book::edit).
  void preempt(record_type& victim, time_type at) {
    segment_type seg = *victim.current;
    if (seg.booked.begin > book_.now()) {
      book_.unbook(victim, book_.now());
      book_.enqueue(victim);
      return;
    }
    const auto suspend_begin = static_cast<time_type>(at - times().suspension_tail(victim.terms));
    // Haizea's paper-era code suspends only a lease that has run long enough by `at` (the
    // threshold of a resume, as it may be resumed and suspended again).
    const bool long_enough = !book_.config().suspend_thresholds_per_state ||
                             at - seg.run.begin >= times().suspend_threshold(victim.terms, true, 0);
    if (times().may_suspend(victim.terms) && suspend_begin >= book_.now() &&
        suspend_begin >= seg.run.begin && long_enough) {
      seg.booked.end = at;
      seg.run.end = std::min(seg.run.end, suspend_begin);
      seg.suspends = true;
      times().settle_finish(victim, seg);
      book_.shorten(victim, std::move(seg));
      return;
    }
    const time_type run_end = std::clamp(book_.now(), seg.run.begin, seg.run.end);
    book_.close_segment(victim, book_.now(), {seg.run.begin, run_end}, 0,
                        segment_outcome::cancelled);
    ++victim.cancellations;  // saved by close_segment
    book_.enqueue(victim);
    if (book_.observer() != nullptr) book_.observer()->on_requeued(victim.terms.id, book_.now());
  }

  // A best-effort lease holding a booking can be preempted until its run is over: once its work
  // is done (it is shutting down) or it is suspending, there is nothing left to suspend, and
  // cancelling it would throw away work already finished.
  [[nodiscard]] bool is_preemptible(const record_type& l) const {
    if (!l.is_best_effort() || !l.terms.preemptible || !l.current) return false;
    const segment_type& seg = *l.current;
    if (seg.booked.begin > book_.now()) return true;
    const auto real_end =
        static_cast<time_type>(seg.run.begin + times().wall_time(l, l.remaining_real));
    return book_.now() < std::min(seg.run.end, real_end);
  }

 private:
  // Whether the preparation step takes part in admission (image staging).
  static constexpr bool stages_images =
      Book::template prep_offers<preparation_feature::reservations>;

  // Preempts the best-effort leases in the way on `preempt_on` (§3.1, in id order) and books
  // the lease on `nodes` (in increasing order) over `span`.
  void book_reservation(record_type& l, interval<time_type> span, std::vector<std::size_t> nodes,
                        std::span<const std::size_t> preempt_on) {
    std::vector<std::uint64_t> victims;
    for (std::size_t node : preempt_on) {
      for (std::uint64_t id : book_.on_node()[node]) {
        const record_type& other = book_.lease(id);
        if (is_preemptible(other) && other.current->booked.overlaps(span)) victims.push_back(id);
      }
    }
    std::ranges::sort(victims);
    victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
    if (book_.config().preempt == preemption_set::minimal)
      victims = minimal_victims(victims, preempt_on, span, times().booked_vector(l.terms));
    for (std::uint64_t id : victims) preempt(book_.edit(id), span.begin);
    const time_type run =
        book_.config().reservation_overhead_inside
            ? static_cast<time_type>(span.end - span.begin - times().overhead(l.terms))
            : times().reservation_time_for(l.terms.duration);
    segment_type seg;
    seg.nodes = std::move(nodes);
    seg.per_node = times().booked_vector(l.terms);
    seg.booked = span;
    seg.run = {span.begin, static_cast<time_type>(span.begin + run)};
    times().settle_finish(l, seg);
    if (!book_.table().can_reserve({seg.booked, seg.per_node, seg.nodes}))
      throw invariant_violation(leasehold::detail::describe(
          "lease_scheduler: lease ", l.terms.id, " does not fit after preempting for it"));
    book_.book(l, std::move(seg));
  }

  // The run time preempting `victim` for a reservation beginning at `at` throws away: what
  // it has run in its current segment if it is cancelled (it cannot be suspended, or has too
  // little time left to suspend); 0 if it has not begun or is suspended (its work credited).
  [[nodiscard]] time_type run_lost(const record_type& victim, time_type at) const {
    const segment_type& seg = *victim.current;
    if (seg.booked.begin > book_.now()) return 0;
    const auto suspend_begin = static_cast<time_type>(at - times().suspension_tail(victim.terms));
    if (times().may_suspend(victim.terms) && suspend_begin >= book_.now() &&
        suspend_begin >= seg.run.begin)
      return 0;
    return static_cast<time_type>(std::clamp(book_.now(), seg.run.begin, seg.run.end) -
                                  seg.run.begin);
  }

  // preemption_set::minimal: of the leases in the way (`all`, in id order), the fewest that
  // make room for `need` over `span` on every node of `preempt_on`, then those losing the least
  // run time, then the smallest ids (compared in increasing order). Preempting a lease frees
  // its vector over all of its booking within the span (unscheduled, suspended so as to end at
  // the span's start, or cancelled now), so room only grows with the set: every set that makes
  // room holds each lease without which even all the others do not ("needed"), and the search
  // is over the rest. Beyond `search_limit` of those it preempts them all, as all_overlapping.
  static constexpr std::size_t search_limit = 16;
  [[nodiscard]] std::vector<std::uint64_t> minimal_victims(const std::vector<std::uint64_t>& all,
                                                           std::span<const std::size_t> preempt_on,
                                                           interval<time_type> span,
                                                           const capacity_type& need) const {
    // Each piece of the span on each node to make room on: its free capacity and the leases
    // (indices into `all`) booked over the whole of it.
    struct piece {
      capacity_type free;
      std::vector<std::size_t> covering;
    };
    std::vector<piece> pieces;
    for (std::size_t node : preempt_on) {
      std::vector<time_type> cuts{span.begin, span.end};
      std::vector<std::size_t> here;
      for (std::size_t i = 0; i < all.size(); ++i) {
        const segment_type& seg = *book_.lease(all[i]).current;
        if (!std::ranges::binary_search(seg.nodes, node)) continue;
        here.push_back(i);
        if (span.contains(seg.booked.begin)) cuts.push_back(seg.booked.begin);
        if (span.contains(seg.booked.end)) cuts.push_back(seg.booked.end);
      }
      std::ranges::sort(cuts);
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
        const interval<time_type> part{cuts[c], cuts[c + 1]};
        piece p{book_.table().node(node).min_free(part), {}};
        for (std::size_t i : here) {
          const segment_type& seg = *book_.lease(all[i]).current;
          if (seg.booked.begin <= part.begin && part.end <= seg.booked.end) p.covering.push_back(i);
        }
        pieces.push_back(std::move(p));
      }
    }
    const auto makes_room = [&](const std::vector<bool>& chosen) {
      return std::ranges::all_of(pieces, [&](const piece& p) {
        capacity_type free = p.free;
        for (std::size_t i : p.covering)
          if (chosen[i]) free += book_.lease(all[i]).current->per_node;
        return fits(need, free);
      });
    };
    std::vector<bool> chosen(all.size(), true);
    if (!makes_room(chosen))
      throw invariant_violation(leasehold::detail::describe(
          "lease_scheduler: preempting every lease in the way over ", span, " leaves no room"));
    std::vector<std::size_t> optional;
    for (std::size_t i = 0; i < all.size(); ++i) {
      chosen[i] = false;
      if (makes_room(chosen)) optional.push_back(i);
      chosen[i] = true;
    }
    if (optional.size() > search_limit) return all;
    std::vector<time_type> lost;
    for (std::uint64_t id : all) lost.push_back(run_lost(book_.lease(id), span.begin));
    for (std::size_t i : optional) chosen[i] = false;
    // Sets of k optional leases, k = 0, 1, ...: the first k with a set that makes room, and of
    // its sets the least run time lost; combinations come in increasing index (= id) order,
    // so the first of equal loss has the smallest ids.
    std::optional<std::vector<std::size_t>> best;
    for (std::size_t k = 0; k <= optional.size() && !best; ++k) {
      time_type best_lost{};
      std::vector<std::size_t> pick(k);
      for (std::size_t j = 0; j < k; ++j) pick[j] = j;
      while (true) {
        for (std::size_t j : pick) chosen[optional[j]] = true;
        if (makes_room(chosen)) {
          time_type total{};
          for (std::size_t j : pick) total = static_cast<time_type>(total + lost[optional[j]]);
          if (!best || total < best_lost) {
            best_lost = total;
            best = pick;
          }
        }
        for (std::size_t j : pick) chosen[optional[j]] = false;
        // The next combination in lexicographic order, if any.
        std::size_t j = k;
        while (j > 0 && pick[j - 1] == optional.size() - k + (j - 1)) --j;
        if (j == 0) break;
        ++pick[j - 1];
        for (std::size_t m = j; m < k; ++m) pick[m] = pick[m - 1] + 1;
      }
    }
    for (std::size_t j : *best) chosen[optional[j]] = true;
    std::vector<std::uint64_t> victims;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (chosen[i]) victims.push_back(all[i]);
    return victims;
  }

  // nullopt if even preempting every preemptible lease on `node` leaves too little over
  // `span`; else 1 when only leases not yet begun are in the way, 2 when running ones are.
  // Cut the span where preemptible bookings begin or end; within each piece the free
  // capacity they would leave is min_free plus the bookings that cover the whole piece.
  [[nodiscard]] std::optional<int> preemption_rank(std::size_t node, interval<time_type> span,
                                                   const capacity_type& need) const {
    std::vector<time_type> cuts{span.begin, span.end};
    std::vector<const segment_type*> movable;
    int rank = 1;
    for (std::uint64_t id : book_.on_node()[node]) {
      const record_type& other = book_.lease(id);
      if (!is_preemptible(other) || !other.current->booked.overlaps(span)) continue;
      const segment_type& seg = *other.current;
      movable.push_back(&seg);
      if (seg.booked.begin <= book_.now()) rank = 2;
      if (span.contains(seg.booked.begin)) cuts.push_back(seg.booked.begin);
      if (span.contains(seg.booked.end)) cuts.push_back(seg.booked.end);
    }
    if (movable.empty()) return std::nullopt;
    std::ranges::sort(cuts);
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const interval<time_type> piece{cuts[i], cuts[i + 1]};
      capacity_type free = book_.table().node(node).min_free(piece);
      for (const segment_type* seg : movable)
        if (seg->booked.begin <= piece.begin && piece.end <= seg->booked.end) free += seg->per_node;
      if (!fits(need, free)) return std::nullopt;
    }
    return rank;
  }
};

// The name callers use (book_component.hpp).
template <class Book>
using reservation_admission = typename book_component<Book>::reservation_admission;

}  // namespace leasehold::policy::lease::detail
