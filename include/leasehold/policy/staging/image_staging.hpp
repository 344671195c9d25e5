#pragma once

/// \file
/// policy::staging::image_staging: disk-image preparation scheduled like any other reservation
/// (Sotomayor, Keahey & Foster, "Combining Batch Execution and Leasing Using Virtual
/// Machines", §3.1-§3.2; Sotomayor, Keahey & Foster, "Overhead Matters", §3-§4), as the
/// preparation step of policy::lease::lease_scheduler.
///
///  - The repository's link is an availability over bandwidth (repository_link): a transfer
///    books the whole link for s_I / B per multicast, or per node with unicast.
///  - Each node has an image cache of D_p MB (image_cache): images are reference counted by
///    the leases booked on the node; unreferenced ones are evicted by LRU or LFU when room is
///    needed; without reuse (VM-MULT) each lease gets a private copy, discarded at its end.
///  - Advance reservations: the deadline of a transfer is the lease's start; pending
///    deadline-driven transfers are re-placed by EDF each time one is added, as late as
///    possible (Haizea) or as early as possible (Overhead Matters' Hybrid), stacking back to
///    back before their deadlines; a lease whose transfer cannot finish in time is not viable.
///    Node choice (in the scheduler): nodes needing no preemption, then nodes holding the
///    image; when only reusing images makes the lease viable, nodes holding it first.
///  - Best-effort leases take the earliest transfer slot (§3.2), and the scheduler's slot
///    table honours, per node, when the image can be there: now if cached, the arrival of a
///    transfer already booked for the same image to the same node (piggybacking), with
///    piggybacking::join_multicast the end of a best-effort multicast of the image not yet
///    started (the node joins it as a further destination), else the end of the earliest
///    slot for a new transfer.
///  - A transfer that has started cannot be taken back: if its lease is unscheduled, it runs
///    to its end and its image lands in the cache (an orphan, evictable, and adopted by the
///    same lease when it is planned again). It has started once the clock has passed its
///    begin. Likewise a private copy (no reuse) that has arrived for a lease unbooked before
///    it began stays cached, unreferenced, for the same lease to adopt; it goes when the lease
///    is booked on other nodes or has run, or when eviction needs the room.
///
/// The policy never owns a clock: every call carries the scheduler's current time.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/journal.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/observer.hpp"
#include "leasehold/policy/lease/preparation.hpp"
#include "leasehold/policy/lease/preparation_features.hpp"
#include "leasehold/policy/staging/config.hpp"
#include "leasehold/policy/staging/detail/edf_placement.hpp"
#include "leasehold/policy/staging/detail/transfer_book.hpp"
#include "leasehold/policy/staging/image_cache.hpp"
#include "leasehold/policy/staging/repository_link.hpp"
#include "leasehold/policy/staging/staging_state.hpp"

namespace leasehold::policy::staging {

/// Disk-image staging as a preparation step of lease_scheduler: transfers booked on the
/// repository link like reservations, node caches with reuse, multicast and piggybacking
/// (see the file's description). Every call that changes it gives the strong guarantee.
template <link_profile Link = free_list<std::int64_t, std::int64_t>>
class image_staging {
 public:
  /// The link profile's time type.
  using time_type = typename Link::time_type;
  /// The lease terms it prepares.
  using terms_type = lease::lease_terms<time_type>;
  /// A booked transfer.
  using transfer_type = image_transfer<time_type>;
  /// The repository link.
  using link_type = repository_link<Link>;
  /// A node's image cache.
  using cache_type = image_cache<time_type>;

  /// The lease scheduler's optional capabilities this step offers (preparation_features.hpp);
  /// transactions need a link that can undo a booking without throwing.
  static constexpr lease::preparation_features features = [] {
    using lease::preparation_feature;
    lease::preparation_features f =
        preparation_feature::check_terms | preparation_feature::interval_prepare;
    f = f | preparation_feature::lead_time | preparation_feature::node_count |
        preparation_feature::reservations | preparation_feature::transfer_events |
        preparation_feature::take_finished;
    if (nothrow_rollback_availability<Link>) f = f | preparation_feature::transactions;
    return f;
  }();

  /// Staging for `nodes` nodes (the scheduler's slot table must have as many). Throws
  /// invalid_request for zero nodes, a bandwidth that is not positive or a negative cache.
  image_staging(std::size_t nodes, staging_config config = {}, time_type origin = 0)
      : config_(config), link_(config.bandwidth_mb_s, origin), now_(origin) {
    if (nodes == 0) throw invalid_request("image_staging: a cluster needs at least one node");
    caches_.assign(nodes, cache_type(config.cache_mb, config.eviction));
  }

  /// Makes an image known. Throws, changing nothing: invalid_request for an empty id, a
  /// non-positive size, an image larger than a node's cache, or an id already known with
  /// another size.
  void add_image(const lease::disk_image& image) {
    using leasehold::detail::describe;
    if (image.id.empty()) throw invalid_request("image_staging add_image: empty image id");
    if (image.size_mb <= 0)
      throw invalid_request(describe("image_staging add_image ", image.id, ": size ", image.size_mb,
                                     " MB must be positive"));
    if (image.size_mb > config_.cache_mb)
      throw invalid_request(describe("image_staging add_image ", image.id, ": ", image.size_mb,
                                     " MB is larger than a node's cache (", config_.cache_mb,
                                     " MB)"));
    if (const auto it = images_.find(image.id); it != images_.end() && it->second != image.size_mb)
      throw invalid_request(describe("image_staging add_image ", image.id, ": already known with ",
                                     it->second, " MB, not ", image.size_mb));
    images_.emplace(image.id, image.size_mb);
  }

