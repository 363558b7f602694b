#!/usr/bin/env python3
"""Type-checks the project's Apple-only code on Linux, for every Apple platform (see README.md).

For each platform (iOS, macOS, tvOS, watchOS, visionOS) and configuration (debug: `DEBUG` on,
release: off) it copies the sources of `units.txt`, rewrites `os(...)`, `canImport(...)` and
`targetEnvironment(...)` to what they are on that platform, turns Apple availability into what
the Linux compiler can enforce (see `rewrite_available`), and compiles each module with
`swiftc -emit-module` in Swift 6 mode, warnings as errors, against the stub modules of `Stubs/`
rewritten the same way. A module whose rewritten sources, flags and imported modules are the
same as one already compiled is not compiled again (most of the library does not differ between
platforms). A package plugin (`@plugin` in units.txt) is compiled as SwiftPM compiles it, for its
macOS host only, against the toolchain's real PackagePlugin and the XcodeProjectPlugin stub.

    check.py                      # the check; exit status 1 on any error or warning
    check.py --mutations          # also every wrong edit of mutations.json must be caught
    check.py --only-mutations     # just the wrong edits
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The package's floors (Package.swift `platforms:`).
FLOORS = {"iOS": (18, 0), "macOS": (15, 0), "tvOS": (18, 0), "watchOS": (11, 0), "visionOS": (2, 0)}
CONFIGS = ("debug", "release")
# `os(...)` names the compiler knows; only the checked platform is true.
OS_NAMES = set(FLOORS) | {"OSX", "Linux", "Windows", "Android", "FreeBSD", "OpenBSD", "WASI", "Cygwin", "Haiku"}
# Modules that exist on Linux and on every Apple platform, used as they are.
REAL_MODULES = {"Swift", "_Concurrency", "Foundation", "Dispatch", "Observation", "Synchronization"}
# Modules that do not exist on any Apple platform.
NON_APPLE_MODULES = {
    "Glibc", "Musl", "Android", "Bionic", "WinSDK", "WASILibc", "CRT", "FoundationNetworking",
    "FoundationEssentials", "FoundationInternationalization", "FoundationXML",
}
# A package plugin runs on the machine that builds, never on a device: Xcode builds it for macOS
# (any scheme, any destination), so a unit marked `@plugin` is checked for macOS only.
PLUGIN_HOST = "macOS"


def read_table(name):
    rows = []
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                rows.append(line)
    return rows


def toolchain_lib():
    """The toolchain's `usr/lib/swift` (beside the `swiftc` on PATH)."""
    swiftc = os.path.realpath(subprocess.run(["which", "swiftc"], capture_output=True, text=True).stdout.strip())
    return os.path.join(os.path.dirname(os.path.dirname(swiftc)), "lib", "swift")


def tools_version():
    """The package's tools version (the first line of Package.swift): what SwiftPM passes a
    plugin's compile as `-package-description-version`, so PackagePlugin's API is the one the
    manifest's version sees (`@available(_PackageDescription 6.0)` members)."""
    with open(os.path.join(ROOT, "Package.swift")) as f:
        m = re.match(r"//\s*swift-tools-version:\s*([0-9.]+)", f.readline())
    if not m:
        sys.exit("Package.swift: no swift-tools-version on its first line")
    return m.group(1)


def expand_flags(flags, where):
    """`@plugin` in a units.txt or stubs.txt line: compiled as SwiftPM compiles a package plugin,
    against the toolchain's real PackagePlugin (lib/swift/pm/PluginAPI) and with the package's
    tools version (`-package-description-version`); returns (flags, is_plugin)."""
    out, plugin = [], False
    for flag in flags:
        if flag == "@plugin":
            plugin_api = os.path.join(toolchain_lib(), "pm", "PluginAPI")
            if not os.path.exists(os.path.join(plugin_api, "PackagePlugin.swiftmodule")):
                sys.exit(f"{where}: no PackagePlugin module in {plugin_api}")
            out += ["-I", plugin_api, "-package-description-version", tools_version()]
            plugin = True
        elif flag.startswith("@"):
            sys.exit(f"{where}: unknown marker {flag}")
        else:
            out.append(flag)
    return out, plugin


