"""leasehold.MultiProfile: resources named at run time. Amounts in as dicts by name or
sequences in name order, answers out as dicts in name order; hand-computed expectations, and
every bad call raises and changes nothing."""

import copy

import pytest

import leasehold

TOTALS = {"cores": 64, "memory_mb": 1024, "gpus": 4}
MULTI_BACKENDS = ("free_list", "free_tree", "reference", "slotted_ring")


def make(name, totals=TOTALS):
    if name == "slotted_ring":
        return leasehold.MultiProfile(name, totals, dt=10, slots=40)
    return leasehold.MultiProfile(name, totals, origin=0)


def state(p):
    return (p.total, p.free_blocks(), p.bookings(), p.next_booking_id, p.plan_end)


@pytest.mark.parametrize("name", MULTI_BACKENDS)
def test_book_search_walk_by_name(name):
    p = make(name)
    end = 400 if name == "slotted_ring" else leasehold.TIME_MAX
    assert p.backend == name and p.names == ("cores", "memory_mb", "gpus")
    assert p.total == TOTALS and list(p.total) == ["cores", "memory_mb", "gpus"]
    assert p.origin == 0

    # Booking #1: half the cores and memory and every GPU over [0, 10); names left out are 0.
    assert p.book(0, 10, {"cores": 32, "memory_mb": 512, "gpus": 4}) == 1
    p.reserve(10, 20, (64, 0, 0))  # a sequence, in name order
    assert p.free_at(5) == {"cores": 32, "memory_mb": 512, "gpus": 0}
    assert p.min_free(0, 20) == {"cores": 0, "memory_mb": 512, "gpus": 0}
    assert p.earliest_fit({"gpus": 1}, 5) == 10
    assert p.earliest_fit({"cores": 1, "gpus": 1}, 5) == 20
    assert p.earliest_fit((32, 512, 0), 5, 0, 20) == 0
    assert p.next_change(0) == 10
    assert p.free_blocks() == [
        (0, 10, {"cores": 32, "memory_mb": 512, "gpus": 0}),
        (10, 20, {"cores": 0, "memory_mb": 1024, "gpus": 4}),
        (20, end, TOTALS),
    ]
    assert p.blocks_in(5, 15) == [
        (5, 10, {"cores": 32, "memory_mb": 512, "gpus": 0}),
        (10, 15, {"cores": 0, "memory_mb": 1024, "gpus": 4}),
    ]
    assert p.find_booking(1) == (1, 0, 10, {"cores": 32, "memory_mb": 512, "gpus": 4})
    assert p.bookings() == [p.find_booking(1)] and p.booking_count() == 1

    before = state(p)
    with pytest.raises(leasehold.InvalidRequest, match='unknown resource "disk"'):
        p.book(20, 30, {"disk": 1})
    with pytest.raises(leasehold.InvalidRequest, match="2 values for a profile of 3 resources"):
        p.reserve(20, 30, (1, 1))
    with pytest.raises(leasehold.InvalidRequest):
        p.book(20, 30, {"gpus": 5})
    with pytest.raises(leasehold.InsufficientCapacity):
        p.book(0, 10, {"gpus": 1})
    with pytest.raises(leasehold.InvalidRelease):
        p.release(10, 20, {"cores": 64, "gpus": 1})
    with pytest.raises(leasehold.InvalidRelease):
        p.shrink_booking(1, {"cores": 33})
    with pytest.raises(leasehold.InvalidRelease):
        p.release_booking(7)
    with pytest.raises(leasehold.InsufficientCapacity, match="at 0"):
        p.set_total({"cores": 16, "memory_mb": 1024, "gpus": 4})
    with pytest.raises(TypeError):
        p.reserve(20, 30, "cores")
    assert state(p) == before

    assert p.shrink_booking(1, {"gpus": 4}) is False
    assert p.free_at(5)["gpus"] == 4
    p.set_total({"cores": 64, "memory_mb": 2048, "gpus": 4})
    assert p.free_at(5) == {"cores": 32, "memory_mb": 1536, "gpus": 4}
    p.release_booking(1)
    p.release(10, 20, {"cores": 64})
    assert p.free_blocks() == [(0, end, {"cores": 64, "memory_mb": 2048, "gpus": 4})]
    p.validate()


@pytest.mark.parametrize("name", MULTI_BACKENDS)
def test_plan_end_copies_and_equality(name):
    p = make(name)
    p.book(0, 50, {"cores": 2})
    p.plan_end = 100
    with pytest.raises(leasehold.InvalidRequest, match="plan end 100"):
        p.book(90, 110, {"cores": 1})
    assert p.earliest_fit({"cores": 64}, 51) is None
    assert p.earliest_fit({"cores": 64}, 50) == 50
    for q in (copy.copy(p), copy.deepcopy(p)):
        assert q == p
        q.book(60, 70, {"gpus": 1})
        assert q != p and p.booking_count() == 1
    assert make(name) != make(name, {"cores": 64, "memory_mb": 1024, "licences": 4})
    assert make(name) == make(name) and make(name) != None  # noqa: E711


def test_bad_construction():
    with pytest.raises(leasehold.InvalidRequest, match="capacity_tree"):
        leasehold.MultiProfile("capacity_tree", TOTALS)
    with pytest.raises(leasehold.InvalidRequest, match="skip_list"):
        leasehold.MultiProfile("skip_list", TOTALS)
    with pytest.raises(leasehold.InvalidRequest, match="dt and slots"):
        leasehold.MultiProfile("slotted_ring", TOTALS)
    with pytest.raises(leasehold.InvalidRequest, match="no dt"):
        leasehold.MultiProfile("free_tree", TOTALS, dt=10, slots=4)
    with pytest.raises(leasehold.InvalidRequest, match="at least one"):
        leasehold.MultiProfile("free_tree", {})
    with pytest.raises(leasehold.InvalidRequest, match="9 resources"):
        leasehold.MultiProfile("free_tree", {f"r{i}": 1 for i in range(9)})
    with pytest.raises(leasehold.InvalidRequest, match="empty"):
        leasehold.MultiProfile("free_tree", {"": 1})
    with pytest.raises(leasehold.InvalidRequest):
        leasehold.MultiProfile("free_tree", {"cores": -1})
    one = leasehold.MultiProfile("free_list", {"cores": 8})
    assert one.book(0, 10, [3]) == 1 and one.free_at(0) == {"cores": 5}


def test_amounts_of_the_wrong_type():
    p = make("free_tree")
    before = state(p)
    with pytest.raises(TypeError, match="not str"):
        p.reserve(0, 10, "cores")
    with pytest.raises(TypeError, match="ints"):
        p.reserve(0, 10, (1, "x", 0))
    with pytest.raises(TypeError):
        p.reserve(0, 10, {"cores": "x"})
    assert state(p) == before