  /// Its configuration.
  [[nodiscard]] const staging_config& config() const noexcept { return config_; }
  /// The repository link, read-only.
  [[nodiscard]] const link_type& link() const noexcept { return link_; }
  /// The number of nodes.
  [[nodiscard]] std::size_t node_count() const noexcept { return caches_.size(); }
  /// Node `node`'s cache, read-only; throws invalid_request for a node out of range.
  [[nodiscard]] const cache_type& cache(std::size_t node) const {
    check_node("cache", node);
    return caches_[node];
  }
  /// Transfers booked and not yet over (pending, in flight), by id.
  [[nodiscard]] const std::map<std::uint64_t, transfer_type>& transfers() const noexcept {
    return book_.booked();
  }
  /// Every transfer that has ended and has not been taken, in the order they ended (for Gantt
  /// charts and logs).
  [[nodiscard]] const std::vector<transfer_type>& finished_transfers() const noexcept {
    return book_.finished();
  }
  /// Hands out the finished transfers and forgets them, so that memory and the cost of a call
  /// depend on the transfers booked and under way only. The lease scheduler calls it at the end
  /// of each call when it retires finished leases (scheduler_config::retire_finished): its
  /// observer has heard of each transfer's end by then. ready() no longer counts what was taken.
  std::vector<transfer_type> take_finished_transfers() { return book_.take_finished(journal_); }
  /// When the last transfer booked for the lease ends (booked, under way or over): when its
  /// images are all there if none came from the cache; nullopt if no transfer serves it.
  /// Overhead Matters' client satisfaction (§5.1) is measured against it.
  [[nodiscard]] std::optional<time_type> ready(std::uint64_t lease) const {
    std::optional<time_type> last;
    auto serves = [lease](const transfer_type& tr) {
      return std::ranges::any_of(tr.users,
                                 [lease](const auto& kv) { return kv.first.first == lease; });
    };
    for (const auto& [id, tr] : book_.booked())
      if (serves(tr)) last = std::max(last.value_or(tr.span.end), tr.span.end);
    for (const auto& tr : book_.finished())
      if (serves(tr)) last = std::max(last.value_or(tr.span.end), tr.span.end);
    return last;
  }
  /// Counts so far; transfers that have started by the last call count as sent.
  [[nodiscard]] staging_stats stats() const {
    staging_stats s = stats_;
    for (const auto& [id, t] : book_.booked())
      if (has_started(t, now_)) count_transfer(s, t);
    return s;
  }

  // ---- the state as values (staging_state.hpp) ----------------------------------------------

  /// Everything it holds, by value (export_state / import_state).
  using state_type = image_staging_state<Link>;

  /// Everything this staging step holds, by value (a copy: O(state)).
  [[nodiscard]] state_type export_state() const {
    state_type state{.config = config_,
                     .now = now_,
                     .link = link_.profile(),
                     .caches = {},
                     .cache_clocks = {},
                     .images = images_,
                     .transfers = {},
                     .finished = book_.finished(),
                     .incoming = {},
                     .holds = {},
                     .stats = stats_,
                     .next_transfer_id = book_.next_id(),
                     .next_order = book_.next_order(),
                     .tentative = {}};
    for (const auto& cache : caches_) {
      state.caches.push_back(cache.entries());
      state.cache_clocks.push_back(cache.use_clock());
    }
    for (const auto& entry : book_.booked()) state.transfers.push_back(entry.second);
    for (const auto& [where, id] : book_.incoming())
      state.incoming.emplace_back(where.first, where.second, id);
    for (const auto& [id, h] : holds_)
      state.holds.push_back({id, h.start, h.key, h.refs, h.hits, h.misses, h.piggybacks});
    for (const auto& entry : tentative_) state.tentative.push_back(entry.second);
    return state;
  }

  /// A staging step holding `state` (as export_state() gave it). Throws invalid_request naming
  /// the first inconsistency: a bad config, caches that do not fit or do not match the node
  /// count, a link or a transfer that contradicts the clock (a transfer ended but not over, or
  /// over but still to end), duplicate or out-of-range ids, and whatever validate() finds
  /// between the caches, the leases' references, the transfers and the link.
  [[nodiscard]] static image_staging import_state(state_type state) {
    using leasehold::detail::describe;
    const auto fail = [](const auto&... parts) {
      throw invalid_request(describe("image staging state: ", parts...));
    };
    if (state.caches.size() != state.cache_clocks.size())
      fail(state.caches.size(), " caches but ", state.cache_clocks.size(), " use counters");
    image_staging s(state.caches.size(), state.config, state.now);
    if (state.link.origin() > state.now)
      fail("the link's origin ", state.link.origin(), " is after the clock ", state.now);
    s.link_ = link_type(state.config.bandwidth_mb_s, std::move(state.link));
    for (std::size_t node = 0; node < state.caches.size(); ++node)
      s.caches_[node] =
          cache_type::restore(state.config.cache_mb, state.config.eviction,
                              std::move(state.caches[node]), state.cache_clocks[node]);
    for (const auto& [id, size] : state.images) s.add_image({id, size});
    const auto check_nodes = [&](const std::vector<std::size_t>& nodes, const auto& what) {
      for (std::size_t node : nodes)
        if (node >= s.caches_.size())
          fail(what, " names node ", node, " but there are ", s.caches_.size());
    };
    // The clock: a transfer is over exactly when it has ended by then (sync() retires it).
    for (const auto& tr : state.transfers)
      if (tr.span.end <= state.now)
        fail("transfer ", tr.id, " over ", tr.span, " has ended by the clock ", state.now,
             " but is not over");
    for (const auto& tr : state.finished)
      if (tr.span.end > state.now)
        fail("transfer ", tr.id, " over ", tr.span, " is over but ends after the clock ",
             state.now);
    for (const auto& tr : state.transfers) check_nodes(tr.nodes, describe("transfer ", tr.id));
    s.book_ = book_type::restore(std::move(state.transfers), std::move(state.finished),
                                 std::move(state.incoming), state.next_transfer_id,
                                 state.next_order, s.caches_.size(), fail);
    for (auto& h : state.holds) {
      check_nodes(h.refs, describe("lease ", h.lease, "'s hold"));
      if (!s.holds_
               .emplace(h.lease, hold{h.start, std::move(h.key), std::move(h.refs), h.hits,
                                      h.misses, h.piggybacks})
               .second)
        fail("lease ", h.lease, " holds images twice");
    }
    s.stats_ = state.stats;
    for (auto& notice : state.tentative) {
      const std::uint64_t id = notice.transfer;
      if (!s.tentative_.emplace(id, std::move(notice)).second)
        fail("transfer ", id, " is announced twice");
    }
    try {
      s.validate();
    } catch (const invariant_violation& e) {
      throw invalid_request(describe("inconsistent image staging state: ", e.what()));
    }
    return s;
  }

