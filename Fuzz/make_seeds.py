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
TARGETS = ["json", "definitions", "jsonlogic", "remote", "manifest", "launch", "store", "snapshot"]


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
