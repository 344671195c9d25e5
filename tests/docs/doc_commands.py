#!/usr/bin/python3
"""Runs every shell command of docs/*.md and README.md as written, against a build tree.

Docs that hold (issue 16, item 9): a command a reader copies from the docs must run. This
script reads each fenced code block of a Markdown file, decides which blocks are shell (```sh,
```bash, ```shell, ```console, or an unlabelled block with a line that starts with a program
of ours or a command we know), joins `\\` continuations, and then runs the commands in order,
one terminal session per document:

- in a fresh temporary directory that looks like the source tree (a symlink to each of its
  top-level entries, `build/release` and `build/dev` pointing to the build tree under test,
  `../shared` pointing to the data beside the source tree when it is there), so that
  `./build/release/examples/haizea_experiment`, `examples/python/...` and `../shared/...`
  resolve as the docs assume while whatever a command writes stays in the temporary directory;
- with shell variables (`exe=...`, `sweep=(...)`) carried from one command to the next, and
  background commands (`... &`) run together with the `wait` that ends them;
- bounded in time (the whole process group is killed on timeout), checking the exit code and
  that every output the command names (--out, --csv, --svg, --per-job, --leases, --shard-dir, --gantt,
  --benchmark_out=, > FILE) exists and is not empty.

Every command must be classified: run (a program of the build tree, /usr/bin/python3 on a
script of the repository, a shell assignment or `wait`), checked without running (`cmake
--preset P` and `cmake --build DIR --target T`: the preset and the targets must exist), or
listed in SKIPS below with the reason. Anything else fails with the document's path and line,
so that a new command cannot drift silently. Long commands are run at a reduced size given in
REDUCTIONS, each with why; an entry of either table that no command uses fails the check too.

Commands on the data of ../shared are reported as skipped when it is absent (exit code 77,
ctest's SKIP_RETURN_CODE), never as passed.

Figures that cannot go stale: a fenced block labelled `output` that comes right after a shell
block (prose between them is fine, no other code block) is the standard output of that block's
last command, and is compared with what the command prints. Both are normalised first: trailing
spaces of every line and blank lines at the start and end dropped. In the block, `…` (U+2026)
stands for any text within one line (a wall time, a date). Variants, after the label:

- `output excerpt`: the block's lines must appear in the output in this order, other lines
  between them allowed (a table picked out of a long report);
- `output long`: the command takes too long for CI at its documented size (a 30-day run in a
  Debug build). It is still run at its reduced size, uncompared; `--long` runs only these
  commands, at the documented size, and compares them (ctest: configure with
  -DLEASEHOLD_DOC_FIGURES_LONG=ON, preferably the release preset, and run
  `ctest -R docs.figures`).

A compared block whose command is run at a reduced size must be marked `long`: a reduced run
would not print the documented figures.

Usage:
  doc_commands.py --source DIR --build DIR [--shared DIR] [--without benchmarks,python]
                  [--timeout S] [--long] DOC.md... run the commands of these documents
  doc_commands.py --source DIR --build DIR --check  classify every document, run nothing,
                                                     and run the extractor's self-checks
"""

import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SKIP_CODE = 77

# Build directories the docs name, all mapped to the build tree under test (the docs speak of
# the release build; CI runs this in the dev build, where the reductions below keep it quick).
MAPPED_BUILD_DIRS = ("release", "dev", "install")

# Shell commands the test does not run, each with why. Matched (re.search) against one simple
# command (a line split at &&, ||, ;, | and &). `stand_in` gives environment variables set for
# the rest of the block instead (what the skipped command would have provided).
SKIPS = [
    {"pattern": r"^haizea_experiment --no-timing --jobs 1 --csv runs\.csv --leases leases\.csv$",
     "reason": "the before / after measurement of docs/performance.md: two binaries built from "
               "two commits, not this tree's (the same command at a reduced size is "
               "example.haizea_experiment's)"},
    {"pattern": r"^apt-get install\b",
     "reason": "installs Debian packages (scripts/lib/packages.sh lists them for CI)"},
    {"pattern": r"^cmake --install\b",
     "reason": "installs into a prefix outside the build tree; tests/package checks the "
               "installed package"},
    {"pattern": r"^scripts/test\b",
     "reason": "runs the whole CI (every preset's build and tests)"},
    {"pattern": r"^scripts/demo\b",
     "reason": "configures and builds the release preset (installing packages if missing); its "
               "experiment is run at a reduced size by example.haizea_experiment.demo"},
    {"pattern": r"^scripts/cache_misses\b",
     "reason": "runs valgrind's cache simulator for minutes (the probe alone is tested by "
               "bench.cache_probe.runs)"},
    {"pattern": r"^build/release/benchmarks/vector_fit_probe\b",
     "reason": "counts visits on the 10,000-reservation vector profile, a minute in Debug (both "
               "modes run at 1,000 in bench.vector_fit_probe.profile and .certificates)"},
    {"pattern": r"^build/release/benchmarks/btree_layout_probe\b",
     "reason": "builds 100,000 and 1,000,000 reservations in three structures and times them "
               "for minutes (bench.btree_layout_probe.agrees runs it at 3,000)"},
    {"pattern": r"^scripts/bench\b",
     "reason": "configures and builds the release preset and runs the whole benchmark suite; "
               "the suite's own command (build/release/benchmarks/availability_bench) is run "
               "below"},
    {"pattern": r"^(LEASEHOLD_FUZZ_\w+=\S+ )*scripts/fuzz\b",
     "reason": "builds the fuzz preset (clang, libFuzzer) and fuzzes for minutes"},
    {"pattern": r"^build/fuzz/",
     "reason": "a harness of the fuzz preset's build, not the build tree under test"},
    {"pattern": r"^rm -rf build/fuzz$",
     "reason": "deletes the fuzz preset's build directory"},
    {"pattern": r"\bsbatch\b",
     "reason": "submits to Slurm; the job-array scripts are tested on a one-node cluster by "
               "slurm.haizea_sweep"},
    {"pattern": r"^(LEASEHOLD_UPDATE_EXPECTED=1 )?ctest\b",
     "reason": "runs tests of this same suite (ctest runs them itself)"},
    {"pattern": r"^cc scheduler\.c \$\(pkg-config --cflags --libs leasehold_c\)",
     "reason": "builds a C scheduler of the reader's against an installed prefix; the test "
               "package.pkg_config_c installs one and builds a consumer exactly so"},
    {"pattern": r"^/usr/bin/python3 -m venv --system-site-packages ~/\.venvs/leasehold$",
     "reason": "makes a virtual environment in the reader's home; the pip install in it "
               "compiles the module in Release for minutes (checked by hand, docs/python.md)"},
    {"pattern": r"^~/\.venvs/leasehold/bin/python\b",
     "reason": "the virtual environment of the command before; the CMake install route is "
               "tested by package.install_sequence"},
    {"pattern": r"^git diff\b",
     "reason": "shows the working tree's changes; nothing to run against a build"},
]

