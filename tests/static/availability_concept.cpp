// Compile-only: which types model leasehold::availability and the capacity/time concepts,
// and which do not. Compiling this file is passing.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <leasehold/leasehold.hpp>

namespace {

using namespace leasehold;

// Time values: signed integers only.
static_assert(time_value<std::int64_t>);
static_assert(time_value<int>);
static_assert(!time_value<unsigned>, "unsigned time would wrap on differences");
static_assert(!time_value<double>, "floating-point time has inexact boundaries");
static_assert(!time_value<bool>);

// Capacities: integral scalars and resources<N, V>.
static_assert(capacity_value<int>);
static_assert(capacity_value<std::int64_t>);
static_assert(capacity_value<resources<4, std::int64_t>>);
static_assert(!capacity_value<double>);
static_assert(!capacity_value<bool>);
static_assert(!capacity_value<std::array<int, 4>>, "a plain array has no element-wise operators");

// Every shipped backend models the concept, for scalar and vector capacities.
static_assert(availability<free_list<>>);
static_assert(availability<free_list<int, int>>);
static_assert(availability<free_list<std::int64_t, resources<4, std::int64_t>>>);
static_assert(availability<free_tree<>>);
static_assert(availability<free_tree<int, int>>);
static_assert(availability<free_tree<std::int64_t, resources<4, std::int64_t>>>);
static_assert(availability<free_tree<std::int64_t, std::int64_t, 0>>, "run pruning off");
static_assert(availability<reference<>>);
static_assert(availability<reference<std::int32_t, resources<2, int>>>);
static_assert(availability<capacity_tree<>>);
static_assert(availability<capacity_tree<int, int>>);
static_assert(availability<capacity_tree<std::int64_t, unsigned>>);
// capacity_tree<T, resources<N, V>> does not compile at all: tests/static/fail/ shows it.
static_assert(availability<slotted_ring<>>);
static_assert(availability<slotted_ring<int, int>>);
static_assert(availability<slotted_ring<std::int64_t, resources<4, std::int64_t>>>);

// Types that do not.
static_assert(!availability<int>);
static_assert(!availability<std::map<std::int64_t, int>>);
static_assert(!availability<std::vector<free_block<std::int64_t, int>>>);

// Almost a backend, but earliest_fit answers a bool instead of an optional start.
struct answers_yes_or_no {
  using time_type = std::int64_t;
  using capacity_type = int;
  int total() const;
  std::int64_t origin() const;
  int free_at(std::int64_t) const;
  int min_free(interval<std::int64_t>) const;
  bool earliest_fit(const request<std::int64_t, int>&) const;
  void reserve(interval<std::int64_t>, int);
  void release(interval<std::int64_t>, int);
  void advance_to(std::int64_t);
  std::vector<free_block<std::int64_t, int>> free_blocks() const;
  std::size_t block_count() const;
};
static_assert(!availability<answers_yes_or_no>);

// The same with a floating-point capacity type.
struct counts_in_doubles {
  using time_type = std::int64_t;
  using capacity_type = double;
  double total() const;
  std::int64_t origin() const;
  double free_at(std::int64_t) const;
  double min_free(interval<std::int64_t>) const;
  std::optional<std::int64_t> earliest_fit(const request<std::int64_t, int>&) const;
  void reserve(interval<std::int64_t>, double);
  void release(interval<std::int64_t>, double);
  void advance_to(std::int64_t);
  std::vector<free_block<std::int64_t, int>> free_blocks() const;
  std::size_t block_count() const;
};
static_assert(!availability<counts_in_doubles>);

// A backend in every other way, but its free_blocks() yields plain numbers, not blocks.
struct blocks_as_numbers {
  using time_type = std::int64_t;
  using capacity_type = int;
  int total() const;
  std::int64_t origin() const;
  int free_at(std::int64_t) const;
  int min_free(interval<std::int64_t>) const;
  std::optional<std::int64_t> earliest_fit(const request<std::int64_t, int>&) const;
  void reserve(interval<std::int64_t>, int);
  void release(interval<std::int64_t>, int);
  void advance_to(std::int64_t);
  std::vector<int> free_blocks() const;
  std::size_t block_count() const;
};
static_assert(!availability<blocks_as_numbers>, "free_blocks() must yield free_block<T, C>");

// The optional refinement: undoing in place never throws. capacity_tree re-splits its
// hierarchy on an undo, which may allocate, so it does not claim it.
static_assert(nothrow_rollback_availability<free_list<>>);
static_assert(nothrow_rollback_availability<free_tree<>>);
static_assert(nothrow_rollback_availability<reference<>>);
static_assert(nothrow_rollback_availability<slotted_ring<>>);
static_assert(!nothrow_rollback_availability<capacity_tree<>>);
static_assert(!nothrow_rollback_availability<int>);

// capacity_tree names a type for a vector capacity, but not an availability (asking is an
// answer, not a compile error; building one is: tests/static/fail/).
static_assert(!availability<capacity_tree<std::int64_t, resources<4, std::int64_t>>>);

// The other optional refinements, as the shipped backends opt into them.
static_assert(latest_fit_availability<free_list<>> && latest_fit_availability<reference<>> &&
              latest_fit_availability<slotted_ring<>> && latest_fit_availability<capacity_tree<>> &&
              latest_fit_availability<free_tree<>>);
static_assert(validating_availability<free_list<>> && validating_availability<free_tree<>> &&
              validating_availability<capacity_tree<>> && validating_availability<reference<>> &&
              validating_availability<slotted_ring<>>);
static_assert(bounded_availability<slotted_ring<>> && !bounded_availability<free_list<>>);
static_assert(measured_availability<free_list<>> && measured_availability<free_tree<>> &&
              measured_availability<capacity_tree<>> && measured_availability<reference<>> &&
              measured_availability<slotted_ring<>>);
static_assert(std::same_as<free_block_of<free_list<int, int>>, free_block<int, int>>);

// Walking in place: free_list, free_tree, reference and slotted_ring have the members;
// capacity_tree is walked by walk.hpp's free functions from free_blocks().
static_assert(walkable_availability<free_list<>> && walkable_availability<free_list<int, int>> &&
              walkable_availability<free_list<std::int64_t, resources<4, std::int64_t>>>);
static_assert(walkable_availability<free_tree<>> && walkable_availability<free_tree<int, int>> &&
              walkable_availability<free_tree<std::int64_t, resources<4, std::int64_t>>> &&
              walkable_availability<free_tree<std::int64_t, std::int64_t, 0>>);
static_assert(walkable_availability<reference<>> &&
              walkable_availability<reference<std::int32_t, resources<2, int>>>);
static_assert(walkable_availability<slotted_ring<>> &&
              walkable_availability<slotted_ring<std::int64_t, resources<4, std::int64_t>>>);
static_assert(!walkable_availability<capacity_tree<>>);
static_assert(!walkable_availability<int>);
// The views are lazy, multi-pass and borrowed (their iterators point into the profile).
static_assert(std::ranges::view<decltype(std::declval<const free_tree<>&>().blocks_from(0))>);
static_assert(
    std::ranges::borrowed_range<decltype(std::declval<const free_list<>&>().blocks_in({0, 1}))>);
static_assert(std::same_as<std::ranges::range_value_t<
                               decltype(blocks_from(std::declval<const capacity_tree<>&>(), 0))>,
                           free_block<std::int64_t, std::int64_t>>);

// A walk whose range yields something other than free_block<T, C> does not count: here the
// blocks of another capacity type.
struct walks_other_blocks : answers_yes_or_no {
  std::optional<std::int64_t> earliest_fit(const request<std::int64_t, int>&) const;
  std::vector<free_block<std::int64_t, long>> blocks_from(std::int64_t) const;
  std::vector<free_block<std::int64_t, long>> blocks_in(interval<std::int64_t>) const;
  std::optional<std::int64_t> next_change(std::int64_t) const;
};
static_assert(availability<walks_other_blocks> && !walkable_availability<walks_other_blocks>);

// A misspelt member opts into nothing: leasehold::next_change falls back on free_blocks().
struct misspells_next_change : answers_yes_or_no {
  std::optional<std::int64_t> earliest_fit(const request<std::int64_t, int>&) const;
  std::vector<free_block<std::int64_t, int>> blocks_from(std::int64_t) const;
  std::vector<free_block<std::int64_t, int>> blocks_in(interval<std::int64_t>) const;
  std::optional<std::int64_t> next_changes(std::int64_t) const;
};
static_assert(availability<misspells_next_change> && !walkable_availability<misspells_next_change>);

// Changing the total: every shipped backend, for every capacity it takes.
static_assert(resizable_availability<free_list<>> &&
              resizable_availability<free_list<std::int64_t, resources<4, std::int64_t>>>);
static_assert(resizable_availability<free_tree<>> && resizable_availability<free_tree<int, int>> &&
              resizable_availability<free_tree<std::int64_t, resources<4, std::int64_t>>>);
static_assert(resizable_availability<capacity_tree<>> &&
              resizable_availability<capacity_tree<std::int64_t, unsigned>>);
static_assert(resizable_availability<slotted_ring<>> &&
              resizable_availability<slotted_ring<std::int64_t, resources<4, std::int64_t>>>);
static_assert(resizable_availability<reference<>> &&
              resizable_availability<reference<std::int32_t, resources<2, int>>>);
static_assert(!resizable_availability<answers_yes_or_no> && !resizable_availability<int>);

}  // namespace
