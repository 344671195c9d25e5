#pragma once

/// \file
/// A node's image cache (Sotomayor, Keahey & Foster, §3.1-§3.2; Overhead Matters §4.2.2):
/// the D_p MB of a node's disk that hold disk images (templates). Images are reference
/// counted by the leases that depend on them; an image whose count is zero stays cached
/// until space is needed, and is then evicted by LRU (Haizea: "removes the least recently
/// used image with reference count equal to zero") or LFU (Overhead Matters: fewest uses,
/// ties by least recent use). An image in use is never evicted.
///
/// An entry occupies its space from the moment its transfer is booked (`arrival` in the
/// future) until it is evicted or erased: the disk is never over-committed, whatever the
/// transfers' timing. Keys are strings: the image id for a shared template, or any other key
/// for a private copy (images not reused, VM-MULT).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::policy::staging {

/// Which unreferenced image goes first when room is needed.
enum class eviction_policy {
  lru,  ///< Haizea §3.2
  lfu,  ///< Overhead Matters §4.2.2
};

/// Writes "LRU" or "LFU".
inline std::ostream& operator<<(std::ostream& out, eviction_policy p) {
  return out << (p == eviction_policy::lru ? "LRU" : "LFU");
}

/// One image in a node's cache.
template <time_value T = std::int64_t>
struct cache_entry {
  std::string image;  ///< the image id (the key may differ for private copies)
  /// Its size, MB.
  std::int64_t size_mb = 0;
  T arrival{};  ///< when the image is complete on the node
  /// How many leases depend on it: never evicted while above zero.
  std::size_t references = 0;
  std::uint64_t uses = 0;      ///< how many times it was acquired (LFU)
  std::uint64_t last_use = 0;  ///< a stamp from a per-cache counter (LRU)
};

/// A node's image cache of capacity_mb MB with reference counts and LRU or LFU eviction of
/// unreferenced images (see the file's description). Lookups are O(log n) in the images held.
template <time_value T = std::int64_t>
class image_cache {
 public:
  /// One cached image.
  using entry_type = cache_entry<T>;

  /// Throws invalid_request for a negative capacity.
  explicit image_cache(std::int64_t capacity_mb, eviction_policy policy = eviction_policy::lru)
      : capacity_mb_(capacity_mb), policy_(policy) {
    if (capacity_mb < 0)
      throw invalid_request(
          leasehold::detail::describe("image_cache: capacity ", capacity_mb, " MB is negative"));
  }

  /// The cache's size, MB.
  [[nodiscard]] std::int64_t capacity_mb() const noexcept { return capacity_mb_; }
  /// MB held by cached images.
  [[nodiscard]] std::int64_t used_mb() const noexcept { return used_mb_; }
  /// MB not held by any image.
  [[nodiscard]] std::int64_t free_mb() const noexcept { return capacity_mb_ - used_mb_; }
  /// LRU or LFU.
  [[nodiscard]] eviction_policy policy() const noexcept { return policy_; }
  /// Every cached image by key.
  [[nodiscard]] const std::map<std::string, entry_type>& entries() const noexcept {
    return entries_;
  }
  /// The image cached under `key`, or nullptr.
  [[nodiscard]] const entry_type* find(const std::string& key) const {
    const auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }
  /// Space held by images nobody references: what eviction could free.
  [[nodiscard]] std::int64_t evictable_mb() const {
    std::int64_t sum = 0;
    for (const auto& [key, e] : entries_)
      if (e.references == 0) sum += e.size_mb;
    return sum;
  }

  /// The keys eviction would remove, in order, to make room for `size_mb`; nullopt when even
  /// evicting every unreferenced image leaves too little.
  [[nodiscard]] std::optional<std::vector<std::string>> victims_for(std::int64_t size_mb) const {
    if (size_mb > capacity_mb_) return std::nullopt;
    std::vector<std::string> order;
    if (free_mb() >= size_mb) return order;
    std::vector<const std::pair<const std::string, entry_type>*> idle;
    for (const auto& kv : entries_)
      if (kv.second.references == 0) idle.push_back(&kv);
    std::ranges::sort(idle, [this](const auto* a, const auto* b) {
      if (policy_ == eviction_policy::lfu && a->second.uses != b->second.uses)
        return a->second.uses < b->second.uses;
      return a->second.last_use < b->second.last_use;
    });
    std::int64_t free = free_mb();
    for (const auto* kv : idle) {
      if (free >= size_mb) break;
      order.push_back(kv->first);
      free += kv->second.size_mb;
    }
    if (free < size_mb) return std::nullopt;
    return order;
  }
  /// True when an image of size_mb fits, counting what evicting the unreferenced images would
  /// free.
  [[nodiscard]] bool can_admit(std::int64_t size_mb) const {
    return size_mb <= capacity_mb_ && free_mb() + evictable_mb() >= size_mb;
  }

