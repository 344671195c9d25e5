#pragma once

/// \file
/// The umbrella header: everything in namespace leasehold that DESIGN.md promises.

#include "leasehold/version.hpp"

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/dynamic_resources.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/file_error.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/resource_names.hpp"
#include "leasehold/core/time.hpp"

#include "leasehold/availability/bookings.hpp"
#include "leasehold/availability/capacity_tree.hpp"
#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/free_tree.hpp"
#include "leasehold/availability/latest_fit.hpp"
#include "leasehold/availability/reference.hpp"
#include "leasehold/availability/set_total.hpp"
#include "leasehold/availability/slotted_ring.hpp"
#include "leasehold/availability/walk.hpp"
