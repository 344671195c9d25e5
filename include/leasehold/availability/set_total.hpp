#pragma once

// leasehold::set_total(profile, new_total): change the capacity of a resource in place, every
// time keeping what is booked there (resizable_availability, availability/concept.hpp). Every
// shipped backend has the member; this is the spelling generic code uses, and the concept in
// its head says what a user's backend must add to be resized.

#include "leasehold/availability/concept.hpp"

namespace leasehold {

template <resizable_availability A>
void set_total(A& profile, const typename A::capacity_type& new_total) {
  profile.set_total(new_total);
}

}  // namespace leasehold
