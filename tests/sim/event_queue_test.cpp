// sim::event_queue: time order, ties in push order, and errors on an empty queue.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/sim/event_queue.hpp>

namespace event_queue_test {

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

TEST_CASE("event_queue: floating-point times order between ticks; NaN is refused") {
  // The workspace simulation's ends fall between ticks (the link shares its bandwidth).
  sim::event_queue<double, int> q;
  q.push(2.5, 1);
  q.push(0.25, 2);
  q.push(2.5, 3);
  CHECK_THROWS_WITH_AS(q.push(std::nan(""), 4), "event_queue::push: time nan is not a number",
                       invalid_request);
  CHECK(q.size() == 3);
  std::vector<int> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  CHECK(order == std::vector<int>{2, 1, 3});
}

}  // namespace event_queue_test
