#pragma once

/// \file
/// Disk image assignment for the Haizea paper's image experiments (§4.2): every request
/// gets one image, chosen
///   single  - the same image for all;
///   uniform - uniformly among `images` (37 in the paper);
///   skewed  - 7 images at 10 % each and 30 at 1 % each (the paper's list);
///   weighted - with the user's integer weights, one per image.
/// Every image has the same size (4 GB in the paper).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/lease_terms.hpp"
#include "leasehold/sim/workload/random.hpp"

namespace leasehold::workload {

/// How images are chosen (see the file's description).
enum class image_popularity { single, uniform, skewed, weighted };

/// What assign_images gives the leases.
struct image_assignment {
  image_popularity popularity = image_popularity::single;  ///< how an image is chosen
  std::size_t images = 37;                                 ///< for uniform (skewed always has 37)
  std::vector<std::uint64_t> weights = {};                 ///< for weighted: one per image
  std::int64_t size_mb = 4096;                             ///< every image's size, MB
  std::string prefix = "image-";  ///< ids are prefix + index from 0, e.g. "image-0"
};

/// The popularity weights the assignment uses, one per image.
[[nodiscard]] inline std::vector<std::uint64_t> image_weights(const image_assignment& a) {
  switch (a.popularity) {
    case image_popularity::single:
      return {1};
    case image_popularity::uniform:
      if (a.images == 0) throw invalid_request("image_assignment: uniform over 0 images");
      return std::vector<std::uint64_t>(a.images, 1);
    case image_popularity::skewed: {
      std::vector<std::uint64_t> weights(7, 10);
      weights.resize(37, 1);
      return weights;
    }
    case image_popularity::weighted:
      break;
  }
  std::uint64_t total = 0;
  for (const auto w : a.weights) total += w;
  if (total == 0)
    throw invalid_request("image_assignment: weighted popularity needs a positive weight");
  return a.weights;
}

/// Sets the image of every lease (overwriting any).
template <time_value T>
void assign_images(std::span<lease_terms<T>> leases, const image_assignment& assignment,
                   std::uint64_t seed) {
  if (assignment.size_mb <= 0)
    throw invalid_request(leasehold::detail::describe("image_assignment: size_mb ",
                                                      assignment.size_mb, " must be positive"));
  const auto weights = image_weights(assignment);
  rng random(seed);
  for (auto& lease : leases) {
    const auto index = weights.size() == 1 ? 0 : random.pick(weights);
    lease.image = disk_image{assignment.prefix + std::to_string(index), assignment.size_mb};
  }
}

/// The same over a vector of leases.
template <time_value T>
void assign_images(std::vector<lease_terms<T>>& leases, const image_assignment& assignment,
                   std::uint64_t seed) {
  assign_images(std::span<lease_terms<T>>(leases), assignment, seed);
}

}  // namespace leasehold::workload
