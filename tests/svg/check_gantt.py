#!/usr/bin/python3
"""Runs an example with --gantt and checks its Gantt chart against what the run reported.

The SVG is read with a real XML parser (Python's xml.etree.ElementTree), and its content is
compared with the run's own account of the schedule:

- haizea_lwf: the indented lines of its schedule ("[b, e) runs [rb, re) on {...}, outcome"),
  one per segment, and the lease table (kind, migrations);
- haizea_experiment: its per-lease CSV (--leases, added here), the baseline's rows left out
  (the chart draws the one run asked for, not the no-AR baseline): a lease that started ran
  1 + suspensions segments (the configurations checked here cancel nothing).

Checked: one <g class="segment"> per segment; a rect of class ar-outline in every segment of
an advance reservation and in no other; one suspension mark per suspended segment; one
<g class="migration"> per migration; image transfers when --transfers; time labels that read
h:mm, at least two, increasing; the eight legend entries. The document is kept at --keep for
the xmllint and rsvg-convert checks (tests/svg/check_svg.sh).

Usage: check_gantt.py lwf|experiment --keep FILE.svg [--transfers] -- PROGRAM ARGS...
"""

import argparse
import csv
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

SVG = "{http://www.w3.org/2000/svg}"


def fail(message):
    print("check_gantt: " + message, file=sys.stderr)
    sys.exit(1)


def expected_from_lwf(stdout):
    segments, suspended, ars, migrations = [], 0, set(), 0
    lease = None
    for line in stdout.splitlines():
        row = re.match(r"^(\d+) +(best-effort|advance reservation|immediate) +\d+ .* (\d+)$", line)
        if row:
            lease = int(row.group(1))
            migrations += int(row.group(3))
            if row.group(2) == "advance reservation":
                ars.add(lease)
            continue
        stretch = re.match(r"^ +\[(-?\d+), (-?\d+)\) runs .*, (\w+)$", line)
        if stretch:
            segments.append(lease)
            suspended += stretch.group(3) == "suspended"
    return segments, suspended, {a for a in ars if a in segments}, migrations


def expected_from_leases(path):
    segments, suspended, ars, migrations = [], 0, set(), 0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["workload"] == "no-AR" or not row["first_start"]:
                continue  # the baseline run's leases, or a lease that never ran
            lease = int(row["id"])
            s = int(row["suspensions"])
            segments += [lease] * (1 + s)
            suspended += s
            migrations += int(row["migrations"])
            if row["kind"] == "advance_reservation":
                ars.add(lease)
    return segments, suspended, ars, migrations


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["lwf", "experiment"])
    parser.add_argument("--keep", required=True)
    parser.add_argument("--transfers", action="store_true")
    if "--" not in sys.argv:
        fail("no program: check_gantt.py lwf|experiment --keep FILE.svg -- PROGRAM ARGS...")
    split = sys.argv.index("--")
    args = parser.parse_args(sys.argv[1:split])
    command = sys.argv[split + 1:]
    keep = Path(args.keep)
    keep.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        extra = ["--gantt", str(keep)]
        if args.mode == "experiment":
            extra += ["--leases", f"{tmp}/leases.csv", "--csv", f"{tmp}/runs.csv"]
        run = subprocess.run(command + extra, capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            fail(f"{' '.join(command + extra)} exited {run.returncode}: {run.stderr}")
        if args.mode == "lwf":
            segments, suspended, ars, migrations = expected_from_lwf(run.stdout)
        else:
            segments, suspended, ars, migrations = expected_from_leases(f"{tmp}/leases.csv")
    if not segments:
        fail("the run reported no segment: nothing to compare")

    root = ET.parse(keep).getroot()  # raises on a document that is not well-formed XML
    if root.tag != SVG + "svg":
        fail(f"the root element is {root.tag}, not svg")
    groups = [g for g in root.iter(SVG + "g") if g.get("class") == "segment"]
    if len(groups) != len(segments):
        fail(f"{len(groups)} segment groups, but the run reported {len(segments)} segments")
    if sorted(int(g.get("data-lease")) for g in groups) != sorted(segments):
        fail("the segment groups' leases differ from the run's")
    outlined = set()
    for g in groups:
        lease = int(g.get("data-lease"))
        has = any(r.get("class") == "ar-outline" for r in g.iter(SVG + "rect"))
        if has != (lease in ars):
            fail(f"lease {lease}: outlined {has}, but is an advance reservation: {lease in ars}")
        outlined |= {lease} if has else set()
    if outlined != ars:
        fail(f"advance reservations {sorted(ars)} but outlined {sorted(outlined)}")
    marks = [p for p in root.iter(SVG + "path") if p.get("class") == "suspension"]
    if len(marks) != suspended:
        fail(f"{len(marks)} suspension marks, but {suspended} suspended segments")
    arrows = [g for g in root.iter(SVG + "g") if g.get("class") == "migration"]
    if len(arrows) != migrations:
        fail(f"{len(arrows)} migration arrows, but {migrations} migrations")
    transfers = [g for g in root.iter(SVG + "g") if g.get("class") == "transfer"]
    if args.transfers and not transfers:
        fail("no image transfer drawn")
    ticks = [t.text for t in root.iter(SVG + "text") if t.get("class") == "tick"]
    if len(ticks) < 2 or not all(re.fullmatch(r"-?\d+:[0-5]\d", t or "") for t in ticks):
        fail(f"time labels {ticks} do not read h:mm")
    minutes = [int(t.split(":")[0]) * 60 + int(t.split(":")[1]) for t in ticks]
    if minutes != sorted(set(minutes)):
        fail(f"time labels {ticks} do not increase")
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend-item"]
    if len(legend) != 8:
        fail(f"{len(legend)} legend entries, not 8")
    print(f"{keep}: {len(groups)} segments ({len(ars)} advance reservations outlined), "
          f"{suspended} suspensions, {migrations} migrations, {len(transfers)} transfers, "
          f"time {ticks[0]} to {ticks[-1]}")


if __name__ == "__main__":
    main()
