#pragma once

// The transfer book of image_staging: the transfers booked and not yet over (by id), those over
// and not yet taken (in the order they ended), and which copy of an image each booked transfer
// brings to which node. It knows nothing of the link, the caches or the leases' holds; it keeps
// its three collections consistent with one another (a copy arrives through a booked transfer,
// a finished transfer brings nothing any more) and hands out transfer ids and EDF orders.
//
// Every change goes through the caller's journal (availability/journal.hpp), so a call of
// image_staging that fails takes back what it changed here with the rest. The journal is passed
// to each change, not kept: a book copied with its staging step must not point at the old one's.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "leasehold/availability/journal.hpp"
#include "leasehold/policy/staging/staging_state.hpp"

namespace leasehold::policy::staging::detail {

template <time_value T>
class transfer_book {
 public:
  using transfer_type = image_transfer<T>;
  using user_map = std::map<std::pair<std::uint64_t, std::size_t>, typename transfer_type::user>;
  // A copy of an image on a node: (node, cache key).
  using copy_type = std::pair<std::size_t, std::string>;

  // ---- reading ---------------------------------------------------------------------------

  [[nodiscard]] const std::map<std::uint64_t, transfer_type>& booked() const noexcept {
    return booked_;
  }
  [[nodiscard]] const std::vector<transfer_type>& finished() const noexcept { return finished_; }
  [[nodiscard]] const std::map<copy_type, std::uint64_t>& incoming() const noexcept {
    return incoming_;
  }
  [[nodiscard]] const transfer_type& at(std::uint64_t id) const { return booked_.at(id); }
  // The booked transfer bringing `key` to `node`, if one is.
  [[nodiscard]] std::optional<std::uint64_t> bringing(std::size_t node,
                                                      const std::string& key) const {
    const auto in = incoming_.find({node, key});
    if (in == incoming_.end()) return std::nullopt;
    return in->second;
  }
  // The copies still arriving through `tr`. Copies arrive only at a transfer's destinations,
  // so only those nodes' entries are looked at, not every image in flight.
  [[nodiscard]] std::vector<copy_type> arriving_through(const transfer_type& tr) const {
    std::vector<copy_type> copies;
    for (const std::size_t node : tr.nodes)
      for (auto in = first_on(node); in != incoming_.end() && in->first.first == node; ++in)
        if (in->second == tr.id) copies.push_back(in->first);
    return copies;
  }
  // The id the next transfer booked gets.
  [[nodiscard]] std::uint64_t next_id() const noexcept { return next_id_; }
  // The EDF order of the next new job: after every existing transfer's id (a transfer's order is
  // its id), so that a new job loses ties against the transfers already booked.
  [[nodiscard]] std::uint64_t next_order() const noexcept { return next_order_; }

  // ---- changes ---------------------------------------------------------------------------

  // Books `tr` under the next id and returns the id.
  std::uint64_t add(journal& j, transfer_type tr) {
    j.save(next_id_);
    tr.id = next_id_++;
    const std::uint64_t id = tr.id;
    j.save_entry(booked_, id);
    booked_.emplace(id, std::move(tr));
    return id;
  }
  // `count` new jobs took their EDF orders.
  void use_orders(journal& j, std::size_t count) {
    if (count == 0) return;
    j.save(next_order_);
    next_order_ += count;
  }
  // The booked transfer `id`, to change: its entry is saved first.
  transfer_type& edit(journal& j, std::uint64_t id) {
    transfer_type& tr = booked_.at(id);
    j.save_entry(booked_, id);
    return tr;
  }
  // From now on `key` arrives on `node` through the booked transfer `id`.
  void bring(journal& j, std::size_t node, const std::string& key, std::uint64_t id) {
    j.save_entry(incoming_, {node, key});
    incoming_[{node, key}] = id;
  }
  // Forgets the booked transfer `id` (it brings nothing any more and is not over).
  void erase(journal& j, std::uint64_t id) { j.erase_key(booked_, id); }