  // ---- transfer events (lease_observer::on_transfer_started / _finished) --------------------

  /// A transfer as announced to the lease observer.
  using notice_type = lease::transfer_notice<time_type>;
  /// What happened to a transfer.
  enum class transfer_change { started, finished, withdrawn };
  /// A change of a transfer, for the lease observer's on_transfer_started / _finished.
  struct transfer_event {
    /// Started, finished or withdrawn.
    transfer_change change = transfer_change::started;
    /// The transfer as announced (for a withdrawal: as it was announced).
    notice_type notice;

    /// When it happens: a start or withdrawal at the transfer's begin, an end at its end.
    [[nodiscard]] time_type at() const {
      return change == transfer_change::finished ? notice.span.end : notice.span.begin;
    }
  };

  /// When the next transfer starts or ends after the last events taken: the begin of a transfer
  /// not yet announced, or the end of one announced. Nullopt when no transfer is booked.
  [[nodiscard]] std::optional<time_type> next_transfer_event() const {
    std::optional<time_type> next;
    for (const auto& [id, tr] : book_.booked()) {
      const time_type at = tr.announced ? tr.span.end : tr.span.begin;
      if (!next || at < *next) next = at;
    }
    return next;
  }

  /// Moves the clock to `now` and hands out, in time order, every transfer start and end up to
  /// `now` not handed out before. A transfer starting exactly at `now` is announced but may
  /// still change while the clock stays at `now` (a later call at the same instant may plan
  /// its lease again): the next call then withdraws the announcement (transfer_change::
  /// withdrawn, with the notice as announced) and announces it anew if it still starts by then.
  /// Once the clock has passed its begin a transfer is fixed. The lease scheduler calls this as
  /// its clock moves and at the end of each call, and passes the events to its observer.
  std::vector<transfer_event> take_transfer_events(time_type now) {
    const std::size_t ended_before = book_.finished().size();
    sync(now);
    std::vector<transfer_event> events;
    // Announcements made at their first instant: withdrawn if the transfer has gone or moved.
    for (const auto& [tentative_id, announced] : tentative_) {
      // A named copy: clang before 16 cannot capture a structured binding.
      const auto id = tentative_id;
      const auto& booked = book_.booked();
      const auto& finished = book_.finished();
      const auto it = booked.find(id);
      const bool ended =
          std::any_of(finished.begin() + static_cast<std::ptrdiff_t>(ended_before), finished.end(),
                      [id](const transfer_type& tr) { return tr.id == id; });
      if (ended) continue;  // it ran as announced
      if (it != booked.end() && it->second.span == announced.span &&
          it->second.nodes == announced.nodes)
        continue;
      events.push_back({transfer_change::withdrawn, announced});
      if (it != booked.end()) book_.edit(journal_, id).announced = false;
    }
    if (!tentative_.empty()) journal_.assign(tentative_, std::map<std::uint64_t, notice_type>{});
    book_.announce_finished_since(ended_before, [&events](const transfer_type& tr) {
      if (!tr.announced) events.push_back({transfer_change::started, notice_of(tr)});
      events.push_back({transfer_change::finished, notice_of(tr)});
    });
    for (const auto& [booked_id, booked] : book_.booked()) {
      if (booked.announced || booked.span.begin > now) continue;
      const std::uint64_t id = booked_id;
      transfer_type& tr = book_.edit(journal_, id);
      tr.announced = true;
      events.push_back({transfer_change::started, notice_of(tr)});
      if (!has_started(tr, now)) {
        journal_.save_entry(tentative_, id);
        tentative_.emplace(id, events.back().notice);
      }
    }
    // In time order; at one instant withdrawals first, then starts, then ends.
    std::ranges::stable_sort(events, {}, [](const transfer_event& e) {
      const int rank = e.change == transfer_change::withdrawn ? 0
                       : e.change == transfer_change::started ? 1
                                                              : 2;
      return std::pair{e.at(), rank};
    });
    return events;
  }

  // ---- transactions (policy::lease::transactional_preparation) ------------------------------

  /// Between begin_transaction() and commit_transaction() every change this step makes is
  /// recorded in its journal (availability/journal.hpp); rollback_transaction() takes them all
  /// back, newest first, in place, without throwing. The lease scheduler wraps each of its
  /// public calls in one, so that a call that fails leaves the step as it was at a cost of what
  /// the call changed rather than a copy of the whole step. The link needs a backend that can
  /// undo a booking without throwing (nothrow_rollback_availability).
  void begin_transaction() requires nothrow_rollback_availability<Link> {
    touched_.assign(caches_.size(), false);  // may throw: nothing has changed yet
    journal_.begin();
  }
  /// The call succeeded: forget how to undo it, and let the link forget the past up to the clock
  /// (which advance_to of a nothrow_rollback backend does without throwing for a later time).
  void commit_transaction() noexcept requires nothrow_rollback_availability<Link> {
    journal_.commit();
    link_.advance_to(now_);
  }
  void rollback_transaction() noexcept requires nothrow_rollback_availability<Link> {
    journal_.rollback();
    /// The memos are keyed by version_, which is not taken back: a memo made during the call
    /// would otherwise still match the link as it was restored.
    ++version_;
  }
  /// Whether a transaction is open (between begin_transaction and its end).
  [[nodiscard]] bool in_transaction() const noexcept { return journal_.active(); }

  // ---- the preparation step (policy::lease::preparation) -----------------------------------

  /// Throws unknown_image for an image never added, invalid_request for a size that differs
  /// from the known one; changes nothing.
  void check_terms(const terms_type& t) const {
    if (!t.image) return;
    const auto it = images_.find(t.image->id);
    if (it == images_.end())
      throw unknown_image(leasehold::detail::describe("image ", t.image->id,
                                                      " is unknown to the image repository"));
    if (it->second != t.image->size_mb)
      throw invalid_request(leasehold::detail::describe("image ", t.image->id, " is ", it->second,
                                                        " MB, not ", t.image->size_mb));
  }

