// sim::event_queue: time order, ties in push order, and errors on an empty queue.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/sim/event_queue.hpp>

using namespace leasehold;

TEST_CASE("event_queue: events come out by time, ties in push order") {
  sim::event_queue<std::int64_t, std::string> q;
  q.push(30, "c");
  q.push(10, "a1");
  q.push(20, "b");
  q.push(10, "a2");
  q.push(10, "a3");
  std::vector<std::string> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  CHECK(order == std::vector<std::string>{"a1", "a2", "a3", "b", "c"});
  CHECK_THROWS_WITH_AS(q.pop(), doctest::Contains("empty"), invalid_request);
  CHECK_THROWS_AS((void)q.top(), invalid_request);
}
