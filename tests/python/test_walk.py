"""Walking a profile (next_change, blocks_in) and changing its total (set_total) on every
Python-bound backend, hand-computed; bad calls raise and change nothing."""

import pytest

import leasehold


def make(name, total=10):
    # The ring's slots are 10 wide over [0, 400); every time below is a multiple of 10.
    if name.startswith("slotted_ring"):
        return getattr(leasehold, name)(total, 10, 40)
    return getattr(leasehold, name)(total)


@pytest.mark.parametrize("name", leasehold.BACKENDS)
def test_next_change_blocks_in_set_total(name):
    # 4 booked over [10, 20), all 10 over [20, 40).
    p = make(name)
    p.reserve(10, 20, 4)
    p.reserve(20, 40, 10)
    assert [p.next_change(t) for t in (0, 15, 25)] == [10, 20, 40]
    assert p.next_change(40) is None
    assert p.blocks_in(5, 30) == [(5, 10, 10), (10, 20, 6), (20, 30, 0)]
    assert p.blocks_in(40, 50) == [(40, 50, 10)]

    before = p.free_blocks()
    with pytest.raises(leasehold.InvalidRequest):
        p.next_change(-1)
    with pytest.raises(leasehold.InvalidRequest, match=r"\[30, 20\)"):
        p.blocks_in(30, 20)
    with pytest.raises(leasehold.InvalidRequest):
        p.blocks_in(10, 10)
    with pytest.raises(leasehold.InsufficientCapacity, match="at 20"):
        p.set_total(9)
    with pytest.raises(leasehold.InvalidRequest):
        p.set_total(0)
    if name == "slotted_ring":
        with pytest.raises(leasehold.OutOfHorizon):
            p.next_change(400)
    assert p.free_blocks() == before and p.total == 10

    p.set_total(12)
    assert p.total == 12 and [p.free_at(t) for t in (0, 15, 25)] == [12, 8, 2]
    p.set_total(10)
    assert p.free_blocks() == before


@pytest.mark.parametrize("name", leasehold.VECTOR_BACKENDS)
def test_vector_walk_and_total(name):
    p = make(name, (4, 8, 2, 1))
    p.reserve(10, 20, (1, 8, 0, 0))
    assert p.next_change(0) == 10
    assert p.blocks_in(0, 20) == [(0, 10, (4, 8, 2, 1)), (10, 20, (3, 0, 2, 1))]
    with pytest.raises(leasehold.InsufficientCapacity):
        p.set_total((4, 7, 2, 1))
    p.set_total((4, 16, 2, 1))
    assert p.free_at(10) == (3, 8, 2, 1)