  // What detach() took off a transfer.
  struct detached {
    std::uint64_t transfer = 0;  // 0: the copy was not arriving
    user_map users;              // the users it served with that copy
  };
  // `key` no longer arrives on `node` through its transfer: the node leaves the transfer's
  // destinations (unless another copy still reaches it through the same transfer), and the
  // users served with that copy there are taken off the transfer and returned. `key_of(image,
  // lease)` names the copy a user receives (without reuse a node may receive several leases'
  // private copies from one multicast it joined).
  template <class KeyOf>
  detached detach(journal& j, std::size_t node, const std::string& key, KeyOf key_of) {
    detached out;
    const auto in = incoming_.find({node, key});
    if (in == incoming_.end()) return out;
    out.transfer = in->second;
    (void)j.erase(incoming_, in);
    transfer_type& tr = edit(j, out.transfer);
    bool still_sent = false;
    for (auto other = first_on(node); other != incoming_.end() && other->first.first == node;
         ++other)
      if (other->second == out.transfer) still_sent = true;
    if (!still_sent) std::erase(tr.nodes, node);
    for (auto it = tr.users.begin(); it != tr.users.end();) {
      if (it->first.second == node && key_of(tr.image, it->first.first) == key) {
        out.users.insert(*it);
        it = tr.users.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }

  // The booked transfer `id` is over: it moves to the finished list and its copies stop
  // arriving (they are simply cached now). Returns those copies.
  std::vector<copy_type> finish(journal& j, std::uint64_t id) {
    const auto it = booked_.find(id);
    std::vector<copy_type> copies = arriving_through(it->second);
    for (const copy_type& c : copies) j.erase_key(incoming_, c);
    j.push_back(finished_, it->second);
    (void)j.erase(booked_, it);
    return copies;
  }
  // Marks the finished transfers from position `from` on as announced, after `visit(tr)` has
  // seen each as it was. Only for transfers that finished in the open call (`from` is the count
  // before it): the journal takes them back by the push that added them, so the mark needs no
  // record of its own.
  template <class Visit>
  void announce_finished_since(std::size_t from, Visit visit) {
    for (std::size_t i = from; i < finished_.size(); ++i) {
      visit(std::as_const(finished_[i]));
      finished_[i].announced = true;
    }
  }
  // Hands out the finished transfers and forgets them.
  std::vector<transfer_type> take_finished(journal& j) {
    if (!j.active()) return std::exchange(finished_, {});
    std::vector<transfer_type> taken = finished_;  // the copy stays for the journal's record
    j.assign(finished_, std::vector<transfer_type>{});
    return taken;
  }

  // ---- restoring (image_staging::import_state) --------------------------------------------

  // A book holding what export gave. `fail(parts...)` throws naming the first contradiction:
  // an id not below the next id, an id or an incoming copy twice, a copy arriving through a
  // transfer that is not booked or on a node out of range.
  template <class Fail>
  static transfer_book restore(
      std::vector<transfer_type> booked, std::vector<transfer_type> finished,
      std::vector<std::tuple<std::size_t, std::string, std::uint64_t>> incoming,
      std::uint64_t next_id, std::uint64_t next_order, std::size_t node_count, Fail fail) {
    transfer_book book;
    for (auto& tr : booked) {
      const std::uint64_t id = tr.id;
      if (id == 0 || id >= next_id) fail("transfer ", id, " is not below the next id ", next_id);
      if (!book.booked_.emplace(id, std::move(tr)).second) fail("transfer ", id, " appears twice");
    }
    book.finished_ = std::move(finished);
    for (auto& [node, key, id] : incoming) {
      if (node >= node_count || !book.booked_.contains(id))
        fail("image ", key, " arriving on node ", node, " through transfer ", id,
             ": no such node or transfer");
      if (!book.incoming_.emplace(copy_type{node, key}, id).second)
        fail("image ", key, " arrives on node ", node, " twice");
    }
    book.next_id_ = next_id;
    book.next_order_ = next_order;
    return book;
  }

 private:
  [[nodiscard]] auto first_on(std::size_t node) const {
    return incoming_.lower_bound({node, std::string()});
  }

  std::map<std::uint64_t, transfer_type> booked_;
  std::vector<transfer_type> finished_;
  std::map<copy_type, std::uint64_t> incoming_;
  std::uint64_t next_id_ = 1;
  std::uint64_t next_order_ = 1ull << 62;
};

}  // namespace leasehold::policy::staging::detail
