#pragma once

/// \file
/// leasehold::set_total(profile, new_total): change the capacity of a resource in place, every
/// time keeping what is booked there (resizable_availability, availability/concept.hpp). Every
/// shipped backend has the member; this is the spelling generic code uses, and the concept in
/// its head says what a user's backend must add to be resized.

#include "leasehold/availability/concept.hpp"

namespace leasehold {

/// Changes the profile's total to new_total, keeping what is booked at every time (so every
/// free value moves by the difference); calls the member, so its errors and strong guarantee
/// are the backend's (insufficient_capacity when more than new_total is booked somewhere).
template <resizable_availability A>
void set_total(A& profile, const typename A::capacity_type& new_total) {
  profile.set_total(new_total);
}

}  // namespace leasehold