  /// When the lease's image can be on `node` (§3.2): now if cached, the arrival of a transfer
  /// already booked to that node, else the earlier of the end of a multicast it may join
  /// (piggybacking::join_multicast) and the end of the earliest slot for a new transfer;
  /// forever when the node's cache cannot make room for it.
  [[nodiscard]] time_type ready_at(const terms_type& t, std::size_t node, time_type now) const {
    if (!t.image) return now;
    check_node("ready_at", node);
    const cache_type& cache = caches_[node];
    if (const auto* e = cache.find(key_for(t))) return std::max(now, e->arrival);
    if (!cache.can_admit(t.image->size_mb)) return forever<time_type>;
    const time_type fresh = new_transfer_ready(t, now);
    if (const auto joined = joinable_end(t, now)) return std::min(fresh, *joined);
    return fresh;
  }

  /// How long a best-effort lease starting as soon as possible waits for its image at most:
  /// until the end of the link's earliest slot for the transfer it would need (0 without an
  /// image). The scheduler treats such a lease as starting now, not as a future reservation.
  [[nodiscard]] time_type lead_time(const terms_type& t, time_type now) const {
    if (!t.image) return 0;
    const time_type ready = new_transfer_ready(t, now);
    return ready == forever<time_type> ? time_type{0} : static_cast<time_type>(ready - now);
  }

  /// Advance reservations: 0 when the image will be on `node` by `start` without a new
  /// transfer (cached, or arriving through a transfer that cannot be withdrawn), 1 when it
  /// needs one, nullopt when the node's cache cannot make room for it.
  [[nodiscard]] std::optional<int> reservation_rank(const terms_type& t, std::size_t node,
                                                    time_type start, time_type now) const {
    if (!t.image) return 0;
    check_node("reservation_rank", node);
    const std::string key = key_for(t);
    if (const auto* e = caches_[node].find(key)) {
      if (e->arrival <= start && reliable(node, key, *e, now)) return 0;
      return 1;  // its space is already held; an earlier transfer would replace this one
    }
    if (!caches_[node].can_admit(t.image->size_mb)) return std::nullopt;
    return 1;
  }

  /// Advance reservations: whether the transfers `nodes` need can be placed, with every
  /// pending deadline-driven transfer, so that all end by their deadlines.
  [[nodiscard]] bool can_prepare(const terms_type& t, std::span<const std::size_t> nodes,
                                 time_type start, time_type now) const {
    if (!t.image) return true;
    std::size_t needing = 0;
    for (std::size_t node : nodes) {
      const auto rank = reservation_rank(t, node, start, now);
      if (!rank) return false;
      if (*rank != 0) ++needing;
    }
    if (needing == 0) return true;
    const time_type d = link_.transfer_time(t.image->size_mb);
    const std::size_t count = config_.mechanism == transfer_mechanism::multicast ? 1 : needing;
    std::vector<job> jobs = pending_jobs(now);
    for (std::size_t i = 0; i < count; ++i) jobs.push_back({0, d, start, book_.next_order() + i});
    link_type trial = link_;
    return place(trial, jobs, now);
  }

  /// Books what a lease placed on `nodes` over `booked` needs: references to images already
  /// there or arriving in time, and transfers for the rest (deadline-driven for advance
  /// reservations and immediate leases, earliest slot for best-effort leases; with
  /// piggybacking::join_multicast a best-effort lease's nodes without the image first join the
  /// earliest-ending best-effort multicast of it that has not started and ends by the start,
  /// if there is one). The scheduler
  /// calls it only where ready_at / can_prepare allowed it; if the transfers cannot be placed
  /// it throws insufficient_capacity and nothing changes.
  void prepare(const terms_type& t, std::span<const std::size_t> nodes, interval<time_type> booked,
               time_type now) {
    check_terms(t);
    for (std::size_t node : nodes) check_node("prepare", node);
    if (holds_.contains(t.id))
      throw invalid_request(leasehold::detail::describe("image_staging prepare: lease ", t.id,
                                                        " is already prepared"));
    sync(now);
    hold h;
    h.start = booked.begin;
    if (!t.image) {
      journal_.save_entry(holds_, t.id);
      holds_.emplace(t.id, std::move(h));
      return;
    }
    const std::string key = key_for(t);
    // Copies this lease left behind when it was unbooked, on nodes it no longer uses.
    if (!config_.reuse) drop_orphans(key, nodes);
    // Every step that can refuse comes before the first change that stays.
    node_roles roles = sort_nodes(t, key, nodes, booked.begin);
    const std::optional<std::uint64_t> joined = choose_multicast(t, key, roles, now, booked.begin);
    transfer_plan plan = plan_transfers(t, roles.need.size(), now, booked.begin);
    // From here on nothing throws for inputs checked above, short of allocation failure.
    const std::vector<std::uint64_t> created = book_transfers(t, std::move(plan), roles.need);
    const lease_receipt receipt{t.id, booked.begin,
                                t.kind != lease::lease_kind::best_effort || !t.preemptible};
    for (std::size_t i = 0; i < roles.need.size(); ++i) {
      const bool multicast = config_.mechanism == transfer_mechanism::multicast;
      receive_by_transfer(t, key, roles.need[i], created[multicast ? 0 : i], receipt, h);
    }
    for (std::size_t node : roles.join) receive_by_multicast(t, key, node, *joined, receipt, h);
    for (std::size_t node : roles.reuse) hold_cached(t, key, node, receipt, now, h);
    h.key = key;
    journal_.save_entry(holds_, t.id);
    holds_.emplace(t.id, std::move(h));
  }

  /// The form of the preparation concept: booked from `start` on.
  void prepare(const terms_type& t, std::span<const std::size_t> nodes, time_type start,
               time_type now) {
    prepare(t, nodes, interval<time_type>{start, forever<time_type>}, now);
  }

