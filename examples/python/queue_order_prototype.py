"""A research prototype in Python: its own best-effort queue order, leasehold's C++ engine.

The question a prototype asks: does serving the shortest job first instead of first come,
first served (Haizea's order, Sotomayor, Keahey & Foster §3.2) shorten the waits on a real
log? The order is a Python function key(terms, remaining_seconds, now) -> float (smaller is
served first, equal keys FIFO); planning, backfilling and the simulation stay in C++
(simulate_leases releases the GIL; the scheduler takes it back for each key).

    PYTHONPATH=build/dev/python /usr/bin/python3 examples/python/queue_order_prototype.py \\
        --trace ../shared/haizea-workloads/blue-30days.swf [--days 30] [--nodes 144]

The log is required (an SWF file, one job a line); nothing synthetic replaces it. The cluster
is NOVM-NOSR of the paper (no VMs, no suspension, aggressive backfilling).
"""

import argparse
import sys
import time
from pathlib import Path

import leasehold

PER_NODE = (1, 1024, 20 * 1024, 10)


def shortest_job_first(terms, remaining, now):
    return remaining


def fifo(terms, remaining, now):
    return 0.0  # every key equal: the scheduler's first-come-first-served tie-break decides


def run(order, leases, nodes):
    scheduler = leasehold.lease_scheduler(nodes, PER_NODE, leasehold.scheduler_config.novm_nosr(),
                                          queue_order=order)
    t0 = time.perf_counter()
    leasehold.simulate_leases(scheduler, leases)
    seconds = time.perf_counter() - t0
    scheduler.validate()
    return leasehold.measure(scheduler, warmup_fraction=0.0), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, required=True, help="an SWF log (plain text)")
    parser.add_argument("--days", type=int, default=0, help="only jobs submitted in the first D days (0: all)")
    parser.add_argument("--nodes", type=int, default=144, help="cluster size (the paper's: 144)")
    args = parser.parse_args()
    if args.days < 0:
        parser.error(f"--days {args.days}: must be 0 or more")
    if args.nodes <= 0:
        parser.error(f"--nodes {args.nodes}: must be positive")
    if not args.trace.is_file():
        sys.exit(f"error: cannot read the trace {args.trace}: no such file")

    try:
        leases = leasehold.read_swf_leases(str(args.trace))
    except leasehold.Error as e:
        sys.exit(f"error: {e}")
    if args.days > 0:
        leases = [l for l in leases if l.submit < args.days * 86400]
    too_large = [l.id for l in leases if l.nodes > args.nodes]
    if too_large:
        sys.exit(f"error: {len(too_large)} jobs ask for more than {args.nodes} nodes "
                 f"(first: job {too_large[0]}); use a larger --nodes")

    print(f"{args.trace.name}: {len(leases)} best-effort leases on {args.nodes} nodes")
    print(f"{'order':<20} {'mean wait (ks)':>15} {'bounded slowdown':>17} {'completed':>10} {'time (s)':>9}")
    for name, order in (("FIFO (Haizea)", None), ("FIFO from Python", fifo),
                        ("shortest job first", shortest_job_first)):
        m, seconds = run(order, leases, args.nodes)
        print(f"{name:<20} {m.mean_wait / 1000:>15.2f} {m.mean_bounded_slowdown:>17.2f} "
              f"{m.best_effort_completed:>10} {seconds:>9.2f}")


if __name__ == "__main__":
    main()