def load_units():
    units = []
    for row in read_table("units.txt"):
        main, _, flags = row.partition(" -- ")
        name, *patterns = main.split()
        files = sorted({p for pattern in patterns for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)})
        if not files:
            sys.exit(f"units.txt: {name}: no file matches {patterns}")
        flags, plugin = expand_flags(flags.split(), f"units.txt: {name}")
        platforms = {PLUGIN_HOST} if plugin else set(FLOORS)
        units.append((name, [os.path.relpath(p, ROOT) for p in files], flags, patterns, platforms))
    return units


def load_stubs():
    stubs = []
    for row in read_table("stubs.txt"):
        main, _, flags = row.partition(" -- ")
        name, *platforms = main.split()
        for platform in platforms:
            if platform not in FLOORS:
                sys.exit(f"stubs.txt: {name}: unknown platform {platform}")
        flags, _ = expand_flags(flags.split(), f"stubs.txt: {name}")
        stubs.append((name, set(platforms), flags))
    return stubs


def version(text):
    parts = [int(p) for p in text.split(".")] + [0]
    return (parts[0], parts[1])


def domain(platform, v):
    """The custom availability domain standing for "<platform> <version>" above the floor."""
    return f"{platform}{v[0]}_{v[1]}"


class Rewriter:
    """Rewrites one file's text for one platform, line by line (line numbers stay)."""

    def __init__(self, platform, importable, not_importable):
        self.platform = platform
        self.floor = FLOORS[platform]
        self.importable = importable
        self.not_importable = not_importable
        self.domains = set()  # versions above the floor that some declaration is introduced in

    def condition(self, line, where):
        def os_name(m):
            name = m.group(1)
            if name not in OS_NAMES:
                raise SystemExit(f"{where}: unknown os({name})")
            return "true" if name == self.platform or (name == "OSX" and self.platform == "macOS") else "false"

        def can_import(m):
            name = m.group(1)
            if name in self.importable:
                return "true"
            if name in self.not_importable:
                return "false"
            raise SystemExit(
                f"{where}: canImport({name}): unknown to the Apple check; add a stub (stubs.txt) "
                f"or list it in check.py (REAL_MODULES / NON_APPLE_MODULES)")

        line = re.sub(r"\bos\(\s*(\w+)\s*\)", os_name, line)
        line = re.sub(r"\bcanImport\(\s*(\w+)[^)]*\)", can_import, line)
        return re.sub(r"\btargetEnvironment\(\s*\w+\s*\)", "false", line)

    def available_attribute(self, args, where):
        """`@available(...)` for this platform: dropped where it does not restrict, else one the
        Linux compiler enforces: `*, unavailable`, `*, deprecated` or a custom availability
        domain standing for "introduced in <platform> <version>"."""
        items = [a.strip() for a in split_arguments(args)]
        head = items[0]
        if head in ("*", "swift", "_PackageDescription") or head.startswith(("swift ", "_PackageDescription ")):
            return f"@available({args})"
        if head in FLOORS or head.endswith("ApplicationExtension"):  # long form: `iOS, unavailable`
            if head != self.platform:
                return ""
            out = []
            for item in items[1:]:
                key, _, value = item.partition(":")
                key, value = key.strip(), value.strip()
                if key == "unavailable":
                    return f'@available(*, unavailable, message: "unavailable on {self.platform}")'
                if key == "introduced" and version(value) > self.floor:
                    out.append(self.introduced(version(value)))
                if key == "obsoleted" and version(value) <= self.floor:
                    return f'@available(*, unavailable, message: "obsoleted in {self.platform} {value}")'
                if key == "deprecated" and (not value or version(value) <= self.floor):
                    out.append(f'@available(*, deprecated, message: "deprecated in {self.platform} {value}")')
            return " ".join(out)
        # Short form: `iOS 17.0, macOS 14.0, *`.
        for item in items:
            name, _, value = item.partition(" ")
            if name == self.platform and value.strip():
                v = version(value.strip())
                return self.introduced(v) if v > self.floor else ""
            if name not in FLOORS and name != "*" and not name.endswith("ApplicationExtension"):
                raise SystemExit(f"{where}: cannot read @available({args})")
        return ""

    def available_condition(self, keyword, args, where):
        """`#available(iOS 26, macOS 26, *)`: true on Linux, so left as it is unless it names
        this platform above the floor; then the custom domains it enables."""
        if keyword != "#available":
            return f"{keyword}({args})"
        for item in split_arguments(args):
            name, _, value = item.strip().partition(" ")
            if name == self.platform and value.strip():
                v = version(value.strip())
                if v <= self.floor:
                    return f"{keyword}({args})"
                self.domains.add(v)
                return "__AVAILABLE__" + repr(v)
        return f"{keyword}({args})"

    def introduced(self, v):
        """Introduced above the floor: every domain up to that version (a domain must be named
        alone in an attribute, so one attribute each); `finish` writes them out."""
        self.domains.add(v)
        return "__INTRODUCED__" + repr(v)

    def finish(self, text):
        """Replaces the placeholders once every version above the floor is known: an API from
        26.1 needs the domains of 26.0 and 26.1, and `#available(iOS 26.1, *)` enables both."""
        def upto(v):
            return [domain(self.platform, d) for d in sorted(self.domains) if d <= v]

        text = re.sub(r"__INTRODUCED__(\(\d+, \d+\))",
                      lambda m: " ".join(f"@available({d})" for d in upto(eval(m.group(1)))), text)
        # `#available` above the floor but below every domain (iOS 25 where only 26 is used)
        # enables nothing: `true` keeps the condition list well-formed.
        return re.sub(r"__AVAILABLE__(\(\d+, \d+\))",
                      lambda m: ", ".join(f"#available({d})" for d in upto(eval(m.group(1)))) or "true", text)

    def header(self):
        """A Clang module declaring the domains: Swift serializes Clang-declared domains into
        modules (ones defined with -define-*-availability-domain crash the 6.3.1 reader)."""
        lines = ["#include <availability_domain.h>", "int apple_check_query(void);"]
        lines += [f"CLANG_DYNAMIC_AVAILABILITY_DOMAIN({domain(self.platform, v)}, apple_check_query);"
                  for v in sorted(self.domains)]
        return "\n".join(lines) + "\n"

    def rewrite(self, text, path):
        lines = text.split("\n")
        for i, line in enumerate(lines):
            where = f"{path}:{i + 1}"
            if re.match(r"\s*#(if|elseif)\b", line):
                line = self.condition(line, where)
            line = re.sub(r"@available\(([^()]*(?:\([^()]*\)[^()]*)*)\)",
                          lambda m: self.available_attribute(m.group(1), where), line)
            line = re.sub(r"(#available|#unavailable)\(([^()]*)\)",
                          lambda m: self.available_condition(m.group(1), m.group(2), where), line)
            lines[i] = line
        return "\n".join(lines)


