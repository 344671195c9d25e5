#pragma once

// Member-wise swap, written once for every class that swaps its parts one by one (the
// backends, the booking ledger, their pools and indexes). Each class still declares its own
// `swap` and copy-and-swap `operator=`, since C++ wants those in the class itself; what they
// share is the rule for one member: a member with a swap() of its own (a node pool, a
// Boost.Intrusive container, a std container) uses it, anything else the ADL / std::swap.
// None of those throws (Boost.Intrusive's swaps exchange pointers but are not declared
// noexcept, hence no static check), and the callers are noexcept.

#include <utility>

namespace leasehold::detail {

template <class M>
void swap_member(M& a, M& b) noexcept {
  if constexpr (requires { a.swap(b); }) {
    a.swap(b);
  } else {
    using std::swap;
    swap(a, b);
  }
}

/// Swaps the named members of a and b, in the order given; never throws.
template <class Owner, class... M>
void swap_members(Owner& a, Owner& b, M Owner::*... members) noexcept {
  (swap_member(a.*members, b.*members), ...);
}

}  // namespace leasehold::detail
