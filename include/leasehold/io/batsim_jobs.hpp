#pragma once

/// \file
/// Per-job results in the column layout of Batsim's `_jobs.csv` (Dutot, Mercier, Poquet &
/// Richard, "Batsim: a Realistic Language-Independent Resources and Jobs Management Systems
/// Simulator", JSSPP 2016), so that the tools written for Batsim's output (evalys, pandas
/// notebooks) read ours unchanged:
///
///   job_id, submission_time, requested_number_of_resources, requested_time, success,
///   starting_time, execution_time, finish_time, waiting_time, turnaround_time, stretch,
///   allocated_resources
///
/// with Batsim's definitions: execution_time = finish_time - starting_time (so it includes any
/// suspension between them), waiting_time = starting_time - submission_time, turnaround_time =
/// finish_time - submission_time, stretch = turnaround_time / execution_time, and
/// allocated_resources the machines as an interval set ("0-3 7"). A job that never started
/// (rejected, withdrawn) has success 0 and empty times; a quantity that is undefined (the
/// stretch of a job that ran for no time) is left empty rather than invented.
///
/// A table may carry further columns after Batsim's, the same for every row of one run (the
/// library version, the seed, the workload and the configuration), so that rows from many runs
/// can be concatenated and still be told apart. Rows are returned as strings: the caller
/// writes and flushes each as its run finishes.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "leasehold/core/error.hpp"
#include "leasehold/io/detail/csv_field.hpp"

namespace leasehold::io {

/// One job as it fared. Times are in the simulation's seconds.
struct job_outcome {
  std::string job_id;                              ///< As Batsim names it, "workload!id".
  std::int64_t submission_time = 0;                ///< When the job was submitted.
  std::int64_t requested_number_of_resources = 0;  ///< How many machines it asked for.
  std::int64_t requested_time = 0;                 ///< Its walltime request.
  bool success = false;                            ///< True when it ran to completion.
  std::optional<std::int64_t> starting_time;       ///< empty: never started
  std::optional<std::int64_t> finish_time;         ///< empty: did not finish
  /// The machines it ran on; empty where the scheduler counts resources without naming them
  /// (a capacity profile such as free_list), which Batsim's layout cannot express otherwise.
  std::vector<std::size_t> allocated_resources;
};

/// Batsim's column names, in Batsim's order.
inline constexpr std::array<std::string_view, 12> batsim_job_columns{
    "job_id",          "submission_time", "requested_number_of_resources",
    "requested_time",  "success",         "starting_time",
    "execution_time",  "finish_time",     "waiting_time",
    "turnaround_time", "stretch",         "allocated_resources"};

/// Machine ids as Batsim's interval set: sorted, duplicates merged, runs written "a-b",
/// intervals separated by spaces ("0-3 7 9-10").
[[nodiscard]] inline std::string interval_set(std::vector<std::size_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string text;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!text.empty()) text += ' ';
    text += std::to_string(ids[i]);
    if (j > i) text += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return text;
}

/// The layout of one per-job file: Batsim's columns, then `context_columns` (for example
/// {"workload_name", "configuration", "seed", "leasehold_version"}).
class batsim_job_table {
 public:
  /// A context column that is empty, repeats another or takes one of Batsim's names is a
  /// leasehold::error naming it.
  explicit batsim_job_table(std::vector<std::string> context_columns = {})
      : context_(std::move(context_columns)) {
    for (std::size_t i = 0; i < context_.size(); ++i) {
      const std::string& name = context_[i];
      if (name.empty())
        throw error("batsim_job_table: context column " + std::to_string(i) + " has an empty name");
      if (std::find(batsim_job_columns.begin(), batsim_job_columns.end(), name) !=
          batsim_job_columns.end())
        throw error("batsim_job_table: context column \"" + name + "\" is one of Batsim's own");
      if (std::find(context_.begin(), context_.begin() + static_cast<std::ptrdiff_t>(i), name) !=
          context_.begin() + static_cast<std::ptrdiff_t>(i))
        throw error("batsim_job_table: context column \"" + name + "\" given twice");
    }
  }

  /// The names of the extra columns, in order, as given to the constructor.
  [[nodiscard]] const std::vector<std::string>& context_columns() const noexcept {
    return context_;
  }

  /// The header line, with its line break.
  [[nodiscard]] std::string header() const {
    std::string line;
    for (const std::string_view name : batsim_job_columns) {
      if (!line.empty()) line += ',';
      line += name;
    }
    for (const std::string& name : context_) {
      line += ',';
      detail::append_csv_field(line, name);
    }
    line += '\n';
    return line;
  }

  /// One job's line, with its line break. `context` holds one value per context column.
  /// Inconsistent times (a finish without a start, a start before the submission, a finish
  /// before the start, a success that never finished) and a context of the wrong size are a
  /// leasehold::error naming the job and the values.
  [[nodiscard]] std::string row(const job_outcome& job,
                                std::span<const std::string> context = {}) const {
    const auto fail = [&job](const std::string& why) {
      return error("job " + job.job_id + ": " + why);
    };
    if (context.size() != context_.size())
      throw fail(std::to_string(context.size()) + " context values for " +
                 std::to_string(context_.size()) + " context columns");
    if (job.requested_number_of_resources < 0 || job.requested_time < 0)
      throw fail("negative request (" + std::to_string(job.requested_number_of_resources) +
                 " resources for " + std::to_string(job.requested_time) + " s)");
    if (job.finish_time && !job.starting_time) throw fail("a finish time without a start");
    if (job.starting_time && *job.starting_time < job.submission_time)
      throw fail("starts at " + std::to_string(*job.starting_time) + ", before its submission at " +
                 std::to_string(job.submission_time));
    if (job.finish_time && *job.finish_time < *job.starting_time)
      throw fail("finishes at " + std::to_string(*job.finish_time) + ", before its start at " +
                 std::to_string(*job.starting_time));
    if (job.success && !job.finish_time) throw fail("a success without a finish time");

    std::string line;
    detail::append_csv_field(line, job.job_id);
    const auto number = [&line](std::optional<std::int64_t> value) {
      line += ',';
      if (value) line += std::to_string(*value);
    };
    number(job.submission_time);
    number(job.requested_number_of_resources);
    number(job.requested_time);
    line += job.success ? ",1" : ",0";
    number(job.starting_time);
    const auto difference = [](std::optional<std::int64_t> a,
                               std::optional<std::int64_t> b) -> std::optional<std::int64_t> {
      if (!a || !b) return std::nullopt;
      return *a - *b;
    };
    const std::optional<std::int64_t> execution = difference(job.finish_time, job.starting_time);
    const std::optional<std::int64_t> turnaround =
        difference(job.finish_time, std::optional<std::int64_t>(job.submission_time));
    number(execution);
    number(job.finish_time);
    number(difference(job.starting_time, std::optional<std::int64_t>(job.submission_time)));
    number(turnaround);
    line += ',';
    if (execution && *execution > 0) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.10g",
                    static_cast<double>(*turnaround) / static_cast<double>(*execution));
      line += buffer;
    }
    line += ',';
    detail::append_csv_field(line, interval_set(job.allocated_resources));
    for (const std::string& value : context) {
      line += ',';
      detail::append_csv_field(line, value);
    }
    line += '\n';
    return line;
  }

 private:
  std::vector<std::string> context_;
};

}  // namespace leasehold::io
