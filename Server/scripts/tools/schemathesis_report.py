#!/usr/bin/env python3
"""Reads schemathesis JSON run reports and compares their failures with an expected-failures file.

    schemathesis_report.py EXPECTED REPORT...

EXPECTED lists one failure a line, `<failure type> <METHOD> <path>`, then ` # ` and the reason
(the type is schemathesis's name for the failed check, as this script prints it). Prints every
failure, then `N passed, N failed (N expected)` over the operations tested (an operation fails when
any check failed on it), and exits 1 when a failure is not listed or a report has errors.
"""
import json
import sys


def main():
    expected_path, reports = sys.argv[1], sys.argv[2:]
    expected = {}
    for line in open(expected_path, encoding="utf-8"):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        failure, _, reason = text.partition(" # ")
        expected[" ".join(failure.split())] = reason.strip()

    tested, errors = 0, []
    failures = {}  # operation -> the failures seen on it
    for path in reports:
        report = json.load(open(path, encoding="utf-8"))
        tested += report["operations"]["tested"]
        errors += [f'{error["title"]} ({error["count"]}x)' for error in report.get("errors", [])]
        for group in report.get("failures", []):
            for operation in group["operations"]:
                failures.setdefault(operation, []).append((f'{group["type"]} {operation}', group["title"]))
    unexpected = []
    for operation in sorted(failures):
        for failure, title in failures[operation]:
            if failure in expected:
                print(f"  expected failure {failure}: {expected[failure]}")
            else:
                unexpected.append(failure)
                print(f"  UNEXPECTED failure {failure}: {title}")
    for error in errors:
        print(f"  ERROR {error}")
    seen = {failure for listed in failures.values() for failure, _ in listed}
    for failure in sorted(set(expected) - seen):
        print(f"  listed but not seen in this run: {failure}")
    accepted = sum(all(failure in expected for failure, _ in listed) for listed in failures.values())
    print(f"schemathesis: {tested - len(failures)} passed, {len(failures)} failed ({accepted} expected)")
    sys.exit(1 if unexpected or errors else 0)


if __name__ == "__main__":
    main()