  /// Adds `key` (arriving at `arrival`), evicting unreferenced images as the policy says;
  /// returns the evicted keys. Throws, changing nothing: invalid_request for a non-positive
  /// size, an image larger than the whole cache or a key already present;
  /// insufficient_capacity when images in use leave too little room.
  std::vector<std::string> insert(const std::string& key, const std::string& image,
                                  std::int64_t size_mb, T arrival) {
    using leasehold::detail::describe;
    if (size_mb <= 0)
      throw invalid_request(
          describe("image_cache insert ", image, ": size ", size_mb, " MB must be positive"));
    if (size_mb > capacity_mb_)
      throw invalid_request(describe("image_cache insert ", image, ": ", size_mb,
                                     " MB is larger than the cache (", capacity_mb_, " MB)"));
    if (entries_.contains(key))
      throw invalid_request(describe("image_cache insert ", key, ": already cached"));
    auto evicted = victims_for(size_mb);
    if (!evicted)
      throw insufficient_capacity(describe("image_cache insert ", image, ": ", size_mb,
                                           " MB do not fit; ", free_mb(), " MB free and ",
                                           evictable_mb(), " MB held by unused images"));
    entry_type e{image, size_mb, arrival, 0, 0, ++clock_};
    const auto [it, inserted] = entries_.emplace(key, std::move(e));  // may throw: nothing done
    (void)inserted;
    for (const auto& k : *evicted) erase(k);
    used_mb_ += size_mb;
    return std::move(*evicted);
  }

  /// A lease starts depending on `key`: one more reference, one more use, most recently used.
  void acquire(const std::string& key) {
    entry_type& e = at("acquire", key);
    ++e.references;
    ++e.uses;
    e.last_use = ++clock_;
  }
  /// A lease stops depending on `key`. Throws invalid_release when nobody references it.
  void release(const std::string& key) {
    entry_type& e = at("release", key);
    if (e.references == 0)
      throw invalid_release(
          leasehold::detail::describe("image_cache release ", key, ": no lease references it"));
    --e.references;
    e.last_use = ++clock_;
  }
  /// Removes an unreferenced entry; throws invalid_request if it is in use.
  void erase(const std::string& key) {
    const auto it = entries_.find(key);
    if (it == entries_.end()) return;
    if (it->second.references > 0)
      throw invalid_request(leasehold::detail::describe(
          "image_cache erase ", key, ": ", it->second.references, " lease(s) still depend on it"));
    used_mb_ -= it->second.size_mb;
    entries_.erase(it);
  }
  /// Moves an image's arrival (its transfer was rescheduled).
  void set_arrival(const std::string& key, T arrival) { at("set_arrival", key).arrival = arrival; }

  /// The counter LRU stamps come from (with entries(), what saving a cache needs).
  [[nodiscard]] std::uint64_t use_clock() const noexcept { return clock_; }

  /// A cache holding `entries` with stamps from `use_clock`, as entries() and use_clock() gave
  /// them. Throws invalid_request naming the entry for a size that is not positive, a stamp
  /// after the counter, or entries that do not fit the capacity together.
  [[nodiscard]] static image_cache restore(std::int64_t capacity_mb, eviction_policy policy,
                                           std::map<std::string, entry_type> entries,
                                           std::uint64_t use_clock) {
    using leasehold::detail::describe;
    image_cache cache(capacity_mb, policy);
    for (const auto& [key, e] : entries) {
      if (e.size_mb <= 0)
        throw invalid_request(
            describe("image_cache restore ", key, ": size ", e.size_mb, " MB must be positive"));
      if (e.last_use > use_clock)
        throw invalid_request(describe("image_cache restore ", key, ": last use ", e.last_use,
                                       " is after the use counter ", use_clock));
      if (e.size_mb > capacity_mb - cache.used_mb_)
        throw invalid_request(describe("image_cache restore ", key, ": ", e.size_mb,
                                       " MB do not fit; the entries before it leave ",
                                       capacity_mb - cache.used_mb_, " of ", capacity_mb, " MB"));
      cache.used_mb_ += e.size_mb;
    }
    cache.entries_ = std::move(entries);
    cache.clock_ = use_clock;
    return cache;
  }

  /// Throws invariant_violation when the accounting is broken or the disk over-committed.
  void validate() const {
    std::int64_t sum = 0;
    for (const auto& [key, e] : entries_) sum += e.size_mb;
    if (sum != used_mb_ || used_mb_ > capacity_mb_)
      throw invariant_violation(leasehold::detail::describe(
          "image_cache: ", sum, " MB cached, accounted ", used_mb_, ", capacity ", capacity_mb_));
  }

 private:
  entry_type& at(const char* operation, const std::string& key) {
    const auto it = entries_.find(key);
    if (it == entries_.end())
      throw invalid_request(
          leasehold::detail::describe("image_cache ", operation, ' ', key, ": not cached"));
    return it->second;
  }

  std::int64_t capacity_mb_;
  eviction_policy policy_;
  std::int64_t used_mb_ = 0;
  std::uint64_t clock_ = 0;
  std::map<std::string, entry_type> entries_;
};

}  // namespace leasehold::policy::staging
