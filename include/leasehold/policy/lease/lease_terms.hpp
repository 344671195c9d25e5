#pragma once

/// \file
/// The lease vocabulary (lease_terms, lease_kind, disk_image, node_resources and its component
/// indices, resource_layout) under the names the lease scheduler's users know. The types live
/// in core/lease_terms.hpp because workloads produce them and io writes them as well as this
/// policy consuming them (docs/architecture.md); these using-declarations name the same
/// entities, so leasehold::lease_terms and leasehold::policy::lease::lease_terms are one type.

#include "leasehold/core/lease_terms.hpp"

namespace leasehold::policy::lease {

using leasehold::node_component::cpu;
using leasehold::disk_image;
using leasehold::node_component::disk_mb;
using leasehold::lease_kind;
using leasehold::lease_terms;
using leasehold::node_component::memory_mb;
using leasehold::node_component::network_mbps;
using leasehold::node_resources;
using leasehold::resource_layout;

}  // namespace leasehold::policy::lease
