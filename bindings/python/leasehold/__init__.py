"""leasehold: planning-based resource management from Python.

Availability profiles (free_list, free_tree, capacity_tree, reference, slotted_ring; the
*4 variants take 4-tuples of capacity; MultiProfile holds resources named at run time) from
the header-only C++20 library, each with bookings by id and a plan end, and with its error
hierarchy: Error > InvalidRequest, InsufficientCapacity, InvalidRelease, OutOfHorizon.
"""

from ._leasehold import *  # noqa: F401,F403
from ._leasehold import __version__, TIME_MIN, TIME_MAX  # noqa: F401

BACKENDS = ("free_list", "free_tree", "capacity_tree", "reference", "slotted_ring")
VECTOR_BACKENDS = ("free_list4", "free_tree4", "reference4", "slotted_ring4")