def split_arguments(args):
    out, depth, quoted, current = [], 0, False, ""
    for ch in args:
        if ch == '"':
            quoted = not quoted
        if not quoted and ch in "([":
            depth += 1
        if not quoted and ch in ")]":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append(current)
            current = ""
        else:
            current += ch
    out.append(current)
    return out


def imports(text):
    return set(re.findall(r"^\s*(?:@\w+\s+)*import\s+(?:\w+\s+)?(\w+)", text, re.M))


class Checker:
    def __init__(self, scratch, modules_dir, jobs, verbose):
        self.scratch = scratch
        self.modules_dir = modules_dir
        self.jobs = jobs
        self.verbose = verbose
        self.units = load_units()
        self.stubs = load_stubs()
        self.swiftc_version = subprocess.run(["swiftc", "--version"], capture_output=True, text=True).stdout
        self.compiled = {}  # key -> (ok, output)
        self.plugin = self.build_plugin()

    def build_plugin(self):
        """The `#Preview` macro, a library plugin for the compiler (PreviewMacros/)."""
        source = os.path.join(HERE, "PreviewMacros", "PreviewMacro.swift")
        host = os.path.join(toolchain_lib(), "host")
        digest = hashlib.sha256((self.swiftc_version + open(source).read()).encode()).hexdigest()[:16]
        out = os.path.join(self.scratch, "plugin", digest, "libPreviewMacros.so")
        if not os.path.exists(out):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            run = subprocess.run(
                ["swiftc", "-emit-library", "-module-name", "PreviewMacros", "-I", host, "-L", host,
                 "-lSwiftSyntax", "-lSwiftSyntaxMacros", "-Xlinker", "-rpath", "-Xlinker", host,
                 "-module-cache-path", os.path.join(self.scratch, "module-cache"),
                 source, "-o", out + ".tmp"], capture_output=True, text=True, cwd=os.path.dirname(out))
            if run.returncode != 0:
                sys.exit("building the #Preview macro failed:\n" + run.stdout + run.stderr)
            os.replace(out + ".tmp", out)
        return out

    def plan(self, platform, config, overrides):
        """The modules to compile for one platform and configuration: (name, key, files, flags, deps)."""
        stub_names = {name for name, *_ in self.stubs}
        importable = REAL_MODULES | {n for n, ps, _ in self.stubs if platform in ps} | {n for n, *_ in self.units}
        if self.modules_dir:
            importable |= {f[: -len(".swiftmodule")] for f in os.listdir(self.modules_dir) if f.endswith(".swiftmodule")}
        rewriter = Rewriter(platform, importable, NON_APPLE_MODULES | stub_names)
        steps = []
        for name, platforms, flags in self.stubs:
            if platform in platforms:
                path = os.path.join("scripts", "apple-check", "Stubs", name + ".swift")
                steps.append((name, [(path, self.source(path, overrides))], flags))
        for name, files, flags, patterns, platforms in self.units:
            if platform not in platforms:  # a package plugin: checked for its host only
                continue
            # A file a wrong edit adds (mutations.json "content") joins the module its path matches.
            added = [p for p in overrides if p not in files and any(
                fnmatch.fnmatch(p, g) or fnmatch.fnmatch(p, g.replace("**/", "")) for g in patterns)]
            steps.append((name, [(p, self.source(p, overrides)) for p in sorted(files + added)], flags))
        rewritten = [(name, [(p, rewriter.rewrite(t, p)) for p, t in files], flags) for name, files, flags in steps]
        rewritten = [(name, [(p, rewriter.finish(t)) for p, t in files], flags) for name, files, flags in rewritten]
        header = rewriter.header()
        domains_dir = os.path.join(self.scratch, "domains", hashlib.sha256(header.encode()).hexdigest()[:16])
        if not os.path.exists(os.path.join(domains_dir, "module.modulemap")):
            os.makedirs(domains_dir, exist_ok=True)
            with open(os.path.join(domains_dir, "domains.h"), "w") as f:
                f.write(header)
            with open(os.path.join(domains_dir, "module.modulemap.tmp"), "w") as f:
                f.write('module AppleCheckAvailability {\n    header "domains.h"\n    export *\n}\n')
            os.replace(os.path.join(domains_dir, "module.modulemap.tmp"), os.path.join(domains_dir, "module.modulemap"))
        # On Apple platforms URLSession and its delegates are in Foundation; on Linux in
        # FoundationNetworking, imported here into every file as Apple's Foundation would bring them.
        common = ["-Xfrontend", "-import-module", "-Xfrontend", "FoundationNetworking",
                  # The domains of the versions above the floor, imported into every file.
                  "-enable-experimental-feature", "CustomAvailability", "-I", domains_dir,
                  "-Xfrontend", "-import-module", "-Xfrontend", "AppleCheckAvailability"]
        keys, plan = {}, []
        for name, files, flags in rewritten:
            text = "".join(t for _, t in files)
            flags = list(flags) + (["-D", "DEBUG"] if config == "debug" and "DEBUG" in text else [])
            deps = sorted(m for m in set().union(*(imports(t) for _, t in files)) if m in keys)
            h = hashlib.sha256()
            for part in [self.swiftc_version, self.plugin, name, " ".join(common + flags)] + [keys[d] for d in deps]:
                h.update(part.encode() + b"\0")
            for p, t in files:
                h.update(p.encode() + b"\0" + t.encode() + b"\0")
            keys[name] = h.hexdigest()[:20]
            plan.append((name, keys[name], files, common + flags))
        return plan, keys

    def source(self, path, overrides):
        if path in overrides:
            return overrides[path]
        with open(os.path.join(ROOT, path)) as f:
            return f.read()

    def compile(self, name, key, files, flags, keys):
        out = os.path.join(self.scratch, "modules", key)
        done = os.path.join(out, name + ".swiftmodule")
        if os.path.exists(done):
            return True, ""
        src = os.path.join(self.scratch, "src", key)
        paths = []
        for p, text in files:
            dest = os.path.join(src, p)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w") as f:
                f.write(text)
            paths.append(dest)
        os.makedirs(out, exist_ok=True)
        search = []
        for k in keys.values():
            if k != key:
                search += ["-I", os.path.join(self.scratch, "modules", k)]
        if self.modules_dir:
            search += ["-I", self.modules_dir]
        command = [
            "swiftc", "-emit-module", "-wmo", "-parse-as-library", "-module-name", name,
            "-swift-version", "6", "-warnings-as-errors", "-package-name", "swift_feature_flags",
            "-load-plugin-library", self.plugin,
            "-module-cache-path", os.path.join(self.scratch, "module-cache"),
            "-emit-module-path", done + ".tmp",
        ] + search + flags + paths
        run = subprocess.run(command, capture_output=True, text=True)
        output = (run.stdout + run.stderr).replace(src + "/", "")
        if run.returncode != 0:
            return False, output
        os.replace(done + ".tmp", done)
        return True, output

    def check(self, combos, overrides=None, quiet=False):
        """Compiles every module for every (platform, config); returns (ok, diagnostics)."""
        overrides = overrides or {}
        plans = {c: self.plan(c[0], c[1], overrides) for c in combos}
        failures, log = [], []
        # One module at a time, in the order of stubs.txt then units.txt (every plan's order): a
        # stub missing on a platform (WidgetKit on tvOS) and a package plugin off its macOS host are
        # skipped there, so plans differ in length.
        order = [name for name, *_ in self.stubs] + [name for name, *_ in self.units]
        for module in order:
            wanted = {}
            for combo, (plan, keys) in plans.items():
                step = next((s for s in plan if s[0] == module), None)
                if step is None:
                    continue
                name, key, files, flags = step
                wanted.setdefault(key, (name, files, flags, {n: k for n, k in keys.items()}, []))[4].append(combo)
            if not wanted:
                continue
            with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
                futures = {key: pool.submit(self.compile, v[0], key, v[1], v[2], v[3]) for key, v in wanted.items()}
            for key, future in futures.items():
                ok, output = future.result()
                name, combos_for_key = wanted[key][0], wanted[key][4]
                label = f"{name} for " + ", ".join(f"{p} {c}" for p, c in combos_for_key)
                if not quiet and self.verbose:
                    print(("ok   " if ok else "FAIL ") + label, flush=True)
                if not ok:
                    failures.append(label)
                    log.append(f"== {label}\n{output}")
            if failures:
                break
        return not failures, "\n".join(log)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--platform", action="append", choices=sorted(FLOORS), help="only these platforms")
    parser.add_argument("--config", action="append", choices=CONFIGS, help="only these configurations")
    parser.add_argument("--mutations", action="store_true", help="also check that every wrong edit is caught")
    parser.add_argument("--only-mutations", action="store_true", help="only the wrong edits")
    parser.add_argument("--modules", default=os.path.join(ROOT, ".build", "debug", "Modules"),
                        help="the SwiftPM build's modules (Logging), default .build/debug/Modules")
    parser.add_argument("--scratch", default=os.path.join(ROOT, ".build", "apple-check"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    if not os.path.isdir(args.modules):
        sys.exit(f"{args.modules}: no such directory; build the package first (swift build)")
    checker = Checker(args.scratch, args.modules, args.jobs, args.verbose)
    combos = [(p, c) for p in (args.platform or FLOORS) for c in (args.config or CONFIGS)]
    status = 0
    if not args.only_mutations:
        ok, log = checker.check(combos)
        if ok:
            checked = [u for u in checker.units if any(p in u[4] for p, _ in combos)]
            print(f"apple check: {len(checked)} modules type-check for " + ", ".join(f"{p} {c}" for p, c in combos))
        else:
            print(log)
            print("apple check: FAILED")
            status = 1
    if args.mutations or args.only_mutations:
        status |= check_mutations(checker)
    sys.exit(status)


def check_mutations(checker):
    """Applies each wrong edit of mutations.json alone; each must fail the check where it says
    (and, where it lists `passes`, still pass there: the edit is wrong only on some platforms)."""
    with open(os.path.join(HERE, "mutations.json")) as f:
        mutations = json.load(f)
    missed = 0
    for m in mutations:
        path = m["file"]
        if "content" in m:  # a new file, so the wrong edit does not depend on others' code
            if os.path.exists(os.path.join(ROOT, path)):
                print(f"mutation '{m['name']}': {path} exists; a wrong edit that adds a file needs a new path")
                missed += 1
                continue
            overrides = {path: "\n".join(m["content"]) + "\n"}
        else:
            with open(os.path.join(ROOT, path)) as f:
                original = f.read()
            if original.count(m["find"]) != 1:
                print(f"mutation '{m['name']}': its text occurs {original.count(m['find'])} times in {path}, not once; update mutations.json")
                missed += 1
                continue
            overrides = {path: original.replace(m["find"], m["replace"])}
        configs = m.get("configs", ["debug"])
        fails = [(p, c) for p in m["fails"] for c in configs]
        problems = []
        for combo in fails:
            ok, log = checker.check([combo], overrides, quiet=True)
            if ok:
                problems.append(f"not caught on {combo[0]} {combo[1]}")
            elif m["expect"] not in log:
                problems.append(f"caught on {combo[0]} {combo[1]} but without '{m['expect']}':\n{log}")
        for combo in [(p, c) for p in m.get("passes", []) for c in configs]:
            ok, log = checker.check([combo], overrides, quiet=True)
            if not ok:
                problems.append(f"wrongly rejected on {combo[0]} {combo[1]}:\n{log}")
        if problems:
            missed += 1
            print(f"mutation '{m['name']}': " + "; ".join(problems))
        else:
            said = ([f"caught on {', '.join(m['fails'])}"] if m["fails"] else []) + (
                [f"accepted on {', '.join(m['passes'])}"] if m.get("passes") else [])
            print(f"mutation '{m['name']}': " + ", ".join(said))
    if missed:
        print(f"apple check: {missed} of {len(mutations)} wrong edits NOT caught as they should be")
        return 1
    print(f"apple check: all {len(mutations)} wrong edits caught")
    return 0


if __name__ == "__main__":
    main()