  /// The lease no longer needs what prepare booked (it ended, or it was unscheduled). Its
  /// references are dropped; transfers nobody needs any more are released if they have not
  /// started. Hits, misses and piggybacks count once the lease has begun.
  ///
  /// With shared templates (reuse), a transfer that still serves other leases keeps every
  /// destination, this lease's too: a multicast costs the link the same whatever its
  /// destinations, the template is reusable by any lease on the node, and a lease unbooked
  /// before it began is normally booked again at this very instant (slide-back or whole-queue
  /// re-planning), where it finds its image still arriving on time. Dropping those nodes made
  /// the re-booked lease wait for a new transfer queued behind the one it had just left (and
  /// slide-back then found the lease later than its own booking). A private copy (no reuse)
  /// serves only its lease: it stops going to a node as soon as nobody there needs it.
  void cancel(std::uint64_t id, time_type now) {
    sync(now);
    const auto it = holds_.find(id);
    if (it == holds_.end()) return;
    const hold& h = it->second;
    if (now >= h.start) {
      journal_.save(stats_);
      stats_.cache_hits += h.hits;
      stats_.cache_misses += h.misses;
      stats_.piggybacks += h.piggybacks;
    }
    std::vector<std::uint64_t> left;  // shared transfers this lease used, not started yet
    for (std::size_t node : h.refs) {
      touch_cache(node);
      caches_[node].release(h.key);
      if (const auto in = book_.bringing(node, h.key)) {
        transfer_type& tr = book_.edit(journal_, *in);
        tr.users.erase({id, node});
        if (has_started(tr, now)) continue;
        if (config_.reuse) {
          left.push_back(tr.id);
        } else if (no_user_for(tr, node, h.key) && caches_[node].find(h.key)->references == 0) {
          (void)detach(node, h.key);
          caches_[node].erase(h.key);
        }
      } else if (!config_.reuse && caches_[node].find(h.key)->references == 0 && now > h.start) {
        caches_[node].erase(h.key);
      }
    }
    std::ranges::sort(left);
    left.erase(std::unique(left.begin(), left.end()), left.end());
    for (const std::uint64_t transfer : left)
      if (book_.at(transfer).users.empty()) withdraw(transfer);
    // A private copy that arrived for a lease unbooked before it began is kept (unreferenced,
    // evictable): the lease is normally booked again at this very instant (the queue planned
    // again, or slide-back re-planning) and adopts it instead of fetching its image anew.
    // Once the lease has run, its copies anywhere are dropped.
    if (!config_.reuse && now > h.start) drop_orphans(h.key, {});
    (void)journal_.erase(holds_, it);
  }

  /// Throws invariant_violation when the caches, transfers and link disagree. For tests.
  void validate() const {
    for (const auto& cache : caches_) cache.validate();
    std::map<std::pair<std::size_t, std::string>, std::size_t> refs;
    for (const auto& [id, h] : holds_)
      for (std::size_t node : h.refs) ++refs[{node, h.key}];
    for (const auto& [where, count] : refs)
      if (caches_[where.first].find(where.second) == nullptr)
        throw invariant_violation(
            leasehold::detail::describe("image_staging: ", count, " lease(s) hold ", where.second,
                                        " on node ", where.first, ", which does not cache it"));
    for (std::size_t node = 0; node < caches_.size(); ++node)
      for (const auto& [key, e] : caches_[node].entries())
        if (e.references != refs[{node, key}])
          throw invariant_violation(leasehold::detail::describe(
              "image_staging: ", key, " on node ", node, " has ", e.references, " references but ",
              refs[{node, key}], " leases hold it"));
    for (const auto& [id, tr] : book_.booked()) {
      const interval<time_type> ahead{std::max(tr.span.begin, link_.origin()), tr.span.end};
      if (!ahead.empty() && link_.profile().min_free(ahead) != 0)
        throw invariant_violation(leasehold::detail::describe(
            "image_staging: transfer ", id, " over ", tr.span, " is not booked on the link"));
      if (tr.deadline_driven && !has_started(tr, now_) && tr.span.end > tr.deadline())
        throw invariant_violation(
            leasehold::detail::describe("image_staging: transfer ", id, " ends at ", tr.span.end,
                                        " after its deadline ", tr.deadline()));
    }
    for (const auto& [where, id] : book_.incoming()) {
      const auto* e = caches_[where.first].find(where.second);
      if (e == nullptr || !book_.booked().contains(id) || e->arrival != book_.at(id).span.end)
        throw invariant_violation(
            leasehold::detail::describe("image_staging: ", where.second, " arriving on node ",
                                        where.first, " through transfer ", id, " is inconsistent"));
    }
  }

 private:
  struct hold {
    time_type start{};
    std::string key;
    std::vector<std::size_t> refs;  // nodes where the lease holds a reference to `key`
    std::size_t hits = 0;
    std::size_t misses = 0;
    std::size_t piggybacks = 0;
  };
  using job = detail::edf_job<time_type>;
  using book_type = detail::transfer_book<time_type>;

  /// Started for good: the clock has passed its begin. (At its first instant it may still
  /// move or go away, as any call at that instant may plan leases again.)
  [[nodiscard]] static bool has_started(const transfer_type& tr, time_type now) {
    return tr.span.begin < now;
  }

  [[nodiscard]] static notice_type notice_of(const transfer_type& tr) {
    notice_type n;
    n.transfer = tr.id;
    n.image = tr.image;
    n.size_mb = tr.size_mb;
    n.nodes = tr.nodes;
    n.span = tr.span;
    for (const auto& entry : tr.users) n.leases.push_back(entry.first.first);
    std::ranges::sort(n.leases);
    n.leases.erase(std::unique(n.leases.begin(), n.leases.end()), n.leases.end());
    return n;
  }