# Commands run at a reduced size, keyed by the command as the document writes it (continuations
# joined, trailing comment removed). Each replacement (old, new) must apply. A command that
# changes in its document no longer matches its entry, which then fails as unused: re-measure
# and update the entry. Debug builds are about 10x slower than release; every command here
# should take a second or two in the dev preset.
REDUCTIONS = {
    # adaptive_requests on the SDSC SP2 log takes 10 to 20 s a slice in Debug: every command
    # runs on the synthetic workload (--synthetic), one slice; example.adaptive_requests and
    # pinned.adaptive_requests.sdsc_sp2 run the log. The default is 2 slices at 3 loads.
    "./build/release/examples/adaptive_requests":
        [("adaptive_requests", "adaptive_requests --synthetic --slices 1 --loads 50")],
    # --full is 48 slices x 6 loads: one slice at one load keeps the option's path.
    "./build/release/examples/adaptive_requests --full":
        [("--full", "--full --synthetic --slices 1 --loads 50")],
    # 8 slices x 2 loads: 1 slice (the 5th, as --first 4 asks) at 2 loads.
    "./build/release/examples/adaptive_requests --slices 8 --first 4 --loads 0,50 --seed 7 --out DIR":
        [("--slices 8", "--synthetic --slices 1")],
    # Table 1's three configurations over the 30 days of the three 10/20/30 % workloads: one
    # day of the 10 % workload (4 runs with the baseline).
    "./build/release/examples/haizea_experiment --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY --no-timing":
        [("--no-timing", "--no-timing --days 1 --rho 10")],
    "./build/release/examples/haizea_experiment --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY --no-timing --haizea-choices":
        [("--no-timing", "--no-timing --days 1 --rho 10")],
    # All six configurations over the 30 days of the three workloads (19 runs), with the preset
    # and without: one day of the 10 % workload, one configuration with image staging.
    "./build/release/examples/haizea_experiment --haizea-preset hpdc08 --no-timing":
        [("--no-timing", "--no-timing --days 1 --rho 10 --configs VM-REUSE-SKEWED")],
    "./build/release/examples/haizea_experiment --no-timing":
        [("--no-timing", "--no-timing --days 1 --rho 10 --configs VM-REUSE-SKEWED")],
    # The staging rows over 30 days x 3 workloads with Haizea's choices (10 runs): one day of
    # the 10 % workload, one configuration.
    "./build/release/examples/haizea_experiment --configs VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED --no-timing --jobs 1":
        [("--no-timing", "--no-timing --days 1 --rho 10"),
         ("VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED", "VM-REUSE-SKEWED")],
    "./build/release/examples/haizea_experiment --configs VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED --haizea-choices --no-timing --jobs 1":
        [("--no-timing", "--no-timing --days 1 --rho 10"),
         ("VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED", "VM-REUSE-SKEWED")],
    # 10 days: one.
    "build/release/examples/haizea_experiment --rho 10 --days 10 --configs NOVM-SR --per-job jobs.csv":
        [("--days 10", "--days 1")],
    # 10 days x 4 (or 3) configurations: one day of two.
    "./build/release/examples/haizea_experiment --days 10 --rho 10 --configs VM-PREDEPLOY,VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED":
        [("--days 10", "--days 1"),
         ("VM-PREDEPLOY,VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED", "VM-MULT,VM-REUSE-SKEWED")],
    "./build/release/examples/haizea_experiment --days 10 --rho 10 --configs VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED --piggyback same_node":
        [("--days 10", "--days 1"),
         ("VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED", "VM-MULT,VM-REUSE-SKEWED")],
    "./build/release/examples/haizea_experiment --days 10 --rho 10 --configs VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED --image-mb-s 12.5":
        [("--days 10", "--days 1"),
         ("VM-MULT,VM-REUSE-UNIFORM,VM-REUSE-SKEWED", "VM-MULT,VM-REUSE-SKEWED")],
    # 30 days: one.
    "./build/release/examples/haizea_experiment --rho 10 --configs VM-MULT,VM-REUSE-UNIFORM --jobs 1 --no-timing":
        [("--jobs 1", "--jobs 1 --days 1")],
    # The 217-run sweep (72 workloads x 3 configurations): one day of the default three
    # workloads, one configuration (4 runs).
    "./build/release/examples/haizea_experiment --all --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY --jobs 2 --csv haizea_all.csv":
        [("--all --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY", "--days 1 --configs NOVM-SR")],
    # The sweep variables of docs/sweeps.md: the same one day, one configuration; the shard
    # and merge commands that use them run unchanged.
    "sweep=(--all --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY)":
        [("--all --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY", "--days 1 --configs NOVM-SR")],
    "S=(--all --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY)":
        [("--all --configs NOVM-NOSR,NOVM-SR,VM-PREDEPLOY", "--days 1 --configs NOVM-SR")],
    "sweep=(--full)": [("--full", "--full --synthetic --slices 1 --loads 0,50")],
    # adaptive_requests --full in one process and in 2 shards: one synthetic slice, two loads
    # (the log: see above).
    "$A --full --out n1": [("--full", "--full --synthetic --slices 1 --loads 0,50")],
    "$A --full --shard 0/2 --shard-dir n2_shards & $A --full --shard 1/2 --shard-dir n2_shards &":
        [("--full", "--full --synthetic --slices 1 --loads 0,50")],
    # free_list_vs_slots' default sweep (5 gaps x 6 schedulers of 2,000 jobs, 3 repetitions):
    # 200 jobs at one gap, one repetition.
    "$F --no-timing --csv f.csv --svg f.svg":
        [("--no-timing", "--no-timing --jobs 200 --interarrival 1000 --repetitions 1")],
    "$F --shard 0/2 --shard-dir fs & $F --shard 1/2 --shard-dir fs &":
        [("--shard 0/2", "--jobs 200 --interarrival 1000 --repetitions 1 --shard 0/2"),
         ("--shard 1/2", "--jobs 200 --interarrival 1000 --repetitions 1 --shard 1/2")],
    "build/release/examples/free_list_vs_slots --full --csv free_list_vs_slots.csv --svg free_list_vs_slots.svg":
        [("--full", "--full --jobs 200 --interarrival 1000 --repetitions 1")],
    # The whole Blue Horizon log (243,306 jobs over 2.5 years, minutes in Debug): the 12-job
    # log of the example tests instead (the program has no option to stop early).
    "./build/release/examples/blue_horizon_embedding":
        [("blue_horizon_embedding", "blue_horizon_embedding --trace examples/data/tiny.swf")],
    # Python: the 30-day Table 1 rows (their output blocks are long: compared by --long), the
    # 30-day queue-order comparison, on one day; the pairs benchmark on its smallest profile.
    "PYTHONPATH=build/dev/python /usr/bin/python3 examples/python/haizea_table1_row.py --config NOVM-NOSR --rho 10 --delta 3 --size 2":
        [("--size 2", "--size 2 --days 1")],
    "PYTHONPATH=build/dev/python /usr/bin/python3 examples/python/haizea_table1_row.py --config NOVM-SR --rho 10 --delta 3 --size 2":
        [("--size 2", "--size 2 --days 1")],
    "PYTHONPATH=build/dev/python /usr/bin/python3 examples/python/haizea_table1_row.py --config VM-PREDEPLOY --rho 10 --delta 3 --size 2":
        [("--size 2", "--size 2 --days 1")],
    "PYTHONPATH=build/dev/python /usr/bin/python3 examples/python/queue_order_prototype.py --trace ../shared/haizea-workloads/blue-30days.swf":
        [("blue-30days.swf", "blue-30days.swf --days 1")],
    "PYTHONPATH=build/install/python /usr/bin/python3 benchmarks/python/earliest_fit_pairs.py":
        [("earliest_fit_pairs.py", "earliest_fit_pairs.py --live 100")],
}

