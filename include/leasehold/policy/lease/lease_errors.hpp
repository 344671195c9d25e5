#pragma once

/// \file
/// The lease scheduler's errors beyond the core ones: a lease it refuses to consider
/// (submit(), withdraw(), release()), and a saved state it refuses to rebuild a scheduler from
/// because one lease record contradicts the rules the scheduler makes records by
/// (lease_scheduler::import_state(), and through it io::load_scheduler).

#include <cstddef>
#include <string>

#include "leasehold/core/error.hpp"

namespace leasehold::policy::lease {

/// A lease the scheduler refuses to consider at all: malformed terms, a duplicate id, time
/// running backwards. Nothing changes when it is thrown. field() names the member at fault as a
/// path from the lease record ("terms.per_node", "current.finish", "history"), or is empty
/// when no one member is (time running backwards, an unknown id).
struct invalid_lease : invalid_request {
  using invalid_request::invalid_request;
  /// `what`, naming the member at fault (a string literal; "" for none).
  invalid_lease(const std::string& what, const char* field)
      : invalid_request(what), field_(field) {}

  /// The member at fault as a path from the lease record, or "".
  [[nodiscard]] const char* field() const noexcept { return field_; }

 private:
  const char* field_ = "";  // a string literal: copying the exception cannot throw
};

/// import_state() refuses a lease record: which one (its index in the state's leases, or in
/// its finished records) and, through field(), which of its members. The message names the
/// lease by id.
struct invalid_lease_record : invalid_lease {
  /// `what` about record `index` of the leases (or, when `finished`, of the finished
  /// records), naming its member `field`.
  invalid_lease_record(const std::string& what, const char* field, bool finished, std::size_t index)
      : invalid_lease(what, field), finished_(finished), index_(index) {}

  /// Whether the record is one of scheduler_state::finished rather than of leases.
  [[nodiscard]] bool finished() const noexcept { return finished_; }
  /// The record's index.
  [[nodiscard]] std::size_t index() const noexcept { return index_; }

 private:
  bool finished_;
  std::size_t index_;
};

}  // namespace leasehold::policy::lease