  // prepare() in its steps. What each node of a lease needs: the image is there in time
  // (reuse), it must come by a new transfer (need), or by a multicast already booked (join).
  struct node_roles {
    std::vector<std::size_t> reuse;
    std::vector<std::size_t> need;
    std::vector<std::size_t> join;
  };
  // The new transfers, placed on a copy of the link (made only when there are some): committed
  // only if all of them fit.
  struct transfer_plan {
    std::optional<link_type> link;
    std::vector<job> jobs;                   // deadline-driven: every pending job, replaced
    std::vector<interval<time_type>> spans;  // one per new transfer
  };
  // Who a node's copy of the image serves, and from when.
  struct lease_receipt {
    std::uint64_t lease = 0;
    time_type start{};
    bool is_protected = false;  // its transfer may not be withdrawn for another lease
  };

  // Refuses the lease when a node's cache cannot make room for the image.
  [[nodiscard]] node_roles sort_nodes(const terms_type& t, const std::string& key,
                                      std::span<const std::size_t> nodes, time_type start) const {
    node_roles roles;
    for (std::size_t node : nodes) {
      const auto* e = caches_[node].find(key);
      if (e != nullptr && e->arrival <= start)
        roles.reuse.push_back(node);
      else if (e != nullptr || caches_[node].can_admit(t.image->size_mb))
        roles.need.push_back(node);
      else
        throw insufficient_capacity(leasehold::detail::describe(
            "image_staging prepare: lease ", t.id, ": node ", node,
            "'s cache cannot make room for ", t.image->id, " (", t.image->size_mb, " MB)"));
    }
    return roles;
  }

  // Nodes without the image join a multicast already booked, if one ends in time: they move
  // from `need` to `join`, and the multicast's id is returned.
  [[nodiscard]] std::optional<std::uint64_t> choose_multicast(const terms_type& t,
                                                              const std::string& key,
                                                              node_roles& roles, time_type now,
                                                              time_type start) const {
    if (roles.need.empty()) return std::nullopt;
    const std::optional<std::uint64_t> joined = joinable(t, now, start);
    if (!joined) return joined;
    const auto lacks_image = [&](std::size_t node) { return caches_[node].find(key) == nullptr; };
    for (std::size_t node : roles.need)
      if (lacks_image(node)) roles.join.push_back(node);
    std::erase_if(roles.need, lacks_image);
    return joined;
  }

  // Deadline-driven leases (advance reservations, immediate leases) place their transfers with
  // every pending deadline-driven one, by EDF as late as possible; best-effort leases take the
  // earliest slots ending by the start. Throws insufficient_capacity when they do not fit.
  [[nodiscard]] transfer_plan plan_transfers(const terms_type& t, std::size_t needing,
                                             time_type now, time_type start) const {
    using leasehold::detail::describe;
    transfer_plan plan;
    if (needing == 0) return plan;
    plan.link.emplace(link_);
    const time_type d = link_.transfer_time(t.image->size_mb);
    const std::size_t count = config_.mechanism == transfer_mechanism::multicast ? 1 : needing;
    if (t.kind != lease::lease_kind::best_effort) {
      plan.jobs = pending_jobs(now);
      for (std::size_t i = 0; i < count; ++i)
        plan.jobs.push_back({0, d, start, book_.next_order() + i});
      if (!place(*plan.link, plan.jobs, now))
        throw insufficient_capacity(describe("image_staging prepare: lease ", t.id, ": ", count,
                                             " transfer(s) of ", t.image->id, " (", d,
                                             " s each) cannot all end by their deadlines"));
      for (const job& j : plan.jobs)
        if (j.transfer == 0) plan.spans.push_back(j.placed);
    } else {
      for (std::size_t i = 0; i < count; ++i) {
        const auto slot = plan.link->earliest(d, now, start);
        if (!slot)
          throw insufficient_capacity(describe("image_staging prepare: lease ", t.id,
                                               ": no slot for a transfer of ", t.image->id,
                                               " ending by ", start));
        plan.link->book(*slot);
        plan.spans.push_back(*slot);
      }
    }
    return plan;
  }

  // Commits the plan: the link, the pending transfers it moved, and one new transfer per span
  // (to all of `need` when multicast, to one node each when unicast). Returns the new ids.
  std::vector<std::uint64_t> book_transfers(const terms_type& t, transfer_plan plan,
                                            const std::vector<std::size_t>& need) {
    if (!plan.spans.empty() || !plan.jobs.empty()) journal_.assign(link_, std::move(*plan.link));
    ++version_;
    for (const job& j : plan.jobs)
      if (j.transfer != 0) move_transfer(j.transfer, j.placed);
    std::vector<std::uint64_t> created;
    for (std::size_t i = 0; i < plan.spans.size(); ++i) {
      transfer_type tr;
      tr.image = t.image->id;
      tr.size_mb = t.image->size_mb;
      tr.span = plan.spans[i];
      tr.deadline_driven = t.kind != lease::lease_kind::best_effort;
      if (config_.mechanism == transfer_mechanism::multicast)
        tr.nodes = need;
      else
        tr.nodes = {need[i]};
      created.push_back(book_.add(journal_, std::move(tr)));
    }
    book_.use_orders(journal_, plan.spans.size());
    return created;
  }

  // The node now waits for the image from the transfer `id`, which serves the lease there.
  void await_transfer(const std::string& key, std::size_t node, std::uint64_t id,
                      const lease_receipt& r, hold& h) {
    book_.bring(journal_, node, key, id);
    touch_cache(node);
    caches_[node].acquire(key);
    book_.edit(journal_, id).users[{r.lease, node}] = {r.start, r.is_protected};
    h.refs.push_back(node);
  }

  // A node served by one of the lease's new transfers.
  void receive_by_transfer(const terms_type& t, const std::string& key, std::size_t node,
                           std::uint64_t id, const lease_receipt& r, hold& h) {
    touch_cache(node);
    const time_type arrival = book_.at(id).span.end;
    if (caches_[node].find(key) != nullptr) {
      // Arriving too late through another transfer: this one delivers it sooner.
      auto moved = detach(node, key);
      book_.edit(journal_, id).users.merge(std::move(moved));
      caches_[node].set_arrival(key, arrival);
    } else {
      for (const auto& victim : caches_[node].insert(key, t.image->id, t.image->size_mb, arrival))
        evicted(node, victim);
    }
    await_transfer(key, node, id, r, h);
    ++h.misses;
  }

