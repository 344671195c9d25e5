"""What a call from Python costs beyond the C++ work: timeit on a one-block free_tree, where
each call's own work in C++ is tens of nanoseconds, so the figure is the binding's overhead
(argument conversion, pybind11's dispatch, the result back to Python).

    /usr/bin/python3 benchmarks/python/call_overhead.py [--number 200000]
"""

import argparse
import timeit

import leasehold

CALLS = [
    ("block_count()", "p.block_count()", 1),
    ("free_at(t)", "p.free_at(5)", 1),
    ("earliest_fit(amount, duration, begin)", "p.earliest_fit(3, 10, 0)", 1),
    ("reserve + release", "p.reserve(0, 10, 1); p.release(0, 10, 1)", 2),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--number", type=int, default=200_000, help="calls per timing")
    args = parser.parse_args()
    if args.number < 1:
        parser.error(f"--number must be at least 1, not {args.number}")
    profile = leasehold.free_tree(64)
    print(f"{'call':<40} {'ns per call (best of 5)':>24}")
    for name, statement, calls in CALLS:
        best = min(timeit.repeat(statement, globals={"p": profile}, number=args.number, repeat=5))
        print(f"{name:<40} {best / args.number / calls * 1e9:>24.0f}")
    profile.validate()


if __name__ == "__main__":
    main()
