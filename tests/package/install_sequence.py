#!/usr/bin/python3
"""Runs the install sequence of docs/getting-started.md as written, then uses the installed tree
as its three kinds of users would: a CMake project with find_package, a C program built by
plain gcc with `pkg-config --cflags --libs leasehold_c` alone, and `import leasehold` from the
directory Debian's python3 searches for the prefix.

The sequence is the one fenced shell block of the document that runs `cmake --install
build/install`; its `prefix=` line is pointed at a scratch prefix, and nothing else of it is
changed except what --configure-arg appends to its `cmake --preset install` line (the test
builds at -O1 without LTO to stay cheap; the commands and the install rules are the same). It
runs from a shadow of the source tree (a symlink to each top-level entry but build/), so the
preset's build/install lands in WORK and is reused by the next run.

With --installed PREFIX the sequence is not run: only the checks, on a tree installed by
someone else (package.install installs the build tree under test there).

Usage:
  install_sequence.py --source DIR --work DIR [--configure-arg ARG]... [--skip-python]
  install_sequence.py --source DIR --work DIR --installed PREFIX [--only python]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

DOC = "docs/getting-started.md"
SEQUENCE_MARK = "cmake --install build/install"


def fail(message):
    print(f"install_sequence: {message}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kwargs):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    done = subprocess.run([str(c) for c in cmd], **kwargs)
    if done.returncode != 0:
        fail(f"{cmd[0]} exited with {done.returncode}")
    return done


def shell_blocks(text):
    """The fenced ```sh blocks of a Markdown text, as (first line number, lines)."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if current is None and re.fullmatch(r"```(sh|bash|shell)", stripped):
            current, start = [], number + 1
        elif current is not None and stripped == "```":
            blocks.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def documented_sequence(source, prefix, configure_args):
    blocks = [b for b in shell_blocks((source / DOC).read_text()) if
              any(SEQUENCE_MARK in line for line in b[1])]
    if len(blocks) != 1:
        fail(f"{DOC} must have exactly one sh block running `{SEQUENCE_MARK}`, has {len(blocks)}")
    start, lines = blocks[0]
    script, prefixes, configures = [], 0, 0
    for line in lines:
        if re.match(r"prefix=", line):
            line = f"prefix='{prefix}'  # {DOC}:{start}: {line}"
            prefixes += 1
        elif line.startswith("cmake --preset install"):
            code, _, comment = line.partition("#")
            line = " ".join([code.rstrip(), *configure_args])
            configures += 1
        script.append(line)
    if prefixes != 1 or configures != 1:
        fail(f"{DOC}:{start}: the sequence must set prefix= once and run `cmake --preset "
             f"install` once (found {prefixes} and {configures})")
    return "\n".join(script) + "\n"


def shadow_source(source, shadow):
    """A directory that looks like the source tree, whose build/ is its own."""
    shadow.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        if entry.name == "build":
            continue
        link = shadow / entry.name
        if link.is_symlink() or link.exists():
            if link.is_symlink() and link.resolve() == entry.resolve():
                continue
            fail(f"{link} exists and is not a link to {entry}")
        link.symlink_to(entry)


def python_site_dir():
    """The site directory, relative to the prefix, that Debian's python3 searches for
    /usr/local (lib/python3.X/dist-packages); another interpreter's own for its prefix."""
    code = ("import os, site, sys\n"
            "local = [p for p in site.getsitepackages() if p.startswith('/usr/local/')]\n"
            "print(os.path.relpath(local[0], '/usr/local') if local else "
            "os.path.relpath(site.getsitepackages()[0], sys.prefix))\n")
    return subprocess.run(["/usr/bin/python3", "-c", code], check=True, capture_output=True,
                          text=True).stdout.strip()


def check_find_package(source, prefix, work):
    build = work / "find_package"
    shutil.rmtree(build, ignore_errors=True)
    run(["cmake", "-S", source / "tests/package/find_package", "-B", build,
         f"-DCMAKE_PREFIX_PATH={prefix}"], stdout=subprocess.DEVNULL)
    run(["cmake", "--build", build, "-j2"], stdout=subprocess.DEVNULL)
    run([build / "consumer"])


def check_pkg_config(source, prefix, work):
    pc_dir = prefix / "lib" / "pkgconfig"
    if not (pc_dir / "leasehold_c.pc").is_file():
        fail(f"no leasehold_c.pc in {pc_dir}, where {DOC} says it is")
    env = dict(os.environ, PKG_CONFIG_PATH=str(pc_dir))
    flags = run(["pkg-config", "--cflags", "--libs", "leasehold_c"], env=env,
                capture_output=True, text=True).stdout.split()
    print("pkg-config --cflags --libs leasehold_c:", " ".join(flags))
    program = work / "pkg_config_consumer"
    run(["gcc", "-std=c99", "-o", program, source / "tests/package/pkg_config_c/consumer.c",
         *flags])
    run([program])


def check_python(prefix, work):
    site_dir = prefix / python_site_dir()
    if not (site_dir / "leasehold" / "__init__.py").is_file():
        fail(f"the Python package is not in {site_dir}, the directory Debian's python3 searches "
             f"for a /usr/local prefix")
    code = ("import leasehold, sys\n"
            f"assert leasehold.__file__.startswith({str(site_dir)!r}), leasehold.__file__\n"
            "p = leasehold.free_tree(10)\n"
            "p.reserve(0, 10, 6)\n"
            "assert p.earliest_fit(5, 5) == 10, p.earliest_fit(5, 5)\n"
            "print('import leasehold', leasehold.__version__, 'from', leasehold.__file__)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(site_dir)
    # From a directory of its own, so that nothing of the source or build tree is importable.
    run(["/usr/bin/python3", "-c", code], env=env, cwd=work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--configure-arg", action="append", default=[])
    parser.add_argument("--installed", type=Path)
    parser.add_argument("--only", choices=["python"])
    parser.add_argument("--skip-python", action="store_true",
                        help="the build under test has no Python module")
    args = parser.parse_args()
    source, work = args.source.resolve(), args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)

    if args.installed:
        prefix = args.installed.resolve()
    else:
        prefix = work / "prefix"
        shutil.rmtree(prefix, ignore_errors=True)
        shadow = work / "source"
        shadow_source(source, shadow)
        script = documented_sequence(source, prefix, args.configure_arg)
        print(script, flush=True)
        run(["bash", "-euo", "pipefail", "-c", script], cwd=shadow)

    if args.only != "python":
        check_find_package(source, prefix, work)
        check_pkg_config(source, prefix, work)
    if not args.skip_python:
        check_python(prefix, work)
    print(f"install_sequence: the installed tree in {prefix} works")


if __name__ == "__main__":
    main()
