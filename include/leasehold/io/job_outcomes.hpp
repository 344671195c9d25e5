#pragma once

/// \file
/// A lease or an adaptive request as a job_outcome (io/batsim_jobs.hpp): what the per-job
/// files of the experiments write, for a simulator's users to compare with Batsim's or another
/// simulator's jobs.csv.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "leasehold/io/batsim_jobs.hpp"
#include "leasehold/policy/adaptive/placement.hpp"
#include "leasehold/policy/adaptive/request.hpp"
#include "leasehold/policy/lease/lease_record.hpp"

namespace leasehold::io {

/// A lease as a job: the nodes it asked for, its maximum duration as the requested time, its
/// first start and its end (so a suspended lease's execution time includes its suspension,
/// as Batsim's does), success when it is done, and every node it ran on (migrations
/// included). A rejected or withdrawn lease, or one not yet finished, is not a success.
template <time_value T, vector_capacity C>
[[nodiscard]] job_outcome job_outcome_of(const policy::lease::lease_record<T, C>& lease) {
  job_outcome job{.job_id = std::to_string(lease.terms.id),
                  .submission_time = static_cast<std::int64_t>(lease.terms.submit),
                  .requested_number_of_resources = lease.terms.nodes,
                  .requested_time = static_cast<std::int64_t>(lease.terms.duration),
                  .success = lease.state == policy::lease::lease_state::done,
                  .starting_time = std::nullopt,
                  .finish_time = std::nullopt,
                  .allocated_resources = {}};
  if (lease.first_start) job.starting_time = static_cast<std::int64_t>(*lease.first_start);
  if (lease.end && lease.first_start) job.finish_time = static_cast<std::int64_t>(*lease.end);
  for (const auto& s : lease.history)
    job.allocated_resources.insert(job.allocated_resources.end(), s.nodes.begin(), s.nodes.end());
  if (lease.current)
    job.allocated_resources.insert(job.allocated_resources.end(), lease.current->nodes.begin(),
                                   lease.current->nodes.end());
  return job;
}

/// An adaptive request (Netto & Buyya) as a job: R_max resources for T_min = f_mol(R_max)
/// requested; when accepted (`where` not null), its first piece's start and its last piece's
/// end. The adaptive scheduler books a capacity profile, which does not name processors, so
/// allocated_resources stays empty.
template <time_value T, scalar_capacity C>
[[nodiscard]] job_outcome job_outcome_of(const policy::adaptive::adaptive_request<T, C>& request,
                                         const policy::adaptive::placement<T, C>* where) {
  job_outcome job{
      .job_id = std::to_string(request.id),
      .submission_time = static_cast<std::int64_t>(request.submit),
      .requested_number_of_resources = static_cast<std::int64_t>(request.r_max),
      .requested_time = request.f_mol ? static_cast<std::int64_t>(request.f_mol(request.r_max)) : 0,
      .success = where != nullptr && !where->pieces.empty(),
      .starting_time = std::nullopt,
      .finish_time = std::nullopt,
      .allocated_resources = {}};
  if (job.success) {
    job.starting_time = static_cast<std::int64_t>(where->start());
    job.finish_time = static_cast<std::int64_t>(where->completion());
  }
  return job;
}

}  // namespace leasehold::io
