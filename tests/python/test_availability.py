"""Conformance of every Python-bound backend against `reference`, plus error behaviour.

Mirrors the C++ conformance suite: the same random sequence of reserve / release /
advance_to / earliest_fit calls is applied to a backend and to `reference`, and after every
step both must give the same answer and the same free blocks."""

import copy
import random

import pytest

import leasehold


def make(name, total, origin=0):
    if name.startswith("slotted_ring"):
        # Slots of width 1 make the ring's answers identical to the exact profiles inside
        # its horizon.
        return getattr(leasehold, name)(total, 1, 4096, origin)
    return getattr(leasehold, name)(total, origin)


def clip(blocks, horizon_end):
    """Blocks of an unbounded profile cut at a ring's horizon."""
    out = []
    for begin, end, free in blocks:
        if begin >= horizon_end:
            break
        out.append((begin, min(end, horizon_end), free))
    return out


@pytest.mark.parametrize("name", leasehold.BACKENDS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scalar_backend_matches_reference(name, seed):
    rng = random.Random(seed)
    total = 8
    backend = make(name, total)
    ref = leasehold.reference(total)
    booked = []
    for _ in range(400):
        now = backend.origin
        op = rng.random()
        if op < 0.45:
            amount = rng.randint(1, total)
            duration = rng.randint(1, 40)
            begin = now + rng.randint(0, 200)
            window_end = begin + rng.randint(duration, 600)
            fit = backend.earliest_fit(amount, duration, begin, window_end)
            assert fit == ref.earliest_fit(amount, duration, begin, window_end)
            if fit is not None:
                backend.reserve(fit, fit + duration, amount)
                ref.reserve(fit, fit + duration, amount)
                booked.append((fit, fit + duration, amount))
        elif op < 0.75 and booked:
            begin, end, amount = booked.pop(rng.randrange(len(booked)))
            if begin >= now:
                backend.release(begin, end, amount)
                ref.release(begin, end, amount)
        elif op < 0.8:
            t = now + rng.randint(0, 30)
            backend.advance_to(t)
            ref.advance_to(t)
            booked = [b for b in booked if b[0] >= t]
        else:
            t = now + rng.randint(0, 300)
            assert backend.free_at(t) == ref.free_at(t)
            assert backend.min_free(t, t + 25) == ref.min_free(t, t + 25)
        assert backend.origin == ref.origin
        if name == "slotted_ring":
            assert backend.free_blocks() == clip(ref.free_blocks(), backend.horizon[1])
        else:
            assert backend.free_blocks() == ref.free_blocks()
    backend.validate()


@pytest.mark.parametrize("name", ["free_list4", "free_tree4", "slotted_ring4"])
def test_vector_backend_matches_reference(name):
    rng = random.Random(7)
    total = (4, 8, 2, 16)
    backend = make(name, total)
    ref = leasehold.reference4(total)
    for _ in range(200):
        amount = tuple(rng.randint(0, t) for t in total)
        if amount == (0, 0, 0, 0):
            continue
        duration = rng.randint(1, 30)
        fit = backend.earliest_fit(amount, duration, 0, 3000)
        assert fit == ref.earliest_fit(amount, duration, 0, 3000)
        if fit is not None:
            backend.reserve(fit, fit + duration, amount)
            ref.reserve(fit, fit + duration, amount)
    if name == "slotted_ring4":
        assert backend.free_blocks() == clip(ref.free_blocks(), backend.horizon[1])
    else:
        assert backend.free_blocks() == ref.free_blocks()


def test_hand_computed_fits():
    p = leasehold.free_tree(10)
    p.reserve(0, 10, 6)
    p.reserve(20, 30, 10)
    assert p.earliest_fit(4, 5) == 0
    assert p.earliest_fit(5, 5, 0) == 10
    assert p.earliest_fit(5, 15, 0) == 30
    assert p.earliest_fit(5, 15, 0, 40) is None
    assert p.free_blocks() == [(0, 10, 4), (10, 20, 10), (20, 30, 0), (30, leasehold.TIME_MAX, 10)]
    assert p.block_count() == 4
    assert p.total == 10 and p.origin == 0
    q = leasehold.free_list4((4, 4, 4, 4))
    q.reserve(0, 5, (1, 2, 3, 4))
    assert q.free_at(0) == (3, 2, 1, 0)
    assert q.earliest_fit((1, 1, 1, 1), 3) == 5


@pytest.mark.parametrize("name", leasehold.BACKENDS)
def test_errors_name_values_and_change_nothing(name):
    p = make(name, 10)
    p.reserve(0, 10, 6)
    before = p.free_blocks()
    with pytest.raises(leasehold.InsufficientCapacity, match=r"reserve 5 over \[0, 10\).*only 4 free"):
        p.reserve(0, 10, 5)
    assert p.free_blocks() == before
    with pytest.raises(leasehold.InvalidRelease, match=r"\[0, 20\)"):
        p.release(0, 20, 6)
    assert p.free_blocks() == before
    with pytest.raises(leasehold.InvalidRequest, match=r"\[120, 80\)"):
        p.reserve(120, 80, 1)
    assert p.free_blocks() == before
    with pytest.raises(leasehold.InvalidRequest, match="11"):
        p.earliest_fit(11, 5)
    p.advance_to(5)
    with pytest.raises(leasehold.InvalidRequest):
        p.advance_to(4)
    assert p.origin == 5
    # Every subclass is a leasehold.Error, so one except clause catches them all.
    with pytest.raises(leasehold.Error):
        p.reserve(5, 10, 5)
    assert issubclass(leasehold.OutOfHorizon, leasehold.Error)


def test_out_of_horizon_and_bad_construction():
    ring = leasehold.slotted_ring(10, 10, 4)
    assert ring.horizon == (0, 40)
    with pytest.raises(leasehold.OutOfHorizon, match=r"free_at\(40\)"):
        ring.free_at(40)
    with pytest.raises(leasehold.InvalidRequest, match="slot width 0 must be positive"):
        leasehold.slotted_ring(10, 0, 4)
    with pytest.raises(leasehold.InvalidRequest):
        leasehold.free_list(0)


def test_copy_is_independent():
    p = leasehold.free_list(4)
    q = copy.copy(p)
    q.reserve(0, 1, 4)
    assert p.free_at(0) == 4 and q.free_at(0) == 0


@pytest.mark.parametrize("name", ["free_tree", "free_tree4"])
def test_compact_keeps_the_blocks_and_gives_back_memory(name):
    """2,000 bookings, then all but 5 released: the pools keep their room until compact()
    lays the tree out afresh; the blocks and answers stay the same."""
    one = 1 if name == "free_tree" else (1, 1, 1, 1)
    full = 10 if name == "free_tree" else (10, 10, 10, 10)
    p = getattr(leasehold, name)(full)
    empty = p.memory_usage()
    for i in range(2000):
        p.reserve(3 * i, 3 * i + 1, one)
    assert p.memory_usage() > empty
    for i in range(5, 2000):
        p.release(3 * i, 3 * i + 1, one)
    before, kept = p.free_blocks(), p.memory_usage()
    assert len(before) == 10
    p.compact()
    assert p.free_blocks() == before
    assert 4 * p.memory_usage() < kept
    # [0, 1), [3, 4), ... [12, 13) hold 9; the first 5 units with all 10 free begin at 13.
    assert p.earliest_fit(full, 5) == 13
    assert p.earliest_fit(full, 2) == 1
    p.validate()


@pytest.mark.parametrize("name", leasehold.BACKENDS + leasehold.VECTOR_BACKENDS)
def test_memory_usage_counts_bytes_held(name):
    total = 10 if name in leasehold.BACKENDS else (10, 10, 10, 10)
    p = make(name, total)
    assert isinstance(p.memory_usage(), int) and p.memory_usage() > 0
    assert hasattr(p, "compact") == name.startswith("free_tree")
