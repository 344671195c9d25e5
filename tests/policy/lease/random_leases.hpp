#pragma once

// The seeded random lease workload that the scheduler's randomised tests share (the
// simulation invariants, the checkpoint round trips, the allocation-failure runs): leases
// arriving a random gap apart, some of them advance reservations, some withdrawn by their
// users or needing an image when a test asks for it. The draws come in a fixed order, so one
// seed gives one workload whatever the caller.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <leasehold/policy/lease/lease_terms.hpp>

namespace leasehold::testing {

struct random_lease_shape {
  std::int64_t max_gap = 120;     // between submissions, uniform in [0, max_gap]
  std::int64_t max_nodes = 4;     // uniform in [1, max_nodes]
  std::int64_t min_duration = 1;  // uniform in [min_duration, max_duration]
  std::int64_t max_duration = 1500;
  std::int64_t reservation_one_in = 5;  // an advance reservation with probability 1 / this
  std::int64_t max_notice = 2000;       // its start: submit + uniform in [0, max_notice]
  std::optional<std::int64_t> withdraw_one_in{};  // best-effort leases withdrawn within 600
  std::optional<std::int64_t> image_one_in{};     // leases needing one of three 600 MB images
};

template <time_value T = std::int64_t>
std::vector<policy::lease::lease_terms<T>> random_leases(std::uint64_t seed, std::size_t count,
                                                         const random_lease_shape& shape = {}) {
  using namespace policy::lease;
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
  };
  std::vector<lease_terms<T>> leases;
  leases.reserve(count);
  T submit = 0;
  for (std::size_t i = 0; i < count; ++i) {
    submit += static_cast<T>(uniform(0, shape.max_gap));
    lease_terms<T> t;
    t.id = i + 1;
    t.submit = submit;
    t.nodes = uniform(1, shape.max_nodes);
    t.per_node = {1, 1024, 0, 0};
    t.duration = static_cast<T>(uniform(shape.min_duration, shape.max_duration));
    t.real_duration = static_cast<T>(uniform(1, t.duration));
    if (uniform(0, shape.reservation_one_in - 1) == 0) {
      t.kind = lease_kind::advance_reservation;
      t.start = static_cast<T>(submit + uniform(0, shape.max_notice));
      t.preemptible = false;
      t.real_duration = t.duration;
    } else if (shape.withdraw_one_in && uniform(0, *shape.withdraw_one_in - 1) == 0) {
      t.withdraw = static_cast<T>(submit + uniform(0, 600));
    }
    if (shape.image_one_in && uniform(0, *shape.image_one_in - 1) == 0)
      t.image = disk_image{"img-" + std::to_string(i % 3), 600};
    leases.push_back(t);
  }
  return leases;
}

}  // namespace leasehold::testing