# Options whose value names a file or directory the command writes.
OUTPUT_OPTIONS = ("--out", "--csv", "--svg", "--per-job", "--leases", "--shard-dir", "--gantt")
DIRECTORY_OUTPUTS = ("--out", "--shard-dir")

ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PROGRAM_WORDS = ("cmake", "ctest", "git", "apt-get", "sbatch", "wait", "time", "rm", "for")


class DocError(Exception):
    """A command the test cannot classify or run, with its document and line."""


# ---------------------------------------------------------------------------------------------
# Extraction


@dataclass
class Command:
    doc: str          # path relative to the source tree
    line: int         # line of the document where the command starts
    block: int        # line of the block's opening fence
    text: str         # continuations joined, trailing comment removed
    expected: object = None  # Expected: the `output` block after this, the block's last command


@dataclass
class Expected:
    line: int         # line of the output block's opening fence
    lines: list       # its text, one string per line
    excerpt: bool = False
    long: bool = False


def scan(text):
    """Yields (index, char, quoted) over text, quoted being True inside '...' or "..." or
    $(...) / (...): the places where shell operators and comments do not count."""
    quote = None
    depth = 0
    i = 0
    while i < len(text):
        c = text[i]
        if quote == "'":
            if c == "'":
                quote = None
            yield i, c, True
        elif quote == '"':
            if c == "\\" and i + 1 < len(text):
                yield i, c, True
                i += 1
                yield i, text[i], True
            elif c == '"':
                quote = None
                yield i, c, True
            else:
                yield i, c, True
        elif c in "'\"":
            quote = c
            yield i, c, True
        elif c == "(":
            depth += 1
            yield i, c, True
        elif c == ")" and depth:
            depth -= 1
            yield i, c, True
        else:
            yield i, c, depth > 0
        i += 1


