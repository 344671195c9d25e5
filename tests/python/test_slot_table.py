"""leasehold.slot_table: the C test's hand-computed gang fits, from Python."""

import pytest

import leasehold


@pytest.mark.parametrize("vector", [False, True])
def test_gang_fits_and_all_or_nothing(vector):
    def c(x):
        return (x, x, x, x) if vector else x

    t = (leasehold.slot_table4 if vector else leasehold.slot_table)(3, c(4))
    assert t.node_count == 3
    t.reserve(0, 10, c(4), [0])
    # Two nodes of 3 fit at once on nodes 1 and 2; three must wait for node 0 at 10.
    assert t.earliest_fit(2, c(3), 5) == (0, [1, 2])
    assert t.earliest_fit(3, c(3), 5) == (10, [0, 1, 2])
    assert t.earliest_fit(3, c(3), 5, 0, 14) is None
    # A node id out of range: refused, and node 1 is not booked either.
    with pytest.raises(leasehold.InvalidRequest, match="7"):
        t.reserve(0, 10, c(1), [1, 7])
    assert t.free_at(1, 0) == c(4)
    with pytest.raises(leasehold.InsufficientCapacity, match="node 0"):
        t.reserve(0, 10, c(1), [1, 0])
    assert t.free_at(1, 0) == c(4)
    with pytest.raises(leasehold.InvalidRelease):
        t.release(0, 10, c(1), [1])
    assert t.free_blocks(0) == [(0, 10, c(0)), (10, leasehold.TIME_MAX, c(4))]
    t.release(0, 10, c(4), [0])
    t.advance_to(5)
    assert t.origin == 5
    t.validate()
