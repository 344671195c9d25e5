"""earliest_fit + reserve pairs per second from Python: leasehold.free_tree against a plain
Python sorted-list free-block profile written for this comparison.

The workload is deterministic (a 64-bit LCG shared with benchmarks/python_pairs_bench.cpp,
the same loop in C++): a profile of total 64 is filled with `live` reservations (amount 1-32,
duration 10-99, earliest start drawn in [0, live)): a loaded profile where a fit is found far after the window begins, copied, and then K = 1000 more pairs
are timed on the copy. The two implementations run alternately, and the median of
--repetitions runs of each (7 by default: a run of 1,000 pairs on free_tree lasts only a few
milliseconds, so single runs vary by tens of percent) is reported.

    /usr/bin/python3 benchmarks/python/earliest_fit_pairs.py [--live 1000 10000] [--repetitions 7]
"""

import argparse
import bisect
import copy
import statistics
import time

import leasehold

TOTAL = 64
PAIRS = 1000


class lcg:
    """Knuth's MMIX LCG, so that the C++ benchmark draws the same requests."""

    def __init__(self, seed):
        self.state = seed

    def next(self, bound):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.state >> 33) % bound


def draw(rng, live):
    return 1 + rng.next(32), 10 + rng.next(90), rng.next(live)


class python_profile:
    """Maximal free blocks as two parallel sorted lists: begins[i] starts a block with free[i]
    units, which lasts until begins[i + 1] (the last block is unbounded)."""

    def __init__(self, total):
        self.begins = [0]
        self.free = [total]

    def earliest_fit(self, amount, duration, window_begin):
        i = max(bisect.bisect_right(self.begins, window_begin) - 1, 0)
        start = None
        n = len(self.begins)
        while i < n:
            if self.free[i] >= amount:
                if start is None:
                    start = max(self.begins[i], window_begin)
                end = self.begins[i + 1] if i + 1 < n else None
                if end is None or end - start >= duration:
                    return start
            else:
                start = None
            i += 1
        return start

    def _split(self, t):
        i = bisect.bisect_right(self.begins, t) - 1
        if self.begins[i] != t:
            self.begins.insert(i + 1, t)
            self.free.insert(i + 1, self.free[i])
            return i + 1
        return i

    def reserve(self, begin, end, amount):
        first = self._split(begin)
        last = self._split(end)
        for i in range(first, last):
            if self.free[i] < amount:
                raise ValueError("insufficient capacity")
        for i in range(first, last):
            self.free[i] -= amount
        # Merge equal neighbours at both edges, so blocks stay maximal.
        for i in (last, first):
            if 0 < i < len(self.begins) and self.free[i] == self.free[i - 1]:
                del self.begins[i]
                del self.free[i]


def fill(profile, live, rng):
    for _ in range(live):
        amount, duration, begin = draw(rng, live)
        start = profile.earliest_fit(amount, duration, begin)
        profile.reserve(start, start + duration, amount)


def build(make, live):
    """A profile of `live` reservations and the PAIRS requests timed on copies of it."""
    rng = lcg(42)
    base = make()
    fill(base, live, rng)
    return base, [draw(rng, live) for _ in range(PAIRS)]


def time_once(base, requests):
    """Seconds for the requests on a fresh copy of base."""
    profile = copy.deepcopy(base)
    t0 = time.perf_counter()
    for amount, duration, begin in requests:
        start = profile.earliest_fit(amount, duration, begin)
        profile.reserve(start, start + duration, amount)
    return time.perf_counter() - t0


def time_side_by_side(live, repetitions):
    """Pairs per second of free_tree and of the plain profile, medians of `repetitions` runs
    taken alternately, so that a change in the machine's load weighs on both alike. Each copy
    is gone before the next is made (time_once returns), so copies reuse the same memory, as
    in the C++ benchmark; two live copies alternating between fresh pages varied by half."""
    tree, requests = build(lambda: leasehold.free_tree(TOTAL), live)
    plain, same_requests = build(lambda: python_profile(TOTAL), live)
    assert requests == same_requests
    fast, slow = [], []
    for _ in range(repetitions):
        fast.append(time_once(tree, requests))
        slow.append(time_once(plain, requests))
    return PAIRS / statistics.median(fast), PAIRS / statistics.median(slow), tree, plain


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--live", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repetitions", type=int, default=7)
    args = parser.parse_args()
    if args.repetitions < 1:
        parser.error(f"--repetitions must be at least 1, not {args.repetitions}")
    if any(live < 1 for live in args.live):
        parser.error(f"--live values must be at least 1: {args.live}")
    print(f"{'live':>6} {'free_tree pairs/s':>18} {'python pairs/s':>15} {'ratio':>8} {'us/pair':>8}")
    for live in args.live:
        fast, slow, tree, plain = time_side_by_side(live, args.repetitions)
        # Both implementations must have built the same profile.
        blocks = tree.free_blocks()
        assert [b[0] for b in blocks] == plain.begins and [b[2] for b in blocks] == plain.free
        print(f"{live:>6} {fast:>18.0f} {slow:>15.0f} {fast / slow:>7.0f}x {1e6 / fast:>8.2f}")


if __name__ == "__main__":
    main()
