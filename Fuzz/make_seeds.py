#!/usr/bin/env python3
"""Builds the seed corpus of every fuzz target from the repository's fixtures, the conformance
data in ../shared/conformance (when present) and the small seeds committed in Fuzz/Seeds/.

    python3 make_seeds.py OUTPUT_FOLDER

Writes OUTPUT_FOLDER/<target>/<name> files; the folder is recreated on every run, so the corpora
are never committed. Missing sources are skipped with a note.
"""
import hashlib
import json
import random
import shutil
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
ROOT = FUZZ.parent
CONFORMANCE_CANDIDATES = [ROOT.parent / "shared" / "conformance", ROOT.parent.parent / "shared" / "conformance"]
TARGETS = ["json", "definitions", "jsonlogic", "remote", "manifest", "launch", "store", "snapshot", "admin", "ofrep", "import"]

# The flag server targets' input prefixes (Sources/FlagServerFuzzer/Targets/): the admin body kinds
# in `RequestDecoders.AdminBody` order, and the URL key and environment as one byte.
ADMIN_KINDS = ["createEnvironment", "putFlag", "putSettings", "putSegment", "revert", "createToken"]
ADMIN_KEYS = {"checkout": 0, "theme": 1, "beta": 4, "new-flag": 5}
ADMIN_ENVIRONMENTS = {"production": 0, "staging": 8}


def conformance():
    for candidate in CONFORMANCE_CANDIDATES:
        if candidate.is_dir():
            return candidate
    print("make_seeds: no shared/conformance folder found; seeding from the repository only", file=sys.stderr)
    return None


class Corpus:
    def __init__(self, out):
        self.out = out
        self.counts = {target: 0 for target in TARGETS}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        name = hashlib.sha1(data).hexdigest()[:16]
        path = self.out / target / name
        if not path.exists():
            path.write_bytes(data)
            self.counts[target] += 1

    def add_json(self, target, value):
        self.add(target, json.dumps(value, ensure_ascii=False, indent=1))


def load_text(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def json_files(folder):
    return sorted(p for p in folder.rglob("*.json") if ".build" not in p.parts) if folder.is_dir() else []


def load(path):
    try:
        return json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError):
        return None


CONTEXTS = [
    {"targetingKey": "user-1", "email": "ada@example.com", "age": 42, "version": "1.2.3", "locale": "en-NZ"},
    {"targetingKey": "5c3d8535-f81a-4478-a6d3-afaa4d51199e", "color": "yellow", "customer": True},
    {},
]


def targeting_rules(document):
    """Each flag's targeting with the document's evaluators, as the jsonlogic target reads it."""
    flags = document.get("flags") if isinstance(document, dict) else None
    evaluators = document.get("$evaluators", {}) if isinstance(document, dict) else {}
    if not isinstance(flags, dict):
        return
    for flag in flags.values():
        if isinstance(flag, dict) and "targeting" in flag:
            yield {"rule": flag["targeting"], "data": CONTEXTS[0], "$evaluators": evaluators}


def admin_kind(body):
    """The admin request a body from the server's tests belongs to, by its fields."""
    if not isinstance(body, dict):
        return None
    for kind, field in (("putFlag", "variants"), ("putSettings", "enabled"), ("putSegment", "rule"),
                        ("revert", "revision"), ("createToken", "role"), ("createEnvironment", "key")):
        if field in body:
            return kind
    return None


def add_admin(corpus, kind, body):
    """One admin body, for the URL key that fits it in production (the fuzzer varies the key:
    every input writes through FlagAdmin, so the seed count is what the start-up costs)."""
    data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    key = {"putFlag": "new-flag", "putSegment": "beta"}.get(kind, "checkout")
    corpus.add("admin", bytes([ADMIN_KINDS.index(kind), ADMIN_KEYS[key] + ADMIN_ENVIRONMENTS["production"]]) + data)


def add_flagd_server_seeds(corpus, data, document):
    """A flagd document as both import formats, and its flags and segments as admin bodies."""
    corpus.add("import", b"\0" + data)
    corpus.add("import", b"\1" + data)
    flags = document.get("flags") if isinstance(document, dict) else None
    for flag in (flags or {}).values() if isinstance(flags, dict) else []:
        if not isinstance(flag, dict) or not isinstance(flag.get("variants"), dict):
            continue
        values = list(flag["variants"].values())
        kind = ("boolean" if all(isinstance(v, bool) for v in values) else
                "string" if all(isinstance(v, str) for v in values) else
                "integer" if all(isinstance(v, int) and not isinstance(v, bool) for v in values) else
                "float" if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) else "object")
        add_admin(corpus, "putFlag", {"type": kind, "variants": flag["variants"], "defaultVariant": flag.get("defaultVariant")})
        settings = {"enabled": flag.get("state") != "DISABLED", "defaultVariant": flag.get("defaultVariant") or "on"}
        if "targeting" in flag:
            settings["targeting"] = flag["targeting"]
        add_admin(corpus, "putSettings", settings)
    evaluators = document.get("$evaluators") if isinstance(document, dict) else None
    for rule in (evaluators or {}).values() if isinstance(evaluators, dict) else []:
        add_admin(corpus, "putSegment", {"rule": rule})


