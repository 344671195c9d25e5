// Must NOT compile: a preparation step declares a lead time (preparation_features.hpp) but its
// member is misspelt. Detection alone would quietly ignore it; the declaration makes the lease
// scheduler stop with a static_assert whose instantiation names the capability, lead_time
// (tests/static/CMakeLists.txt).

#include <cstddef>
#include <cstdint>
#include <span>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/lease/preparation_features.hpp>

namespace {

using T = std::int64_t;
namespace lease = leasehold::policy::lease;

struct misspelt_step {
  static constexpr lease::preparation_features features =
      lease::preparation_features{} | lease::preparation_feature::lead_time;
  [[nodiscard]] T ready_at(const lease::lease_terms<T>& /*t*/, std::size_t /*node*/, T now) const {
    return now;
  }
  void prepare(const lease::lease_terms<T>& /*t*/, std::span<const std::size_t> /*nodes*/,
               T /*start*/, T /*now*/) {}
  void cancel(std::uint64_t /*id*/, T /*now*/) {}
  [[nodiscard]] T lead_tme(const lease::lease_terms<T>& /*t*/, T /*now*/) const { return 5; }
};

}  // namespace

void build_a_scheduler_with_a_misspelt_step() {
  using backend = leasehold::free_list<T, lease::node_resources>;
  lease::lease_scheduler<backend, misspelt_step> s(
      leasehold::cluster::slot_table<backend>(2, lease::node_resources{1, 1024, 10000, 10}));
  (void)s.queue_size();
}
