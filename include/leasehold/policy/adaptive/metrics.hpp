#pragma once

/// \file
/// What Netto & Buyya measure (§4.2): the provider's profit (Fig. 4, 7), the mean completion
/// (response) time of the accepted requests (Fig. 5), the rejected requests (Fig. 6), and how
/// the scheduler reshaped moldable requests (Fig. 8: the share that used fewer than R_max;
/// Fig. 9: by how much, 0 % at R_max and 100 % at R_min).

#include <cstddef>

namespace leasehold::policy::adaptive {

/// What an adaptive::scheduler run measured (Netto & Buyya §4): requests accepted, rejected,
/// reshaped and split, profit and response times.
struct adaptive_metrics {
  std::size_t submitted = 0;  ///< well-formed requests offered to the scheduler
  /// Requests that got a placement meeting their deadline.
  std::size_t accepted = 0;
  std::size_t rejected = 0;  ///< no placement met the hard deadline
  double profit = 0.0;       ///< sum of the prices of the accepted requests' final placements
  /// Mean of completion - submission over the accepted requests, in ticks: the paper's
  /// "average request finish time" / "response time".
  double mean_response = 0.0;

  std::size_t moldable_accepted = 0;  ///< accepted requests with more than one allowed R
  std::size_t reshaped = 0;           ///< ... of which some piece used fewer than R_max
  /// Over the reshaped requests: (R_max - R_used) / (R_max - R_min), R_used weighted by the
  /// share of the execution each piece covers; 1 means every piece ran on R_min.
  double mean_modification = 0.0;

  std::size_t preemptive_accepted = 0;  ///< accepted requests with N > 1 and I < 100 %
  std::size_t split = 0;                ///< ... that run as more than one sub-request
  double mean_pieces = 0.0;             ///< sub-requests per split request

  /// Arrivals at which Missing-Deadline-First adopted a new order that moved a waiting request.
  std::size_t reschedules = 0;

  /// reshaped / moldable_accepted: the share of moldable requests that ran on fewer than R_max
  /// (0 when none was accepted).
  [[nodiscard]] double reshaped_share() const noexcept {
    return moldable_accepted == 0
               ? 0.0
               : static_cast<double>(reshaped) / static_cast<double>(moldable_accepted);
  }
  /// rejected / submitted (0 when nothing was submitted).
  [[nodiscard]] double rejected_share() const noexcept {
    return submitted == 0 ? 0.0 : static_cast<double>(rejected) / static_cast<double>(submitted);
  }
};

}  // namespace leasehold::policy::adaptive