def server_test_bodies():
    """The request bodies in the flag server's tests (`body: #"…"#`)."""
    import re

    folder = ROOT / "Server" / "Tests"
    for path in sorted(folder.rglob("*.swift")) if folder.is_dir() else []:
        text = path.read_text()
        for match in re.finditer(r'body: #"(.*?)"#', text):
            yield match.group(1)
        for match in re.finditer(r'#"""\n(.*?)\n\s*"""#', text, re.S):
            yield match.group(1)


def examples(node):
    """Every `example` / `examples` value in an OpenAPI document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "example":
                yield value
            elif key == "examples" and isinstance(value, dict):
                for entry in value.values():
                    yield entry.get("value", entry) if isinstance(entry, dict) else entry
            else:
                yield from examples(value)
    elif isinstance(node, list):
        for element in node:
            yield from examples(element)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    for target in TARGETS:
        (out / target).mkdir(parents=True)
    corpus = Corpus(out)

    # Committed seeds: Fuzz/Seeds/<target>/*.
    for target in TARGETS:
        for path in sorted((FUZZ / "Seeds" / target).glob("*")):
            corpus.add(target, path.read_bytes())

    # Repository fixtures: manifests and other JSON in Tests/ and Examples/.
    for path in json_files(ROOT / "Tests") + json_files(ROOT / "Examples"):
        data = path.read_bytes()
        for target in ("json", "manifest", "definitions", "store"):
            corpus.add(target, data)

    # The flag server's tests: admin and OFREP bodies, import documents.
    for body in server_test_bodies():
        value = load_text(body)
        kind = admin_kind(value)
        if kind:
            add_admin(corpus, kind, body.encode())
        if isinstance(value, dict) and "context" in value:
            corpus.add("ofrep", body)
        if isinstance(value, dict) and "flags" in value:
            add_flagd_server_seeds(corpus, body.encode(), value)
    for context in CONTEXTS:
        corpus.add_json("ofrep", {"context": context})
    corpus.add("ofrep", b"")
    for path in json_files(ROOT / "Tests") + json_files(ROOT / "Examples"):
        document = load(path)
        if isinstance(document, dict) and "flags" in document:
            add_flagd_server_seeds(corpus, path.read_bytes(), document)

    shared = conformance()
    if shared:
        flag_files = json_files(shared / "flagd-evaluator") + json_files(shared / "flagd-schemas" / "json" / "test")
        flag_files += json_files(shared / "flagd-schemas" / "json" / "examples")
        for path in flag_files:
            data = path.read_bytes()
            corpus.add("json", data)
            corpus.add("definitions", data)
            corpus.add("manifest", data)
            corpus.add("store", data)
            for context in CONTEXTS[:2]:
                corpus.add("definitions", data + b"\0" + json.dumps(context).encode())
            document = load(path)
            add_flagd_server_seeds(corpus, data, document)
            for rule in targeting_rules(document):
                corpus.add_json("jsonlogic", rule)
        # flagd-schemas targeting tests: {"<name>": [rules...]} documents of bare rules.
        for path in json_files(shared / "flagd-schemas" / "json" / "test" / "targeting"):
            document = load(path)
            corpus.add("json", path.read_bytes())
            if isinstance(document, dict):
                for rules in document.values():
                    for rule in rules if isinstance(rules, list) else [rules]:
                        corpus.add_json("jsonlogic", {"rule": rule, "data": CONTEXTS[0]})
        # The JSON Logic test corpus: {"rule", "data", "result"} entries (strings are headings).
        tests = load(shared / "jsonlogic" / "compatible.json") or []
        for test in tests:
            if isinstance(test, dict) and "rule" in test:
                corpus.add_json("jsonlogic", {"rule": test["rule"], "data": test.get("data")})
                corpus.add_json("json", test)
        # OFREP: the OpenAPI examples (bulk responses become remote payloads).
        try:
            import yaml  # PyYAML, if installed

            spec = yaml.safe_load((shared / "ofrep" / "service" / "openapi.yaml").read_text())
            for example in examples(spec):
                if isinstance(example, dict) and "context" in example:
                    corpus.add_json("ofrep", example)
                corpus.add_json("remote", example)
                corpus.add_json("json", example)
        except ImportError:
            print("make_seeds: PyYAML is not installed; skipping the OFREP OpenAPI examples", file=sys.stderr)

    # Byte-driven targets (manifest's generated mode, snapshot): fixed pseudo-random inputs.
    generator = random.Random(20261123)
    for _ in range(16):
        corpus.add("snapshot", bytes(generator.randrange(256) for _ in range(generator.randrange(8, 96))))
        corpus.add("manifest", bytes(generator.randrange(1, 256) for _ in range(generator.randrange(16, 96))))

    print("make_seeds: " + ", ".join(f"{target} {count}" for target, count in corpus.counts.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
