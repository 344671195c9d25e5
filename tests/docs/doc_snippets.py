#!/usr/bin/env python3
"""Writes the code blocks of one language from a Markdown document into one source file, in
document order, so that a doc's examples are compiled and run as a test (docs/embedding.md's
C++ and C blocks: tests/CMakeLists.txt). Each block is preceded by a #line directive naming the
document and the block's first line, so a compiler error points into the doc itself.

usage: doc_snippets.py --lang cpp|c --out FILE DOC.md
Exits 1 with a message naming the document when it has no block of that language, or when a
fence is left open."""

import argparse
import pathlib
import sys


def blocks(text, lang):
    """(first line number, code) for every ```lang block."""
    found, inside, start, lines = [], False, 0, []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not inside and stripped == "```" + lang:
            inside, start, lines = True, number + 1, []
        elif inside and stripped == "```":
            found.append((start, "\n".join(lines)))
            inside = False
        elif inside:
            lines.append(line)
    if inside:
        raise ValueError(f"a ```{lang} block opened at line {start - 1} is never closed")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", required=True, choices=["cpp", "c"])
    parser.add_argument("--out", required=True)
    parser.add_argument("doc")
    args = parser.parse_args()
    doc = pathlib.Path(args.doc)
    try:
        found = blocks(doc.read_text(encoding="utf-8"), args.lang)
    except (OSError, ValueError) as e:
        print(f"doc_snippets.py: {doc}: {e}", file=sys.stderr)
        return 1
    if not found:
        print(f"doc_snippets.py: {doc}: no ```{args.lang} block", file=sys.stderr)
        return 1
    parts = [f"// Generated from {doc.name} by tests/docs/doc_snippets.py: edit the document.\n"]
    for line, code in found:
        parts.append(f'#line {line} "{doc.as_posix()}"\n{code}\n')
    out = pathlib.Path(args.out)
    text = "".join(parts)
    # Rewrite only on change, so that an unchanged doc does not rebuild its test.
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