def strip_comment(line):
    """The line without a trailing `# comment` (a # at the start of a word, outside quotes)."""
    for i, c, quoted in scan(line):
        if c == "#" and not quoted and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def split_simple(line):
    """Splits a command line at the shell operators &&, ||, ;, | and & outside quotes and
    parentheses; returns [(simple command, operator after it)], keywords of a for loop
    (`for ...`, `do`, `done`) removed."""
    parts = []
    start = 0
    skip = 0
    for i, c, quoted in scan(line):
        if skip:
            skip -= 1
            continue
        if quoted or c not in "&|;":
            continue
        op = c
        if line[i:i + 2] in ("&&", "||"):
            op = line[i:i + 2]
            skip = 1
        elif c in "&|" and line[i - 1:i] == ">":
            continue  # a redirection such as >& or >|
        parts.append((line[start:i].strip(), op))
        start = i + len(op)
    parts.append((line[start:].strip(), ""))
    simple = []
    for text, op in parts:
        if text.startswith("do "):
            text = text[3:].strip()
        if not text or text == "done" or text.startswith("for "):
            continue
        simple.append((text, op))
    return simple


def fences(path_text, with_flags=False):
    """Yields (label, fence line, [(line number, text)]) for every fenced block; with_flags,
    (label, [words after the label]) instead of the label."""
    lines = path_text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*([^\s`]*)([^`]*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, label = len(m.group(1)), m.group(2), m.group(3).lower()
        flags = m.group(4).split()
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*" + re.escape(fence) + r"\s*$", lines[i]):
            line = lines[i]
            body.append((i + 1, line[indent:] if line[:indent].isspace() else line.lstrip()))
            i += 1
        if i == len(lines):
            raise DocError(f"line {start}: code block never closed")
        yield (label, flags) if with_flags else label, start, body
        i += 1


SHELL_LABELS = {"sh", "bash", "shell", "console"}


def looks_like_command(line, programs):
    """True when an unlabelled block's line starts with a command: a path to one of our
    programs or scripts, a program of ours by name, a command the docs use, or a variable
    assignment before one of these."""
    words = line.split()
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return False
    w = words[0]
    if w.startswith("./"):
        w = w[2:]
    return (w.startswith(("build/", "scripts/", "examples/", "benchmarks/", "/usr/bin/", "$"))
            or w in programs or w in PROGRAM_WORDS)


def extract(doc, text, programs):
    """The shell commands of one Markdown document, in order."""
    commands = []
    last_block = None  # the commands of the last fenced block, if it was shell
    for (label, flags), start, body in fences(text, with_flags=True):
        if label == "output":
            if not last_block:
                raise DocError(f"{doc}:{start}: an output block that follows no shell block")
            unknown = [f for f in flags if f not in ("excerpt", "long")]
            if unknown:
                raise DocError(f"{doc}:{start}: unknown output flag(s) {' '.join(unknown)} "
                               "(excerpt, long)")
            # The lines as written (the fence's indentation removed, no other): fences() strips
            # the leading spaces that output keeps.
            raw = text.split("\n")
            indent = len(raw[start - 2]) - len(raw[start - 2].lstrip())
            lines = [raw[n - 1][indent:] if raw[n - 1][:indent].isspace() else raw[n - 1]
                     for n, _ in body]
            last_block[-1].expected = Expected(start, lines, "excerpt" in flags, "long" in flags)
            last_block = None
            continue
        last_block = None
        if label and label not in SHELL_LABELS:
            continue  # cpp, c, cmake, json, python, text...: not shell
        lines = [(n, t) for n, t in body]
        if label == "console":
            lines = [(n, t[2:]) for n, t in lines if t.startswith("$ ")]
        elif not label and not any(looks_like_command(t, programs) for _, t in lines):
            continue  # output, a formula, a drawing
        pending = None
        for n, raw in lines:
            if pending is None and (not raw.strip() or raw.lstrip().startswith("#")):
                continue
            continued = raw.rstrip().endswith("\\")
            piece = raw.rstrip()[:-1] if continued else raw
            if pending is None:
                pending = [n, piece.strip()]
            else:
                pending[1] += " " + piece.strip()
            if not continued:
                commands.append(Command(doc, pending[0], start, strip_comment(pending[1]).strip()))
                pending = None
        if pending is not None:
            raise DocError(f"{doc}:{pending[0]}: the last line continues (\\) past the block")
        last_block = [c for c in commands if c.block == start] or None
    return commands


# ---------------------------------------------------------------------------------------------
# Classification


@dataclass
class Plan:
    command: Command
    kind: str                       # run, check, skip
    text: str = ""                  # the command to run (reduced)
    reason: str = ""
    outputs: list = field(default_factory=list)   # (path text, is directory)
    python: bool = False            # needs the Python module
    component: str = ""             # benchmarks / python: a part of the build it needs
    stand_in: dict = field(default_factory=dict)
    background: bool = False        # has a command ending in &
    assignment: bool = False        # only shell variable assignments (replayed before later steps)


class Context:
    def __init__(self, source, build, shared, without, long=False):
        self.long = long  # --long: only the commands of `output long` blocks, as written
        self.source = Path(source).resolve()
        self.build = Path(build).resolve()
        self.shared = Path(shared).absolute() if shared else self.source.parent / "shared"
        self.without = set(without)
        self.programs = {p.stem for d in ("examples", "benchmarks")
                         for p in (self.source / d).glob("*.cpp")}
        self.used_skips = set()
        self.used_reductions = set()
        self._targets = None
        presets = json.loads((self.source / "CMakePresets.json").read_text())
        self.presets = {kind: {p["name"] for p in presets.get(kind, [])}
                        for kind in ("configurePresets", "buildPresets")}

    def targets(self):
        """The build tree's targets (cmake --build DIR --target help lists them for Makefiles
        and Ninja alike)."""
        if self._targets is None:
            out = subprocess.run(["cmake", "--build", str(self.build), "--target", "help"],
                                 capture_output=True, text=True, timeout=60)
            self._targets = set(re.findall(r"^\.\.\. (\S+)", out.stdout, re.M))
            self._targets |= set(re.findall(r"^(\S+): \w+", out.stdout, re.M))  # Ninja
            if out.returncode != 0 or not self._targets:
                raise DocError(f"cannot list the targets of {self.build}: {out.stderr}")
        return self._targets


def expand(word, variables, cwd):
    """$VAR, ${VAR} and $PWD in a word, from the assignments seen so far."""
    def value(m):
        name = m.group(1) or m.group(2)
        if name == "PWD":
            return str(cwd)
        if name in variables:
            return variables[name]
        raise KeyError(name)
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", value, word)


def words_of(text):
    try:
        return shlex.split(text)
    except ValueError as e:
        raise DocError(f"cannot split into words: {e}")


def classify_simple(ctx, text, variables, cwd):
    """(kind, detail) for one simple command: run / check / skip (reason) / unknown."""
    for i, entry in enumerate(SKIPS):
        if re.search(entry["pattern"], text):
            ctx.used_skips.add(i)
            return "skip", entry
    if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=\([^()]*\)$", text):
        return "run", "assignment"  # an array: sweep=(--all --configs ...)
    words = words_of(text)
    env = []
    while words and ASSIGNMENT.match(words[0]):
        env.append(words.pop(0))
    if words and words[0] == "time":
        words.pop(0)
    if not words:
        if "$(" in text or "`" in text:
            return "unknown", "an assignment from a command's output"
        return "run", "assignment"
    program = words[0]
    if program == "wait":
        return "run", "wait"
    if program == "cmake":
        return check_cmake(ctx, words)
    if program == "/usr/bin/python3":
        if len(words) > 1 and words[1] == "-c":
            return "run", "python"
        if len(words) > 1 and (ctx.source / words[1]).is_file():
            return "run", "python"
        return "unknown", f"no such script in the source tree: {words[1:2]}"
    try:
        path = expand(program, variables, cwd)
    except KeyError as e:
        return "unknown", f"{program}: ${e.args[0]} is not set by an earlier command"
    if path.startswith(str(cwd) + "/"):
        path = path[len(str(cwd)) + 1:]
    if path.startswith("./"):
        path = path[2:]
    m = re.match(r"^build/([^/]+)/(.+)$", path)
    if m and m.group(1) in MAPPED_BUILD_DIRS:
        part = m.group(2).split("/")[0]
        if not (ctx.build / m.group(2)).is_file():
            if part in ctx.without:
                return "skip", {"reason": f"{part} are not built in this build tree"}
            return "unknown", f"{path}: not in the build tree ({ctx.build / m.group(2)})"
        return "run", part
    if program in ctx.programs:
        return "unknown", (f"{program} is not on PATH as written: name it by its path, "
                           f"build/release/examples/{program}")
    return "unknown", f"{program}: not a program of the build tree nor in the SKIPS table"


def check_cmake(ctx, words):
    """cmake --preset P, cmake --build (--preset P | DIR) [--target T...]: checked, not run
    (building is the build's business); the presets and targets must exist."""
    args = words[1:]
    if args and args[0] == "--preset":
        if args[1] not in ctx.presets["configurePresets"]:
            return "unknown", f"no configure preset {args[1]} in CMakePresets.json"
        return "check", f"configure preset {args[1]} exists"
    if args and args[0] == "--build":
        targets = []
        i = 1
        while i < len(args):
            if args[i] == "--preset":
                if args[i + 1] not in ctx.presets["buildPresets"]:
                    return "unknown", f"no build preset {args[i + 1]} in CMakePresets.json"
                i += 2
            elif args[i] in ("--target", "-t"):
                i += 1
                while i < len(args) and not args[i].startswith("-"):
                    targets.append(args[i])
                    i += 1
            elif i == 1:
                m = re.match(r"^(\./)?build/([^/]+)/?$", args[i])
                if not m or m.group(2) not in MAPPED_BUILD_DIRS:
                    return "unknown", f"cmake --build {args[i]}: not a build directory of ours"
                i += 1
            else:
                i += 1
        missing = [t for t in targets if t not in ctx.targets()]
        if missing and ctx.without:
            return "skip", {"reason": f"no target {', '.join(missing)} in this build tree, "
                                      f"built without {', '.join(sorted(ctx.without))}"}
        if missing:
            return "unknown", f"no target {', '.join(missing)} in the build tree"
        return "check", "the targets " + ", ".join(targets) + " exist" if targets else "build"
    return "unknown", "a cmake command other than --preset or --build"


def reduce(ctx, command):
    entry = REDUCTIONS.get(command.text)
    if entry is None:
        return command.text
    ctx.used_reductions.add(command.text)
    text = command.text
    for old, new in entry:
        if old not in text:
            raise DocError(f"{command.doc}:{command.line}: the reduction ({old!r} -> {new!r}) "
                           "does not apply")
        text = text.replace(old, new)
    return text


def outputs_of(text):
    """(path, is directory) for each output the command names."""
    found = []
    for simple, _ in split_simple(text):
        try:
            words = shlex.split(simple)
        except ValueError:
            continue
        for i, w in enumerate(words):
            if w in OUTPUT_OPTIONS and i + 1 < len(words):
                found.append((words[i + 1], w in DIRECTORY_OUTPUTS))
            elif w.startswith("--benchmark_out="):
                found.append((w.split("=", 1)[1], False))
            elif w in (">", ">>") and i + 1 < len(words):
                found.append((words[i + 1], False))
    return found


def plan(ctx, command, variables, cwd):
    """Classifies a command line: every simple command in it must be known."""
    text = command.text if ctx.long else reduce(ctx, command)
    if command.expected and not command.expected.long and text != command.text:
        raise DocError(f"{command.doc}:{command.expected.line}: the output block is compared, but "
                       "its command is run at a reduced size (REDUCTIONS): mark it `output long`"
                       " or document a command that is quick as written")
    kinds, details = [], []
    result = Plan(command, "run", text)
    for simple, op in split_simple(text):
        kind, detail = classify_simple(ctx, simple, variables, cwd)
        if kind == "unknown":
            raise DocError(f"{command.doc}:{command.line}: cannot classify `{simple}`: {detail} "
                           "(run it, or list it in SKIPS of tests/docs/doc_commands.py with "
                           "the reason)")
        if kind == "skip":
            result.reason = detail["reason"]
            result.stand_in.update(detail.get("stand_in", {}))
        if kind == "check":
            result.reason = detail
        if kind == "run" and detail == "python":
            result.python = True
        if kind == "run" and detail in ("benchmarks", "examples"):
            result.component = detail
        if op == "&":
            result.background = True
        kinds.append(kind)
        details.append(detail)
    if "run" not in kinds or all(k == "check" for k in kinds):
        result.kind = "skip" if "skip" in kinds else "check"
    elif len(set(kinds)) > 1:
        raise DocError(f"{command.doc}:{command.line}: runs some of its commands and skips "
                       f"others ({', '.join(kinds)}): split it into lines")
    result.assignment = all(d == "assignment" for d in details)
    if result.kind == "run" and result.component == "benchmarks" and not ctx.long:
        # A benchmark measures nothing in a Debug build, and the suites take minutes there even
        # at a minimal --benchmark_min_time: the command is run as written with
        # --benchmark_list_tests=true added, which still fails on a flag Google Benchmark does
        # not know, and must list at least one benchmark (a filter that selects nothing
        # fails). The release figures are measured by hand (docs/performance.md); with --long,
        # a benchmark whose output block is long runs as written and is compared.
        if len(split_simple(text)) != 1:
            raise DocError(f"{command.doc}:{command.line}: a benchmark must be alone on its line")
        result.text = text + " --benchmark_list_tests=true"
        return result
    if result.kind == "run":
        result.outputs = outputs_of(text)
        # A plain assignment: remember it for the commands after it.
        words = words_of(text) if not split_simple(text)[1:] else []
        if words and all(ASSIGNMENT.match(w) for w in words) and "(" not in text:
            for w in words:
                name, value = w.split("=", 1)
                try:
                    variables[name] = expand(value, variables, cwd)
                except KeyError:
                    pass
    return result


# ---------------------------------------------------------------------------------------------
# Running


def fake_source_tree(ctx, root):
    """root/src: the source tree's top-level entries as symlinks, build/<d> the build tree;
    root/shared: the data when it exists. Returns the working directory."""
    work = root / "src"
    work.mkdir()
    for entry in ctx.source.iterdir():
        if entry.name not in ("build", ".git"):
            (work / entry.name).symlink_to(entry)
    (work / "build").mkdir()
    for name in MAPPED_BUILD_DIRS:
        (work / "build" / name).symlink_to(ctx.build)
    if ctx.shared.is_dir():
        (root / "shared").symlink_to(ctx.shared.resolve())
    return work


def needs_shared(text):
    return "../shared" in text or "LEASEHOLD_SHARED_DIR" in text


def run_step(script, cwd, env, timeout, separate=False):
    """Runs a bash script in its own process group; kills the group on timeout. Returns the
    exit code (None after a timeout), the output and the seconds taken; with `separate`,
    standard output alone, then standard error after the seconds."""
    started = time.monotonic()
    proc = subprocess.Popen(["/bin/bash", "-c", script], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE if separate else subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    # Whatever the script left in the background (a `&` without `wait`) dies with it.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if separate:
        return code, out, time.monotonic() - started, err
    return code, out, time.monotonic() - started


def normalised(lines):
    """Lines without trailing spaces, blank lines at the start and the end dropped."""
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def line_pattern(expected_line):
    """A documented line as a regular expression: `…` stands for any text."""
    return re.compile("".join(".*" if part == "\u2026" else re.escape(part)
                              for part in re.split("(\u2026)", expected_line)))


def compare_output(expected, out):
    """Problems (a list of sentences) between a documented output block and what the command
    printed, after normalisation (module docstring)."""
    want = normalised(expected.lines)
    got = normalised(out.split("\n"))
    if expected.excerpt:
        i = 0
        for n, line in enumerate(want):
            pattern = line_pattern(line)
            while i < len(got) and not pattern.fullmatch(got[i]):
                i += 1
            if i == len(got):
                return [f"line {n + 1} of the output block ({line!r}) is not in the output, in "
                        "order, after the lines before it"]
            i += 1
        return []
    for n, (w, g) in enumerate(zip(want, got)):
        if not line_pattern(w).fullmatch(g):
            return [f"the output block differs at its line {n + 1}:\n      documented: {w!r}\n"
                    f"      printed:    {g!r}"]
    if len(want) != len(got):
        return [f"the output block has {len(want)} lines, the command printed {len(got)}"]
    return []


def check_outputs(plans, cwd, variables):
    problems = []
    for p in plans:
        for path, is_dir in p.outputs:
            try:
                target = Path(expand(path, variables, cwd))
            except KeyError as e:
                problems.append(f"{path}: ${e.args[0]} unknown, cannot check the output")
                continue
            if not target.is_absolute():
                target = cwd / target
            if is_dir:
                files = [f for f in target.rglob("*") if f.is_file()] if target.is_dir() else []
                if not any(f.stat().st_size for f in files):
                    problems.append(f"{path}: no directory with a non-empty file was written")
            elif not target.is_file() or target.stat().st_size == 0:
                problems.append(f"{path}: not written, or empty")
    return problems


def run_document(ctx, doc, timeout):
    """Runs a document's commands; returns (failures, data skips, lines of report)."""
    text = (ctx.source / doc).read_text()
    commands = extract(doc, text, ctx.programs)
    failures, data_skips = [], []
    with tempfile.TemporaryDirectory(prefix="doc_commands.") as tmp:
        cwd = fake_source_tree(ctx, Path(tmp))
        variables = {}
        assignments = []      # shell text replayed before each step
        plans, errors = [], []
        for c in commands:
            try:
                plans.append(plan(ctx, c, variables, cwd))
            except DocError as e:
                errors.append(str(e))
        if errors:
            for e in errors:
                print("error:", e)
            return errors, []
        if ctx.long:
            # Only the long compared commands, with the assignments and stand-ins before them.
            plans = [p for p in plans if p.kind != "run" or p.assignment or
                     (p.command.expected and p.command.expected.long)]
        # Steps: a command, or background commands together with the `wait` that ends them.
        steps, group = [], []
        for p in plans:
            group.append(p)
            if p.kind != "run" or not any(q.background for q in group) or \
                    re.match(r"^wait\b", p.text):
                steps.append(group)
                group = []
        if group:
            steps.append(group)
        # How an error message may name the absent data directory.
        shared_forms = {str(ctx.shared), os.path.normpath(str(ctx.shared)), "../shared/"}
        block_env = {}
        block = None
        skipped_block = None
        for step in steps:
            first = step[0].command
            where = f"{doc}:{first.line}"
            if first.block != block:
                block, block_env = first.block, {}
            runs = [p for p in step if p.kind == "run"]
            for p in step:
                if p.kind != "run":
                    print(f"{doc}:{p.command.line}: {p.kind}: {p.command.text}\n    ({p.reason})")
                    block_env.update({k: v.format(build=ctx.build) for k, v in p.stand_in.items()})
            if not runs:
                continue
            shown = "\n    ".join(p.text for p in runs)
            if any(p.python for p in runs) and "python" in ctx.without:
                print(f"{where}: skip: {shown}\n    (the Python module is not built here)")
                continue
            if any(needs_shared(p.text) for p in runs) and not ctx.shared.is_dir():
                data_skips.append(where)
                print(f"{where}: SKIPPED: {shown}\n    ({ctx.shared} is absent)")
                continue
            env = dict(os.environ)
            env.update(block_env)
            script = "set -o pipefail\n" + "".join(a + "\n" for a in assignments) + \
                "\n".join(p.text for p in runs) + "\n"
            expected = runs[-1].command.expected
            compared = expected is not None and (ctx.long or not expected.long)
            if compared and len(runs) != 1:
                raise DocError(f"{where}: a compared command must run alone (not in the "
                               "background with others)")
            if compared:
                code, out, seconds, err = run_step(script, cwd, env, timeout, separate=True)
            else:
                code, out, seconds = run_step(script, cwd, env, timeout)
            problems = []
            if code is None:
                problems.append(f"killed after {timeout} s (add or shrink its reduction)")
            elif code != 0:
                problems.append(f"exit code {code}")
            else:
                problems += check_outputs(runs, cwd, variables)
                if compared:
                    problems += [f"{doc}:{expected.line}: {p}"
                                 for p in compare_output(expected, out)]
            if compared:
                out += err  # for the report
                if any(p.component == "benchmarks" for p in runs) and (
                        not out.strip() or "Failed to match any benchmarks" in out):
                    problems.append("the filter selects no benchmark")
            if problems and not ctx.shared.is_dir() and (
                    any(form in out for form in shared_forms) or skipped_block == block):
                data_skips.append(where)
                skipped_block = block
                print(f"{where}: SKIPPED: {shown}\n    ({ctx.shared} is absent: "
                      f"{out.strip()[-300:]})")
                continue
            if problems:
                failures.append(f"{where}: {shown}\n    " + "; ".join(problems) +
                                "\n    output (last 2000 characters):\n" + out[-2000:])
                print(f"{where}: FAILED ({seconds:.1f} s): {shown}\n    " + "; ".join(problems))
                print(out[-2000:])
                continue
            print(f"{where}: ok ({seconds:.1f} s): {shown}" +
                  (f"\n    (output compared with the block at line {expected.line})"
                   if compared else
                   "\n    (its output block is long: compared with --long)" if expected else ""))
            if len(runs) == 1 and runs[0].assignment:
                assignments.append(runs[0].text)
    return failures, data_skips


# ---------------------------------------------------------------------------------------------
# Self-checks of the extractor (cheap, no program run)


def self_check(ctx):
    errors = []

    def expect(what, got, want):
        if got != want:
            errors.append(f"self-check {what}: got {got!r}, want {want!r}")

    doc = "\n".join([
        "text", "```sh", "a --x 1 \\", "  --y 2   # comment", "# whole-line comment", "",
        "b 'q # not a comment' && c", "```", "```cpp", "int main() {}", "```", "```",
        "free  10 | ###", "```", "```", "./build/release/examples/quickstart", "```",
        "```console", "$ cmake --preset dev", "output line", "```", "   ```sh",
        "   d \\", "   e", "   ```"])
    got = [(c.line, c.text) for c in extract("x.md", doc, {"quickstart"})]
    expect("extract", got, [(3, "a --x 1 --y 2"), (7, "b 'q # not a comment' && c"),
                            (16, "./build/release/examples/quickstart"),
                            (19, "cmake --preset dev"), (23, "d e")])
    expect("split", split_simple("x & y &"), [("x", "&"), ("y", "&")])
    expect("split for", split_simple('for i in 0 1; do p "$a" --s $i/2 & done'),
           [('p "$a" --s $i/2', "&")])
    expect("split quotes", split_simple("p --f='a|b&c;d' && q 2>&1"),
           [("p --f='a|b&c;d'", "&&"), ("q 2>&1", "")])
    expect("split subshell", split_simple("x=$(sbatch a; b) && y"),
           [("x=$(sbatch a; b)", "&&"), ("y", "")])
    expect("outputs", outputs_of("p --csv a.csv --out d --benchmark_out=s.json > o.txt"),
           [("a.csv", False), ("d", True), ("s.json", False), ("o.txt", False)])
    try:
        extract("x.md", "```sh\na \\\n```\n", set())
        errors.append("self-check: a continuation past the block was accepted")
    except DocError as e:
        expect("continuation error", str(e), "x.md:2: the last line continues (\\) past the block")
    # Output blocks: attached to the last command of the shell block before them, compared
    # after normalisation with … as a wildcard; an excerpt's lines in order.
    doc = "\n".join(["```sh", "a", "b", "```", "prints:", "```output long", "x … y", "  z",
                     "```"])
    got = extract("x.md", doc, set())
    expect("output block", [(c.text, c.expected and (c.expected.lines, c.expected.long))
                            for c in got], [("a", None), ("b", (["x … y", "  z"], True))])
    block = Expected(1, ["", "total 3.5 s  ", "x … y", ""])
    expect("compare", compare_output(block, "total 3.5 s\nx 12 s y\n\n"), [])
    expect("compare differs", len(compare_output(block, "total 3.6 s\nx 1 y\n")), 1)
    expect("compare length", len(compare_output(block, "total 3.5 s\nx 1 y\nz\n")), 1)
    excerpt = Expected(1, ["b", "d …"], excerpt=True)
    expect("excerpt", compare_output(excerpt, "a\nb\nc\nd 4\n"), [])
    expect("excerpt order", len(compare_output(excerpt, "d 4\nb\n")), 1)
    try:
        extract("x.md", "```cpp\nint x;\n```\n```output\n1\n```\n", set())
        errors.append("self-check: an output block after a cpp block was accepted")
    except DocError as e:
        expect("orphan output", str(e), "x.md:4: an output block that follows no shell block")
    saved = (set(ctx.used_skips), set(ctx.used_reductions))
    try:
        plan(ctx, Command("x.md", 7, 6, "frobnicate --all"), {}, Path("/tmp"))
        errors.append("self-check: an unknown command was accepted")
    except DocError as e:
        if not str(e).startswith("x.md:7: cannot classify `frobnicate --all`"):
            errors.append(f"self-check unknown command: {e}")
    try:
        plan(ctx, Command("x.md", 3, 2, "haizea_experiment --days 1"), {}, Path("/tmp"))
        errors.append("self-check: a program not on PATH was accepted")
    except DocError as e:
        if "name it by its path" not in str(e):
            errors.append(f"self-check bare program: {e}")
    ctx.used_skips, ctx.used_reductions = saved
    # On timeout the whole process group dies, background commands included: the marker the
    # background command would write a second later never appears.
    with tempfile.TemporaryDirectory(prefix="doc_commands.") as tmp:
        code, _, _ = run_step("(sleep 1; touch marker) & wait", tmp, dict(os.environ), 0.3)
        time.sleep(1.5)
        expect("timeout", (code, (Path(tmp) / "marker").exists()), (None, False))
    return errors


def check_all(ctx):
    """Classifies every document's commands (nothing run) and checks the tables are used."""
    errors = self_check(ctx)
    docs = sorted(str(p.relative_to(ctx.source)) for p in (ctx.source / "docs").glob("*.md"))
    docs.append("README.md")
    count = 0
    with tempfile.TemporaryDirectory(prefix="doc_commands.") as tmp:
        cwd = Path(tmp)
        for doc in docs:
            variables = {}
            try:
                commands = extract(doc, (ctx.source / doc).read_text(), ctx.programs)
            except DocError as e:
                errors.append(f"{doc}: {e}")
                continue
            for c in commands:
                try:
                    plan(ctx, c, variables, cwd)
                except DocError as e:
                    errors.append(str(e))
                count += 1
    for i, entry in enumerate(SKIPS):
        if i not in ctx.used_skips:
            errors.append(f"SKIPS entry {entry['pattern']!r} matches no command of the docs: "
                          "remove it")
    for key in REDUCTIONS:
        if key not in ctx.used_reductions:
            errors.append(f"REDUCTIONS entry {key!r} matches no command of the docs (changed "
                          "in its document?): update or remove it")
    print(f"{count} commands in {len(docs)} documents classified")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--shared", default=None)
    parser.add_argument("--without", default="", help="comma-separated: benchmarks, python")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per command")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--long", action="store_true",
                        help="run only the commands of `output long` blocks, as written, and "
                             "compare their output")
    parser.add_argument("docs", nargs="*")
    args = parser.parse_args()
    ctx = Context(args.source, args.build, args.shared,
                  [w for w in args.without.split(",") if w], long=args.long)
    if args.check:
        errors = check_all(ctx)
        for e in errors:
            print("error:", e, file=sys.stderr)
        return 1 if errors else 0
    failures, skips = [], []
    started = time.monotonic()
    for doc in args.docs:
        try:
            f, s = run_document(ctx, doc, args.timeout)
        except DocError as e:
            f, s = [str(e)], []
        failures += f
        skips += s
    print(f"{time.monotonic() - started:.1f} s in all")
    if failures:
        print(f"\n{len(failures)} command(s) failed:", file=sys.stderr)
        for f in failures:
            print(f, file=sys.stderr)
        return 1
    if skips:
        print(f"skipped: {len(skips)} command(s) need the data of {ctx.shared}, which is absent: "
              + ", ".join(skips))
        return SKIP_CODE
    return 0


if __name__ == "__main__":
    sys.exit(main())
