"""One row of Table 1 of Sotomayor, Keahey & Foster (HPDC 2008), driven from Python.

The scheduling engine is leasehold's C++ lease scheduler (simulate_leases releases the GIL);
Python only reads the workloads, picks the configuration and prints the measures. The
cluster is the paper's (§4.3): 144 nodes of 1 CPU, 1 GB memory, 20 GB disk, 100 Mb/s. The
best-effort requests are blue-30days.swf (§4.2), the advance reservations one of the
published AR-injection files (rho % of the trace's capacity, delta-hour durations, size).

    PYTHONPATH=build/dev/python /usr/bin/python3 examples/python/haizea_table1_row.py \\
        --config NOVM-NOSR --rho 10 --delta 3 --size 2 [--days 30]

The workload directory defaults to $LEASEHOLD_SHARED_DIR/haizea-workloads (or
../shared/haizea-workloads beside the source tree). All-best-effort is reported relative to
NOVM-NOSR without ARs over the same days, as Table 1 does (§4.4).
"""

import argparse
import os
import sys
import time
from pathlib import Path

import leasehold

NODES = 144
PER_NODE = (1, 1024, 20 * 1024, 10)
AR_FIRST_ID = 1_000_000_000
SIZES = {1: "1small", 2: "2medium", 3: "3large"}


def paper_cluster(config):
    # §4.3: H_w = H_r = 50 MB/s, B = 10 MB/s, 5 % runtime slowdown in a VM, 20 s boot+shutdown.
    config.suspend_rate_mb_s = 50.0
    config.resume_rate_mb_s = 50.0
    config.network_mb_s = 10.0
    config.runtime_slowdown_percent = 5
    config.boot_shutdown = 20
    return config


CONFIGS = {
    "NOVM-NOSR": (leasehold.scheduler_config.novm_nosr, False),
    "NOVM-SR": (leasehold.scheduler_config.novm_sr, False),
    "VM-PREDEPLOY": (leasehold.scheduler_config.vm_predeploy, True),
}


def run(name, leases):
    make, vm_image = CONFIGS[name]
    if vm_image:
        for lease in leases:
            lease.image = ("predeployed.img", 4096)
    scheduler = leasehold.lease_scheduler(NODES, PER_NODE, paper_cluster(make()))
    leasehold.simulate_leases(scheduler, leases)
    return leasehold.measure(scheduler)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="NOVM-NOSR", choices=sorted(CONFIGS))
    parser.add_argument("--rho", type=int, default=10, choices=[5, 10, 15, 20, 25, 30])
    parser.add_argument("--delta", type=int, default=3, choices=[1, 2, 3, 4])
    parser.add_argument("--size", type=int, default=2, choices=[1, 2, 3])
    parser.add_argument("--days", type=int, default=0, help="only the first D days (0: all)")
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()

    root = Path(__file__).resolve().parents[2]
    shared = Path(os.environ.get("LEASEHOLD_SHARED_DIR", root.parent / "shared"))
    data = args.data or shared / "haizea-workloads"
    swf = data / "blue-30days.swf"
    ars_file = (
        data / "ar-injections-30days"
        / f"work_{args.rho:02d}-dur_{args.delta}h-size_{SIZES[args.size]}.lwf"
    )
    if not swf.exists() or not ars_file.exists():
        sys.exit(f"workload files not found under {data} (set LEASEHOLD_SHARED_DIR or --data)")

    cut = args.days * 86400 if args.days > 0 else None
    best_effort = [l for l in leasehold.read_swf_leases(str(swf)) if cut is None or l.submit < cut]
    ars = leasehold.read_ar_injections(str(ars_file), AR_FIRST_ID)
    # A few published lines start before they arrive; the scheduler rejects such terms, so
    # they are left out (as the C++ example does).
    ars = [l for l in ars if l.start >= l.submit and (cut is None or l.start < cut)]

    t0 = time.perf_counter()
    baseline = run("NOVM-NOSR", list(best_effort)).all_best_effort
    m = run(args.config, best_effort + ars)
    seconds = time.perf_counter() - t0
    print(f"{args.config} rho={args.rho}% delta={args.delta}h size={SIZES[args.size]} "
          f"days={args.days or 30}: {len(best_effort)} best-effort, {len(ars)} ARs")
    print(f"  all-best-effort   {100 * m.relative_to(baseline):+.2f} % "
          f"(baseline {baseline} s, this run {m.all_best_effort} s)")
    print(f"  mean wait         {m.mean_wait / 1000:.2f} ks")
    print(f"  bounded slowdown  {m.mean_bounded_slowdown:.2f}")
    print(f"  ARs accepted {m.ar_accepted}, rejected {m.ar_rejected}; "
          f"suspensions {m.suspensions}; {seconds:.1f} s for both runs")


if __name__ == "__main__":
    main()
