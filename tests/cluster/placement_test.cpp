// cluster/placement.hpp: a gang request's default window is the whole time axis; placements
// compare and print by value; keep_preferred keeps the `count` nodes with the smallest keys,
// ties in node order, and hands them back in increasing order.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include <leasehold/cluster/placement.hpp>

namespace placement_test {

using namespace leasehold;
using namespace leasehold::cluster;
using T = std::int64_t;

TEST_CASE("placement: gang requests and placements by value") {
  const gang_request<T, T> r{.nodes = 3, .per_node = 2, .duration = 10};
  CHECK(r.window.begin == std::numeric_limits<T>::min());
  CHECK(r.window.end == std::numeric_limits<T>::max());
  const placement<T, T> p{{5, 15}, 2, {0, 3, 4}};
  CHECK(p.start() == 5);
  CHECK(p == placement<T, T>{{5, 15}, 2, {0, 3, 4}});
  CHECK(p != placement<T, T>{{5, 15}, 2, {0, 3, 5}});
  std::ostringstream out;
  out << p;
  CHECK(out.str().find("on nodes [0, 3, 4]") != std::string::npos);
  std::ostringstream gang;
  gang << r;
  CHECK(gang.str().find("3 nodes x 2") != std::string::npos);
}

TEST_CASE("placement: keep_preferred keeps the smallest keys, ties in node order") {
  // keys: node 0 -> 2, 1 -> 1, 2 -> 2, 3 -> 0, 4 -> 1
  const std::vector<int> key{2, 1, 2, 0, 1};
  std::vector<std::size_t> nodes{0, 1, 2, 3, 4};
  keep_preferred(nodes, 3, [&key](std::size_t n) { return key[n]; });
  CHECK(nodes == std::vector<std::size_t>{1, 3, 4});
  std::vector<std::size_t> tie{0, 1, 2, 3, 4};
  keep_preferred(tie, 4, [&key](std::size_t n) { return key[n]; });
  CHECK(tie == std::vector<std::size_t>{0, 1, 3, 4});  // node 0 before node 2 among the 2s
  std::vector<std::size_t> any{4, 2, 0};
  keep_preferred(any, 2, no_preference{});
  CHECK(any == std::vector<std::size_t>{2, 4});  // the first two as given, in order
}

}  // namespace placement_test
