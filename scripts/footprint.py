#!/usr/bin/env python3
"""What the FeatureFlags core adds to an app's binary, against a checked-in budget.

    python3 scripts/footprint.py                 # measure and print the breakdown
    python3 scripts/footprint.py --check         # and fail when the size is over the budget (CI)
    python3 scripts/footprint.py --self-test     # show the check fails below the measured size

The figure is the bytes the module's release object files (`<build>/FeatureFlags.build/*.o`, one
per source file, as SwiftPM writes them) would load into the process: every section the ELF
format marks SHF_ALLOC and that occupies the file (code, read-only data such as Swift type
metadata, strings and unwind tables, writable data), summed over the objects. Debug information,
symbol and string tables, relocations and .bss are not counted. It is read from the section
headers, so it is the same on every run for a given toolchain and sources: no timing takes part.

It is an upper bound on what linking the core costs an app: a linker that strips unreachable code
(`-dead_strip` on Apple platforms, the default there) keeps only what the app reaches. The figure
is for the machine that builds (x86_64 or arm64 ELF on Linux); an arm64 Mach-O build differs in
absolute size, so the budget guards growth, not an App Store number.

The objects come from the benchmarks' release build, which CI runs just before this check
(`swift build -c release --package-path Benchmarks`), or from `--build-dir`.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGET_FILE = os.path.join(ROOT, "scripts", "footprint-budget.json")
DEFAULT_BUILD_DIR = os.path.join(ROOT, "Benchmarks", ".build", "release")

SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
SHT_NOBITS = 8


class FootprintError(Exception):
    pass


def section_sizes(path):
    """(code, read-only data, writable data) bytes of one ELF relocatable object."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:4] != b"\x7fELF":
        raise FootprintError(f"{path}: not an ELF object file (this script reads Linux builds)")
    if data[4] != 2:
        raise FootprintError(f"{path}: a 32-bit ELF file; only 64-bit objects are read")
    endian = "<" if data[5] == 1 else ">"
    shoff = struct.unpack_from(endian + "Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x3A)
    if shnum == 0 and shoff:  # more than 0xff00 sections: the count is in section 0's size
        shnum = struct.unpack_from(endian + "Q", data, shoff + 0x20)[0]
    code = rodata = rwdata = 0
    for index in range(shnum):
        offset = shoff + index * shentsize
        sh_type, sh_flags = struct.unpack_from(endian + "IQ", data, offset + 4)
        sh_size = struct.unpack_from(endian + "Q", data, offset + 0x20)[0]
        if not sh_flags & SHF_ALLOC or sh_type == SHT_NOBITS:
            continue
        if sh_flags & SHF_EXECINSTR:
            code += sh_size
        elif sh_flags & SHF_WRITE:
            rwdata += sh_size
        else:
            rodata += sh_size
    return code, rodata, rwdata


def measure(build_dir, module):
    # The objects of the module's current sources, as the build's output file map names them (a
    # source removed since an earlier build leaves its stale object in the folder).
    folder = os.path.join(build_dir, f"{module}.build")
    try:
        with open(os.path.join(folder, "output-file-map.json")) as file:
            output_map = json.load(file)
        objects = sorted(
            os.path.join(folder, os.path.basename(entry["object"]))
            for source, entry in output_map.items() if source and "object" in entry)
    except (OSError, ValueError):
        objects = []
    missing = [path for path in objects if not os.path.exists(path)]
    if missing:
        raise FootprintError(f"{len(missing)} objects the build's output file map names are missing ({missing[0]}): rebuild")
    if not objects:
        raise FootprintError(
            f"no object files in {os.path.join(build_dir, module + '.build')}: build the release "
            "configuration first (`swift build -c release --package-path Benchmarks`) or pass "
            "--build-dir")
    files = {os.path.basename(path): section_sizes(path) for path in objects}
    code = sum(sizes[0] for sizes in files.values())
    rodata = sum(sizes[1] for sizes in files.values())
    rwdata = sum(sizes[2] for sizes in files.values())
    return {"objects": len(files), "code": code, "rodata": rodata, "data": rwdata,
            "total": code + rodata + rwdata, "files": files}


def load_budget(path):
    try:
        with open(path) as file:
            budget = json.load(file)
    except (OSError, ValueError) as error:
        raise FootprintError(f"{path}: cannot read the budget: {error}")
    for field in ("module", "budgetBytes"):
        if field not in budget:
            raise FootprintError(f"{path}: the budget has no \"{field}\" field")
    if not isinstance(budget["budgetBytes"], int) or budget["budgetBytes"] <= 0:
        raise FootprintError(f"{path}: \"budgetBytes\" must be a positive integer, not {budget['budgetBytes']!r}")
    return budget


def kib(count):
    return f"{count / 1024:,.1f} KiB"


def report(measured, module):
    print(f"{module}: {measured['objects']} release objects, {measured['total']:,} bytes ({kib(measured['total'])}) loaded:")
    print(f"  code           {measured['code']:>10,} bytes ({kib(measured['code'])})")
    print(f"  read-only data {measured['rodata']:>10,} bytes ({kib(measured['rodata'])}): type metadata, strings, unwind tables")
    print(f"  writable data  {measured['data']:>10,} bytes ({kib(measured['data'])})")
    largest = sorted(measured["files"].items(), key=lambda item: -sum(item[1]))[:5]
    print("  largest: " + ", ".join(f"{name.removesuffix('.swift.o')} {kib(sum(sizes))}" for name, sizes in largest))


def verdict(measured, budget):
    """(passed, sentence) for a measurement against a budget."""
    limit = budget["budgetBytes"]
    total = measured["total"]
    if total > limit:
        return False, (
            f"FAILED: {budget['module']} is {total:,} bytes, over its budget of {limit:,} bytes by "
            f"{total - limit:,}. Make it smaller, or raise budgetBytes in "
            f"{os.path.relpath(BUDGET_FILE, ROOT)} in the change that explains why it grew.")
    return True, f"within budget: {total:,} of {limit:,} bytes ({100 * total / limit:.1f} %), {limit - total:,} to spare"


def self_test(measured, budget, build_dir):
    """The check passes at the budget equal to the size and fails one byte below it."""
    failures = []
    at_size = dict(budget, budgetBytes=measured["total"])
    below = dict(budget, budgetBytes=measured["total"] - 1)
    if not verdict(measured, at_size)[0]:
        failures.append("a budget equal to the measured size was refused")
    passed, sentence = verdict(measured, below)
    if passed:
        failures.append("a budget one byte below the measured size passed")
    elif "over its budget" not in sentence:
        failures.append(f"the refusal does not say it is over budget: {sentence}")
    again = measure(build_dir, budget["module"])
    if again["total"] != measured["total"]:
        failures.append(f"two measurements of the same objects differ: {measured['total']} then {again['total']}")
    # binutils' `size` (Berkeley format: text is every loaded read-only section, code included;
    # data the writable ones), where installed, must agree with the section headers as read here.
    if shutil.which("size"):
        objects = [os.path.join(build_dir, f"{budget['module']}.build", name) for name in measured["files"]]
        output = subprocess.run(["size", "-t", *objects], capture_output=True, text=True).stdout.splitlines()
        totals = output[-1].split() if output else []
        if len(totals) < 2 or (int(totals[0]), int(totals[1])) != (measured["code"] + measured["rodata"], measured["data"]):
            failures.append(f"binutils' size disagrees: {' '.join(totals[:2])} against "
                            f"{measured['code'] + measured['rodata']} {measured['data']}")
    try:
        load_budget_from_text('{"module": "FeatureFlags", "budgetBytes": 0}')
        failures.append("a budget of 0 bytes was accepted")
    except FootprintError as error:
        if "budgetBytes" not in str(error):
            failures.append(f"the bad budget's error does not name the field: {error}")
    for failure in failures:
        print(f"self-test FAILED: {failure}")
    if not failures:
        print(f"self-test passed: {measured['total']:,} bytes passes a budget of {measured['total']:,} and fails "
              f"one of {measured['total'] - 1:,} ({sentence}); the same objects measure the same twice"
              f"{'; binutils size agrees' if shutil.which('size') else ''}; a budget of 0 is refused naming budgetBytes")
    return not failures


def load_budget_from_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        file.write(text)
    try:
        return load_budget(file.name)
    finally:
        os.unlink(file.name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when the module is over its budget")
    parser.add_argument("--self-test", action="store_true", help="show the check fails below the measured size")
    parser.add_argument("--build-dir", default=DEFAULT_BUILD_DIR, help="a release build directory (default: the benchmarks')")
    parser.add_argument("--budget", default=BUDGET_FILE, help="the budget file")
    args = parser.parse_args()
    try:
        budget = load_budget(args.budget)
        measured = measure(args.build_dir, budget["module"])
    except FootprintError as error:
        print(f"footprint: {error}", file=sys.stderr)
        return 2
    report(measured, budget["module"])
    passed, sentence = verdict(measured, budget)
    print(sentence)
    if args.self_test:
        if not self_test(measured, budget, args.build_dir):
            return 1
    if args.check and not passed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
