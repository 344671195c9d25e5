#pragma once

/// \file
/// A synthetic batch workload calibrated against the 30-day SDSC Blue Horizon extract the
/// Haizea paper uses (5,545 requests; the paper reports 66.85 % asking for at most one
/// hour and 64.09 % for at most four nodes). It produces an SWF log, so that everything a
/// real log goes through (to_best_effort, extract, scale_load, writing) applies unchanged.
/// docs/workloads.md shows the model next to the extract's statistics.
///
/// The model (every weight below is an integer, every draw exact: see random.hpp):
///   - arrivals: `jobs` submit times over [0, span). A day is drawn with the weekly weights
///     (day 0 is `first_weekday`), an hour with the daily-cycle weights, a second uniformly
///     in the hour; the times are then sorted. This is a non-homogeneous Poisson process
///     conditioned on its count, with the extract's daily and weekly cycles.
///   - size: a power-of-two class 2^k is drawn with the extract's class weights; with the
///     non-power weight instead, an octave k is drawn with the extract's non-power octave
///     weights and the size is uniform strictly between 2^(k-1) and 2^k. Sizes are capped
///     at max_nodes.
///   - requested time: one of the round values users pick (the extract's 24 most common,
///     with their counts), or log-uniform in [60 s, 1 h] or (1 h, 36 h] with the extract's
///     weights for the remaining values.
///   - run time: a share of the request drawn from five bins of the extract's run/request
///     ratio (log-uniform inside each bin); 10 % of jobs run into their limit. Size,
///     requested time and the ratio are drawn independently: the model does not carry the
///     extract's correlation of long jobs with large ones, so it offers about half the
///     extract's work (docs/workloads.md).
///   - cancelled while waiting: with the extract's 437 / 5,545 share, run time -1,
///     status 5, and a wait log-uniform in [1 s, 1 day] (after which the user gave up).

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/sim/workload/random.hpp"
#include "leasehold/sim/workload/swf.hpp"

