// policy/lease/preparation_features.hpp: each optional capability of a preparation step is a
// named concept; a step that declares its capabilities is checked against its members (a
// misspelt member or a wrong signature is "declared but not provided", which the lease
// scheduler turns into a compile error naming it) and is used exactly as declared; a step that
// declares nothing is detected. The library's steps declare what they provide.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/lease/preparation_features.hpp>
#include <leasehold/policy/staging/image_staging.hpp>
#include <leasehold/policy/staging/naive_staging.hpp>

namespace preparation_features_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using T = std::int64_t;
using C = node_resources;
using feature = preparation_feature;

// The three members every step has.
struct base_step {
  [[nodiscard]] T ready_at(const lease_terms<T>& /*t*/, std::size_t /*node*/, T now) const {
    return now;
  }
  void prepare(const lease_terms<T>& /*t*/, std::span<const std::size_t> /*nodes*/, T /*start*/,
               T /*now*/) {}
  void cancel(std::uint64_t /*id*/, T /*now*/) {}
};

// Declares a lead time, but the member is misspelt.
struct misspelt_step : base_step {
  static constexpr preparation_features features = preparation_features{} | feature::lead_time;
  [[nodiscard]] T lead_tme(const lease_terms<T>& /*t*/, T /*now*/) const { return 5; }
};

// Declares a lead time whose member returns the wrong type.
struct wrong_signature_step : base_step {
  static constexpr preparation_features features = preparation_features{} | feature::lead_time;
  [[nodiscard]] double lead_time(const lease_terms<T>& /*t*/, T /*now*/) const { return 5; }
};

// Has a lead time it does not declare: a declared step is used as declared.
struct undeclared_member_step : base_step {
  static constexpr preparation_features features{};
  [[nodiscard]] T lead_time(const lease_terms<T>& /*t*/, T /*now*/) const { return 5; }
};

// Declares nothing: detected, as before declarations existed.
struct detected_step : base_step {
  [[nodiscard]] T lead_time(const lease_terms<T>& /*t*/, T /*now*/) const { return 5; }
  [[nodiscard]] std::size_t node_count() const { return 2; }
};

static_assert(preparation<misspelt_step, T>);
static_assert(!declared_as_provided<misspelt_step, T, C>(feature::lead_time),
              "a misspelt member is reported, not silently ignored");
static_assert(!declared_as_provided<wrong_signature_step, T, C>(feature::lead_time),
              "a member of the wrong signature is reported");
static_assert(provides<undeclared_member_step, T, C>(feature::lead_time) &&
                  !offers<undeclared_member_step, T, C>(feature::lead_time),
              "a declared step is used as it declares");
static_assert(declares_preparation_features<misspelt_step> &&
              !declares_preparation_features<detected_step>);
static_assert(offers<detected_step, T, C>(feature::lead_time) &&
                  offers<detected_step, T, C>(feature::node_count) &&
                  !offers<detected_step, T, C>(feature::check_terms),
              "an undeclared step is detected");

// The library's steps: every capability declared is provided, and each offers what it has.
template <class P>
constexpr bool all_declared_provided() {
  for (const feature f : {feature::always_ready, feature::check_terms, feature::interval_prepare,
                          feature::lead_time, feature::node_count, feature::reservations,
                          feature::transfer_events, feature::transactions, feature::take_finished})
    if (!declared_as_provided<P, T, C>(f)) return false;
  return true;
}
using staging_step = policy::staging::image_staging<>;
using naive_step = policy::staging::naive_staging<>;
static_assert(all_declared_provided<staging_step>());
static_assert(all_declared_provided<naive_step>());
static_assert(offers<staging_step, T, C>(feature::transactions) &&
              offers<staging_step, T, C>(feature::lead_time) &&
              offers<staging_step, T, C>(feature::reservations) &&
              !offers<staging_step, T, C>(feature::always_ready));
static_assert(offers<naive_step, T, C>(feature::check_terms) &&
              offers<naive_step, T, C>(feature::node_count) &&
              !offers<naive_step, T, C>(feature::lead_time) &&
              !offers<naive_step, T, C>(feature::transactions));
static_assert(offers<images_predeployed, T, C>(feature::always_ready) &&
              !offers<images_predeployed, T, C>(feature::lead_time));

TEST_CASE("preparation features: a set holds the features added to it") {
  const preparation_features none{};
  const preparation_features two = feature::lead_time | feature::node_count;
  CHECK(!none.has(feature::lead_time));
  CHECK(two.has(feature::lead_time));
  CHECK(two.has(feature::node_count));
  CHECK(!two.has(feature::transactions));
  CHECK((two | feature::transactions).has(feature::transactions));
}

// The scheduler honours node_count only where it is offered: a detected step that knows 2 nodes
// is refused by a 3-node table; a declared step with no node_count is not asked.
TEST_CASE("preparation features: the scheduler uses what a step offers") {
  using table = cluster::slot_table<free_list<T, node_resources>>;
  CHECK_THROWS_AS((lease_scheduler<free_list<T, node_resources>, detected_step>(
                      table(3, node_resources{1, 1024, 10000, 10}), {}, detected_step{})),
                  invalid_request);
  CHECK_NOTHROW((lease_scheduler<free_list<T, node_resources>, detected_step>(
      table(2, node_resources{1, 1024, 10000, 10}), {}, detected_step{})));
  CHECK_NOTHROW((lease_scheduler<free_list<T, node_resources>, undeclared_member_step>(
      table(3, node_resources{1, 1024, 10000, 10}), {}, undeclared_member_step{})));
}

}  // namespace preparation_features_test
