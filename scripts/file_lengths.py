#!/usr/bin/env python3
"""Swift source files stay under a length limit (600 lines), so that each holds one concept.

    python3 scripts/file_lengths.py                        # list the longest files under Sources/
    python3 scripts/file_lengths.py --check                # fail when one passes the limit (CI)
    python3 scripts/file_lengths.py --self-test            # show the check fails on a long file
    python3 scripts/file_lengths.py --root Server/Sources  # another folder (repeatable)

A file passes the limit when it has more than 600 lines. The fix is a split along a seam of the
code (an extension by concern in `Type+Concern.swift`, a helper type in a file of its own), not at
an arbitrary line.

The check covers the library's `Sources/` only; the server's sources are to follow once the
server is restructured into modules (issue 36).
"""

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 600
DEFAULT_ROOTS = ["Sources"]


def line_count(path):
    with open(path, "rb") as file:
        return len(file.read().splitlines())


def swift_files(root):
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def measure(roots, base):
    """(lines, path relative to `base`) of every Swift file under `roots`, longest first."""
    found = []
    for root in roots:
        folder = os.path.join(base, root)
        if not os.path.isdir(folder):
            raise SystemExit(f"file_lengths: no folder {root!r} under {base}")
        for path in swift_files(folder):
            found.append((line_count(path), os.path.relpath(path, base)))
    found.sort(key=lambda entry: (-entry[0], entry[1]))
    return found


def over_limit(found, limit):
    return [(lines, path) for lines, path in found if lines > limit]


def self_test(limit):
    """A file of `limit` lines passes; one more line fails, and is named."""
    with tempfile.TemporaryDirectory() as base:
        os.makedirs(os.path.join(base, "Sources", "Module"))
        path = os.path.join(base, "Sources", "Module", "Long.swift")
        with open(path, "w") as file:
            file.write("let x = 0\n" * limit)
        at_limit = over_limit(measure(["Sources"], base), limit)
        with open(path, "a") as file:
            file.write("let y = 1")  # a last line without a newline counts too
        past_limit = over_limit(measure(["Sources"], base), limit)
    failure = None
    if at_limit:
        failure = f"a file of {limit} lines was refused: {at_limit}"
    elif past_limit != [(limit + 1, os.path.join("Sources", "Module", "Long.swift"))]:
        failure = f"a file of {limit + 1} lines was not named: {past_limit}"
    if failure:
        print(f"self-test FAILED: {failure}")
        return False
    print(f"self-test passed: {limit} lines pass, {limit + 1} fail")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when a file passes the limit")
    parser.add_argument("--self-test", action="store_true", help="show the check fails on a long file")
    parser.add_argument("--root", action="append", help="a folder to measure, relative to the repository")
    parser.add_argument("--limit", type=int, default=LIMIT, help=f"most lines a file may have (default {LIMIT})")
    parser.add_argument("--top", type=int, default=10, help="how many of the longest files to list")
    args = parser.parse_args()

    if args.self_test and not self_test(args.limit):
        return 1
    roots = args.root or DEFAULT_ROOTS
    found = measure(roots, ROOT)
    too_long = over_limit(found, args.limit)
    if args.check:
        if too_long:
            print(f"file_lengths: {len(too_long)} Swift file(s) under {', '.join(roots)} pass {args.limit} lines; "
                  "split each along a seam (Type+Concern.swift):")
            for lines, path in too_long:
                print(f"  {lines:5d}  {path}")
            return 1
        longest = f"; the longest is {found[0][1]} ({found[0][0]})" if found else ""
        print(f"file_lengths: {len(found)} Swift files under {', '.join(roots)}, none over {args.limit} lines{longest}")
        return 0
    for lines, path in found[: max(args.top, len(too_long))]:
        marker = "  over the limit" if lines > args.limit else ""
        print(f"{lines:5d}  {path}{marker}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