namespace leasehold::workload {

/// A value drawn with a relative weight.
struct weighted_value {
  std::int64_t value;    ///< the value
  std::uint64_t weight;  ///< its weight, relative to the others'
};

/// The statistical model of the batch workload generator, fitted to the Blue Horizon extract
/// the Haizea paper used (the defaults are the extract's counts and shares).
struct batch_model {
  std::size_t jobs = 5'545;         ///< how many jobs to draw
  std::int64_t span = 30 * 86'400;  ///< the submit times' span, s
  /// Submissions per hour of the day (local time), hour 0 first: the extract's counts.
  std::array<std::uint64_t, 24> daily_cycle = {256, 164, 151, 124, 91,  91,  111, 217,
                                               338, 168, 296, 317, 308, 472, 374, 366,
                                               301, 275, 240, 258, 164, 145, 166, 152};
  /// Submissions per weekday, Sunday first: the extract's counts per occurrence of the day.
  std::array<std::uint64_t, 7> weekly_cycle = {91, 157, 254, 223, 213, 296, 89};
  int first_weekday = 0;         ///< weekday of time 0 (the extract starts on a Sunday)
  std::int64_t first_hour = 17;  ///< local hour of time 0 (the extract starts at 17:14)
  /// Jobs of size 2^k for k = 0..7 (1 to 128 nodes).
  std::array<std::uint64_t, 8> power_of_two = {1425, 702, 1253, 530, 767, 275, 74, 21};
  std::uint64_t non_power = 498;  ///< jobs of any size between powers of two
  /// Jobs of a size strictly between 2^(k-1) and 2^k, for k = 1..8 (k = 1 has none).
  std::array<std::uint64_t, 8> non_power_classes = {0, 11, 200, 144, 85, 18, 31, 9};
  std::int64_t max_nodes = 144;  ///< the largest job, the cluster's size
  /// The round requested times of the extract with their counts; `other_short` weighs a
  /// log-uniform draw in [min_request, 3600], `other_long` one in [3601, max_request] (the
  /// extract's other values: 23 of at most an hour, 150 longer).
  std::vector<weighted_value> requested_times = {
      {300, 1516}, {3600, 1074}, {64800, 396}, {2700, 331},  {600, 314},   {7200, 231},
      {1200, 220}, {14400, 210}, {36000, 127}, {43200, 113}, {18000, 104}, {1800, 102},
      {57600, 93}, {28800, 88},  {64500, 71},  {900, 70},    {10800, 67},  {21600, 51},
      {5400, 48},  {11400, 41},  {6000, 36},   {3300, 31},   {20000, 20},  {2400, 18}};
  std::uint64_t other_short = 23;  ///< weight of a requested time of at most an hour not listed
  std::uint64_t other_long = 150;  ///< weight of a longer requested time not listed
  std::int64_t min_request = 60;   ///< the shortest requested time, s
  std::int64_t max_request = 36 * 3600;  ///< Blue Horizon's queue limit
  /// Run time / requested time in 1e-5 units: bins [lo, hi], drawn with ratio_weights.
  std::array<std::array<std::int64_t, 2>, 5> ratio_bins = {
      {{100, 999}, {1000, 9999}, {10000, 49999}, {50000, 94999}, {95000, 100000}}};
  /// The bins' weights: the extract's shares, in per mille of jobs with a known run time.
  std::array<std::uint64_t, 5> ratio_weights = {102, 282, 397, 113, 106};
  /// Jobs cancelled while waiting, as numerator / denominator.
  std::uint64_t cancelled = 437;
  std::uint64_t cancelled_of = 5'545;  ///< the denominator of `cancelled`
};

namespace detail {

inline void check(const batch_model& model) {
  if (model.span <= 0 || model.max_nodes <= 0 || model.min_request < 1 ||
      model.min_request > 3600 || model.max_request <= 3600 || model.first_weekday < 0 ||
      model.first_weekday > 6 || model.first_hour < 0 || model.first_hour > 23 ||
      model.cancelled > model.cancelled_of || model.cancelled_of == 0)
    throw invalid_request(leasehold::detail::describe(
        "batch_model: span ", model.span, ", max_nodes ", model.max_nodes, ", requests [",
        model.min_request, ", ", model.max_request, "], first_weekday ", model.first_weekday,
        ", first_hour ", model.first_hour, ", cancelled ", model.cancelled, "/", model.cancelled_of,
        ": out of range"));
}

}  // namespace detail

/// Generates the workload for `seed`: the same seed and model give the same log on every
/// platform. Job numbers are 1..jobs in submit order; queue 1, user -1, etc.
[[nodiscard]] inline swf::log generate_batch(const batch_model& model, std::uint64_t seed) {
  detail::check(model);
  rng random(seed);
  swf::log log;
  log.head.max_nodes = model.max_nodes;
  log.head.max_procs = model.max_nodes;
  log.head.comments.push_back("Generated: leasehold batch_model, seed " + std::to_string(seed));

  /// Arrivals: hours with weight day x hour, restricted to [0, span).
  std::vector<std::int64_t> submits;
  submits.reserve(model.jobs);
  const std::int64_t hours = (model.span + model.first_hour * 3600 + 3599) / 3600;
  std::vector<std::uint64_t> hour_weights(static_cast<std::size_t>(hours));
  for (std::int64_t h = 0; h < hours; ++h) {
    const std::int64_t local = h;  // hours since the midnight before time 0
    const auto day = static_cast<std::size_t>((local / 24 + model.first_weekday) % 7);
    hour_weights[static_cast<std::size_t>(h)] =
        model.weekly_cycle[day] * model.daily_cycle[static_cast<std::size_t>(local % 24)];
  }
  const std::int64_t offset = model.first_hour * 3600;
  while (submits.size() < model.jobs) {
    const auto h = static_cast<std::int64_t>(random.pick(hour_weights));
    const std::int64_t t = h * 3600 + random.uniform_int(0, 3599) - offset;
    if (t >= 0 && t < model.span) submits.push_back(t);  // partial first/last hours
  }
  std::sort(submits.begin(), submits.end());

  std::vector<std::uint64_t> request_weights;
  for (const auto& choice : model.requested_times) request_weights.push_back(choice.weight);
  request_weights.push_back(model.other_short);
  request_weights.push_back(model.other_long);
  std::array<std::uint64_t, 9> size_weights{};
  std::copy(model.power_of_two.begin(), model.power_of_two.end(), size_weights.begin());
  size_weights[8] = model.non_power;

  log.records.reserve(model.jobs);
  for (std::size_t i = 0; i < model.jobs; ++i) {
    swf::record job{};
    job.job = static_cast<std::int64_t>(i + 1);
    job.submit = submits[i];

    std::int64_t nodes = 1;
    const auto size_class = random.pick(size_weights);
    if (size_class < 8) {
      nodes = std::int64_t{1} << size_class;
    } else {
      const auto k = 1 + random.pick(model.non_power_classes);
      const std::int64_t high = std::int64_t{1} << k;
      nodes = high / 2 + 1 < high ? random.uniform_int(high / 2 + 1, high - 1) : high;
    }
    nodes = std::min(nodes, model.max_nodes);

    const auto choice = random.pick(request_weights);
    const auto menu = model.requested_times.size();
    const std::int64_t requested = choice < menu ? model.requested_times[choice].value
                                   : choice == menu
                                       ? random.log_uniform_int(model.min_request, 3600)
                                       : random.log_uniform_int(3601, model.max_request);

    std::int64_t run = -1, wait = -1, status = swf::status_completed;
    if (random.chance(model.cancelled, model.cancelled_of)) {
      status = swf::status_cancelled;
      wait = random.log_uniform_int(1, 86'400);
    } else {
      const auto bin = model.ratio_bins[random.pick(model.ratio_weights)];
      const std::int64_t ratio = random.log_uniform_int(std::max<std::int64_t>(bin[0], 1), bin[1]);
      run = std::max<std::int64_t>(1, requested * ratio / 100'000);
    }
    job.wait = wait;
    job.run_time = run;
    job.allocated_procs = run >= 0 ? nodes : -1;
    job.avg_cpu_time = -1;
    job.used_memory = -1;
    job.requested_procs = nodes;
    job.requested_time = requested;
    job.requested_memory = -1;
    job.status = status;
    job.user = job.group = job.executable = -1;
    job.queue = 1;
    job.partition = job.preceding_job = job.think_time = -1;
    log.records.push_back(job);
  }
  return log;
}

}  // namespace leasehold::workload
