// policy/lease/preparation.hpp: images_predeployed, the trivial step (every image already on
// every node), and which types model the preparation concepts.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <leasehold/policy/lease/preparation.hpp>
#include <leasehold/policy/staging/image_staging.hpp>

namespace preparation_test {

using namespace leasehold::policy::lease;
using T = std::int64_t;

static_assert(preparation<images_predeployed, T>);
static_assert(!preparation<int, T>);
static_assert(!reservation_preparation<images_predeployed, T>);
static_assert(!transfer_reporting_preparation<images_predeployed, T>);
static_assert(!transactional_preparation<images_predeployed>);
static_assert(reservation_preparation<leasehold::policy::staging::image_staging<>, T>);
static_assert(transfer_reporting_preparation<leasehold::policy::staging::image_staging<>, T>);
static_assert(transactional_preparation<leasehold::policy::staging::image_staging<>>);

TEST_CASE("images_predeployed: ready now on every node, nothing to book or cancel") {
  images_predeployed step;
  lease_terms<T> t;
  t.id = 1;
  t.image = disk_image{"img", 600};
  CHECK(step.ready_at(t, 0, T{42}) == 42);
  CHECK(step.ready_at(t, 7, T{0}) == 0);
  const std::vector<std::size_t> nodes{0, 1};
  step.prepare(t, std::span<const std::size_t>(nodes), T{10}, T{0});
  step.cancel(1, T{5});
  CHECK(images_predeployed::always_ready);
}

}  // namespace preparation_test
