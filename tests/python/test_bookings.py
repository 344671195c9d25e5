"""Bookings with identity, the plan end, copies and equality on every Python-bound backend
(each class is the backend wrapped in leasehold::bookings). Hand-computed expectations; every
bad call raises the right error and changes nothing (blocks, bookings and next id)."""

import copy

import pytest

import leasehold


def make(name, total=10, origin=0):
    # The ring's slots are 10 wide; every time below is a multiple of 10.
    if name.startswith("slotted_ring"):
        return getattr(leasehold, name)(total, 10, 40, origin)
    return getattr(leasehold, name)(total, origin)


def state(p):
    return (p.free_blocks(), p.bookings(), p.next_booking_id, p.plan_end)


@pytest.mark.parametrize("name", leasehold.BACKENDS)
def test_book_shrink_release_by_id(name):
    p = make(name)
    assert p.next_booking_id == 1 and p.booking_count() == 0
    assert p.book(0, 20, 4) == 1
    assert p.book(10, 30, 6) == 2
    assert p.book(40, 60, 0) == 3
    assert [p.free_at(t) for t in (0, 10, 20, 50)] == [6, 0, 4, 10]
    assert p.bookings() == [(1, 0, 20, 4), (2, 10, 30, 6), (3, 40, 60, 0)]
    assert p.find_booking(2) == (2, 10, 30, 6)
    assert p.find_booking(99) is None and p.find_booking(0) is None
    assert p.booking_count() == 3 and p.next_booking_id == 4

    before = state(p)
    with pytest.raises(leasehold.InsufficientCapacity, match=r"\[10, 20\)"):
        p.book(10, 20, 1)
    with pytest.raises(leasehold.InvalidRequest, match="-1"):
        p.book(0, 20, -1)
    with pytest.raises(leasehold.InvalidRequest, match="11"):
        p.book(40, 50, 11)
    with pytest.raises(leasehold.InvalidRelease, match="booking #99"):
        p.release_booking(99)
    with pytest.raises(leasehold.InvalidRelease, match="holds only 6"):
        p.shrink_booking(2, 7)
    with pytest.raises(leasehold.InvalidRelease):
        p.shrink_booking(2, -1)
    with pytest.raises(leasehold.InvalidRelease):
        p.shrink_booking(99, 1)
    with pytest.raises(TypeError):
        p.release_booking(-1)
    assert state(p) == before

    assert p.shrink_booking(2, 2) is False
    assert p.free_at(20) == 6 and p.find_booking(2) == (2, 10, 30, 4)
    assert p.shrink_booking(2, 4) is True
    assert p.find_booking(2) is None and p.free_at(20) == 10
    with pytest.raises(leasehold.InvalidRelease, match="booking #2"):
        p.release_booking(2)
    p.release_booking(1)
    assert p.free_at(0) == 10
    # Anonymous bookings hold capacity but no id.
    p.reserve(0, 10, 3)
    assert p.booking_count() == 1 and p.next_booking_id == 4
    # advance_to forgets #3 (ends at 60) and keeps #4, which spans 60.
    assert p.book(50, 90, 2) == 4
    p.advance_to(60)
    assert p.bookings() == [(4, 50, 90, 2)]
    assert p.free_at(60) == 8


@pytest.mark.parametrize("name", leasehold.BACKENDS)
def test_plan_end_bounds_bookings_and_searches(name):
    p = make(name)
    assert p.plan_end is None
    p.book(0, 50, 2)
    before = state(p)
    with pytest.raises(leasehold.InvalidRequest, match="set_plan_end\\(40\\)"):
        p.plan_end = 40
    with pytest.raises(leasehold.InvalidRequest, match="origin"):
        p.plan_end = 0
    assert state(p) == before
    p.plan_end = 100
    assert p.plan_end == 100
    before = state(p)
    with pytest.raises(leasehold.InvalidRequest, match="plan end 100"):
        p.book(90, 110, 1)
    with pytest.raises(leasehold.InvalidRequest, match="plan end 100"):
        p.reserve(90, 110, 1)
    assert state(p) == before
    assert p.earliest_fit(10, 50) == 50
    assert p.earliest_fit(10, 51) is None
    assert p.earliest_fit(1, 200) is None  # a window too short: no answer, not an error
    with pytest.raises(leasehold.InvalidRequest):
        p.earliest_fit(11, 5)
    p.plan_end = None
    assert p.plan_end is None and p.earliest_fit(10, 51) == 50


@pytest.mark.parametrize("name", leasehold.BACKENDS)
def test_copies_are_deep_and_compare_equal(name):
    p = make(name)
    p.book(0, 10, 4)
    p.reserve(20, 30, 1)
    p.plan_end = 300
    for q in (copy.copy(p), copy.deepcopy(p)):
        assert q == p and not (q != p)
        assert q.book(40, 50, 1) == 2
        assert p.booking_count() == 1 and q != p
        q.release_booking(2)
        assert q != p  # same blocks and bookings, but the next id differs
    q = copy.copy(p)
    q.plan_end = 200
    assert q != p
    assert p != make(name) and p != "free_tree" and p != None  # noqa: E711
    other = make("reference" if name != "reference" else "free_list")
    assert make(name) != other


@pytest.mark.parametrize("name", leasehold.VECTOR_BACKENDS)
def test_vector_bookings_component_by_component(name):
    p = make(name, (4, 8, 2, 1))
    assert p.book(0, 10, (1, 2, 0, 1)) == 1
    assert p.find_booking(1) == (1, 0, 10, (1, 2, 0, 1))
    before = state(p)
    with pytest.raises(leasehold.InvalidRelease):
        p.shrink_booking(1, (0, 3, 0, 0))
    assert state(p) == before
    assert p.shrink_booking(1, (1, 0, 0, 0)) is False
    assert p.free_at(0) == (4, 6, 2, 0)
    assert p.shrink_booking(1, (0, 2, 0, 1)) is True
    assert p.bookings() == [] and p.free_at(0) == (4, 8, 2, 1)
    assert copy.copy(p) == p
