// Quickstart: a 128-processor cluster kept as a free_list. Book a few jobs, ask for the
// earliest start of another, and print the free profile as a table.

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>

#include <leasehold/leasehold.hpp>

#include "cli.hpp"

int main(int argc, char** argv) {
  using namespace leasehold;

  CLI::App app{"Books three jobs on a 128-processor free_list and prints the free profile."};
  if (const auto code = examples::parse(app, argc, argv)) return *code;

  // 128 units (processors), time in seconds from now.
  free_list<std::int64_t, int> cluster(128);

  // Three jobs booked at fixed times: [start, end) and processors.
  cluster.reserve({0, 3600}, 96);      // a large job for the first hour
  cluster.reserve({1800, 5400}, 32);   // overlapping it for half an hour
  cluster.reserve({7200, 9000}, 128);  // a full-machine reservation

  // When can 64 processors run for 45 minutes, starting no earlier than 10 minutes from now?
  const request<std::int64_t, int> job{
      .amount = 64, .duration = 2700, .window = {600, forever<std::int64_t>}};
  const std::optional<std::int64_t> start = cluster.earliest_fit(job);

  std::cout << "64 processors for 2700 s, not before 600 s: ";
  if (start) {
    std::cout << "earliest start " << *start << " s\n";
    cluster.reserve({*start, *start + job.duration}, job.amount);
  } else {
    std::cout << "no start in the window\n";
  }

  std::cout << "\n" << std::setw(10) << "from" << std::setw(12) << "to" << std::setw(8) << "free\n";
  for (const auto& block : cluster.free_blocks()) {
    std::cout << std::setw(10) << block.span.begin << std::setw(12);
    if (block.span.end == forever<std::int64_t>)
      std::cout << "forever";
    else
      std::cout << block.span.end;
    std::cout << std::setw(7) << block.free << '\n';
  }
  std::cout << "\n" << cluster.block_count() << " free blocks\n";
  return start ? 0 : 1;
}