  // A node that joins the multicast `joined`, booked for another lease.
  void receive_by_multicast(const terms_type& t, const std::string& key, std::size_t node,
                            std::uint64_t joined, const lease_receipt& r, hold& h) {
    const time_type arrival = book_.at(joined).span.end;
    touch_cache(node);
    for (const auto& victim : caches_[node].insert(key, t.image->id, t.image->size_mb, arrival))
      evicted(node, victim);
    transfer_type& tr = book_.edit(journal_, joined);
    if (const auto at = std::ranges::lower_bound(tr.nodes, node);
        at == tr.nodes.end() || *at != node)
      tr.nodes.insert(at, node);
    await_transfer(key, node, joined, r, h);
    ++h.piggybacks;
  }

  // A node whose cache has the image, or will have it in time: a hit once it has arrived,
  // else the lease rides on the transfer bringing it.
  void hold_cached(const terms_type& t, const std::string& key, std::size_t node,
                   const lease_receipt& r, time_type now, hold& h) {
    const auto& e = *caches_[node].find(key);
    if (e.arrival <= now) {
      ++h.hits;
    } else if (const auto in = book_.bringing(node, key)) {
      transfer_type& tr = book_.edit(journal_, *in);
      // Adopting its own transfer (under way when the lease was unscheduled, or one multicast
      // to several of its nodes) is a miss; riding along with another lease's a piggyback.
      const bool others =
          std::ranges::any_of(tr.users, [&t](const auto& kv) { return kv.first.first != t.id; });
      ++(others ? h.piggybacks : h.misses);
      tr.users[{t.id, node}] = {r.start, r.is_protected};
    } else {
      ++h.piggybacks;
    }
    touch_cache(node);
    caches_[node].acquire(key);
    h.refs.push_back(node);
  }

  void check_node(const char* operation, std::size_t node) const {
    if (node >= caches_.size())
      throw invalid_request(leasehold::detail::describe("image_staging ", operation, ": node ",
                                                        node, " out of range (", caches_.size(),
                                                        " nodes)"));
  }

  /// Shared templates are keyed by image; without reuse every lease has its own copy.
  [[nodiscard]] std::string key_for(const terms_type& t) const { return key_of(t.image->id, t.id); }
  [[nodiscard]] std::string key_of(const std::string& image, std::uint64_t lease) const {
    if (config_.reuse) return image;
    return image + "@lease-" + std::to_string(lease);
  }

  /// With piggybacking::join_multicast, for a best-effort lease: the best-effort multicast of
  /// its image that has not started and ends by `by`, the earliest-ending (then the oldest).
  /// Deadline-driven transfers are left alone: EDF may still move them.
  [[nodiscard]] std::optional<std::uint64_t> joinable(const terms_type& t, time_type now,
                                                      time_type by) const {
    if (config_.piggyback != piggybacking::join_multicast ||
        config_.mechanism != transfer_mechanism::multicast ||
        t.kind != lease::lease_kind::best_effort)
      return std::nullopt;
    std::optional<std::uint64_t> best;
    time_type best_end{};
    for (const auto& [id, tr] : book_.booked()) {
      if (tr.deadline_driven || tr.image != t.image->id || has_started(tr, now) || tr.span.end > by)
        continue;
      if (!best || tr.span.end < best_end) {
        best = id;
        best_end = tr.span.end;
      }
    }
    return best;
  }
  /// The end of the multicast joinable(t, now, forever) finds, if any. Memoised: the slot
  /// table asks once per node.
  [[nodiscard]] std::optional<time_type> joinable_end(const terms_type& t, time_type now) const {
    if (config_.piggyback != piggybacking::join_multicast) return std::nullopt;
    if (join_memo_ && join_memo_->now == now && join_memo_->version == version_ &&
        join_memo_->kind == t.kind && join_memo_->image == t.image->id)
      return join_memo_->end;
    std::optional<time_type> end;
    if (const auto id = joinable(t, now, forever<time_type>)) end = book_.at(*id).span.end;
    join_memo_ = join_memo{t.image->id, t.kind, now, version_, end};
    return end;
  }

  /// An image arriving in time is as good as cached only if its transfer will happen: it has
  /// started, or a lease that cannot be preempted needs it.
  [[nodiscard]] bool reliable(std::size_t node, const std::string& key,
                              const cache_entry<time_type>& e, time_type now) const {
    if (e.arrival <= now) return true;
    const auto in = book_.bringing(node, key);
    if (!in) return true;
    const transfer_type& tr = book_.at(*in);
    return has_started(tr, now) || tr.is_protected();
  }

  /// End of the earliest slot for the transfers a best-effort lease would need: one multicast,
  /// or one unicast per node back to back (the worst case, so that prepare can always place
  /// them by the start the slot table picks). Memoised: the slot table asks once per node.
  [[nodiscard]] time_type new_transfer_ready(const terms_type& t, time_type now) const {
    if (memo_ && memo_->id == t.id && memo_->now == now && memo_->version == version_)
      return memo_->ready;
    time_type d = link_.transfer_time(t.image->size_mb);
    if (config_.mechanism == transfer_mechanism::unicast)
      d = static_cast<time_type>(d * static_cast<time_type>(t.nodes));
    const auto slot = link_.earliest(d, now);
    const time_type ready = slot ? slot->end : forever<time_type>;
    memo_ = memo{t.id, now, version_, ready};
    return ready;
  }

  [[nodiscard]] std::vector<job> pending_jobs(time_type now) const {
    std::vector<job> jobs;
    for (const auto& [id, tr] : book_.booked())
      if (tr.deadline_driven && !has_started(tr, now))
        jobs.push_back({id, static_cast<time_type>(tr.span.end - tr.span.begin), tr.deadline(),
                        order_of(id), tr.span});
    return jobs;
  }
  [[nodiscard]] static std::uint64_t order_of(std::uint64_t transfer_id) { return transfer_id; }

  [[nodiscard]] bool place(link_type& link, std::vector<job>& jobs, time_type now) const {
    return detail::place_edf(link, jobs, now, config_.deadline_transfers);
  }

  void move_transfer(std::uint64_t id, interval<time_type> span) {
    if (book_.at(id).span == span) return;
    book_.edit(journal_, id).span = span;
    for (const auto& [where, tid] : book_.incoming())
      if (tid == id) {
        touch_cache(where.first);
        caches_[where.first].set_arrival(where.second, span.end);
      }
  }

  /// Whether no lease needs `key` on `node` through the transfer (without reuse a node may
  /// receive several leases' private copies from one multicast it joined).
  [[nodiscard]] bool no_user_for(const transfer_type& tr, std::size_t node,
                                 const std::string& key) const {
    return std::ranges::none_of(tr.users, [&](const auto& kv) {
      return kv.first.second == node && key_of(tr.image, kv.first.first) == key;
    });
  }

  /// `key` will no longer reach `node` through its current transfer: the book drops the node
  /// from the transfer's destinations (unless another copy still reaches it through the
  /// transfer), and a pending transfer left with no destination is released from the link.
  /// Returns the users it served with `key` on that node.
  typename book_type::user_map detach(std::size_t node, const std::string& key) {
    auto out = book_.detach(
        journal_, node, key,
        [this](const std::string& image, std::uint64_t lease) { return key_of(image, lease); });
    if (out.transfer == 0) return std::move(out.users);
    const transfer_type& tr = book_.at(out.transfer);
    if (tr.nodes.empty() && !has_started(tr, now_)) {
      const interval<time_type> span = tr.span;
      journal_.apply([&] { link_.release(span); }, [this, span]() noexcept { link_.book(span); });
      ++version_;
      book_.erase(journal_, out.transfer);
    }
    return std::move(out.users);
  }

  /// Without reuse: erases `key` (one lease's private copy) wherever it is cached, unreferenced
  /// and no longer arriving, except on `keep`.
  void drop_orphans(const std::string& key, std::span<const std::size_t> keep) {
    for (std::size_t node = 0; node < caches_.size(); ++node) {
      const auto* e = caches_[node].find(key);
      if (e == nullptr || e->references != 0 || book_.bringing(node, key) ||
          std::ranges::find(keep, node) != keep.end())
        continue;
      touch_cache(node);
      caches_[node].erase(key);
    }
  }

  /// A transfer that has not started and serves nobody: it is sent nowhere, and the copies it
  /// was bringing (unreferenced) are dropped; detach releases its slot on the link.
  void withdraw(std::uint64_t transfer) {
    // Collected first, as detach erases entries (and, with the last, the transfer itself).
    const auto copies = book_.arriving_through(book_.at(transfer));
    for (const auto& [node, key] : copies) {
      (void)detach(node, key);
      if (const auto* e = caches_[node].find(key); e != nullptr && e->references == 0) {
        touch_cache(node);
        caches_[node].erase(key);
      }
    }
  }

  // Before a node's cache changes in a transaction: its first change saves a copy (a cache
  // holds the few images a node's disk has room for).
  void touch_cache(std::size_t node) {
    if (!journal_.active() || touched_[node]) return;
    journal_.save(caches_[node]);
    touched_[node] = true;
  }

  /// Eviction took `key` off `node`: if it was still arriving, stop sending it there.
  void evicted(std::size_t node, const std::string& key) { (void)detach(node, key); }

  /// Moves the clock: transfers that have ended are retired (counted, their images now
  /// simply cached); private copies nobody references are dropped once they have arrived.
  void sync(time_type now) {
    if (now < now_)
      throw invalid_request(leasehold::detail::describe(
          "image_staging at ", now, ": time went backwards (it is at ", now_, ")"));
    if (now != now_) {
      journal_.save(now_);
      now_ = now;
    }
    // In a transaction the link forgets the past only once the call has succeeded
    // (commit_transaction): a profile cannot take back what advance_to dropped. Every query
    // starts at now_ meanwhile, so the older origin changes no answer.
    if (!journal_.active()) link_.advance_to(now);
    std::vector<std::uint64_t> ended;
    for (const auto& [id, tr] : book_.booked())
      if (tr.span.end <= now) ended.push_back(id);
    if (!ended.empty()) journal_.save(stats_);
    for (const std::uint64_t id : ended) {
      count_transfer(stats_, book_.at(id));
      for (const auto& [node, key] : book_.finish(journal_, id)) {
        if (!config_.reuse && caches_[node].find(key)->references == 0) {
          touch_cache(node);
          caches_[node].erase(key);
        }
      }
    }
  }

  static void count_transfer(staging_stats& s, const transfer_type& tr) {
    ++s.transfers;
    s.mb_transferred += tr.size_mb;
    s.mb_delivered += tr.size_mb * static_cast<std::int64_t>(tr.nodes.size());
  }

  struct memo {
    std::uint64_t id;
    time_type now;
    std::uint64_t version;
    time_type ready;
  };
  struct join_memo {
    std::string image;
    lease::lease_kind kind;
    time_type now;
    std::uint64_t version;
    std::optional<time_type> end;
  };

  staging_config config_;
  link_type link_;
  time_type now_;
  std::vector<cache_type> caches_;
  std::map<std::string, std::int64_t> images_;
  book_type book_;  // transfers booked, finished, and the copies they bring
  std::map<std::uint64_t, hold> holds_;
  staging_stats stats_;
  std::uint64_t version_ = 0;  ///< bumped whenever the link changes
  mutable std::optional<memo> memo_;
  mutable std::optional<join_memo> join_memo_;
  // Transfers announced at their first instant, as announced (take_transfer_events).
  std::map<std::uint64_t, notice_type> tentative_;
  // How to take back the changes of the open transaction, if any.
  journal journal_;
  std::vector<bool> touched_;  // caches saved in the open transaction
};

static_assert(lease::preparation<image_staging<>, std::int64_t>,
              "image_staging must model leasehold::policy::lease::preparation");
static_assert(lease::transfer_reporting_preparation<image_staging<>, std::int64_t>,
              "image_staging must announce its transfers to the lease scheduler");

}  // namespace leasehold::policy::staging
