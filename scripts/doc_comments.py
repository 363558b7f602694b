#!/usr/bin/env python3
"""Every public, package and open declaration in Swift sources carries a `///` doc comment.

    python3 scripts/doc_comments.py                           # count declarations and gaps per folder
    python3 scripts/doc_comments.py --list                    # name every undocumented declaration
    python3 scripts/doc_comments.py --check                   # fail when one is undocumented (CI)
    python3 scripts/doc_comments.py --self-test               # show the check fails on a gap
    python3 scripts/doc_comments.py --root Server/Sources     # another folder (repeatable)

What counts as a declaration that needs a comment:

- a type (`struct`, `class`, `enum`, `protocol`, `actor`), function, initializer, property
  (`var`, `let`), subscript, `typealias` or macro written with `public`, `package` or `open`
  among its modifiers, at any nesting depth (`static`, `final`, `nonisolated`… may come before or
  after the access level);
- a member of a `public`/`package` extension that names no access level of its own (it inherits
  the extension's), unless it is marked `private`, `fileprivate` or `internal`;
- an enum case (`case` line) directly inside a `public`/`package`/`open` enum; one comment above a
  `case a, b` line documents every case it lists;
- a requirement (`func`, `var`, `init`, `subscript`, `associatedtype`, `typealias`) directly inside
  a `public`/`package` protocol.

An `extension` itself does not count (its members do), nor a `deinit`, nor anything `internal` or
more private. A declaration is documented when a `///` line, or a block comment opened with `/**`,
ends on the line right above it; attribute lines (`@Sendable`, `@discardableResult`,
`@available(…)`, also spanning several lines) and `#if`/`#elseif`/`#else`/`#endif` lines may come
between. A blank line or a plain `//` comment between them breaks the link. A multi-line declaration
is judged by its first line. Declarations are found by a small lexer that skips comments and string
literals (including multi-line, raw and interpolated ones), so a `public` inside a string is not a
declaration; a declaration that starts after other code on the same line (`{ public var x }`) is
not seen.
"""

import argparse
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ROOTS = ["Sources"]

ACCESS = {"public", "package", "open"}
NON_PUBLIC = {"private", "fileprivate", "internal"}
MODIFIERS = {
    "public", "package", "open", "internal", "fileprivate", "private", "static", "class", "final",
    "override", "nonisolated", "mutating", "nonmutating", "convenience", "required", "lazy",
    "indirect", "weak", "unowned", "dynamic", "optional", "distributed", "consuming", "borrowing",
    "isolated", "prefix", "postfix", "infix",
}
TYPE_KEYWORDS = {"struct", "class", "enum", "protocol", "actor"}
MEMBER_KEYWORDS = {"func", "var", "let", "init", "subscript", "typealias", "macro", "associatedtype"}
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MODIFIERS_ONLY = re.compile(
    r"^(?:(?:" + "|".join(sorted(MODIFIERS)) + r")(?:\([a-z]+\))?\s*)+$"
)


class Line:
    """What the lexer saw of one source line."""

    def __init__(self):
        self.code = []            # characters outside comments and string literals
        self.starts_in_code = True  # the line does not begin inside a comment or string
        self.doc_comment_ends = False  # a `///` line, or a `/** … */` block ending here
        self.plain_comment = False     # a `//` or `/* */` comment that is not documentation
        self.opens = 0            # `{` outside comments and strings
        self.closes = 0


def lex(text):
    """Split Swift source into lines of code with comments and string contents removed.

    Strings are tracked with a stack so that interpolations (`\\(…)`) are read as code and may hold
    strings of their own; block comments nest as Swift's do.
    """
    lines = [Line()]
    i, n = 0, len(text)
    # Each entry: ("string", closing delimiter, raw hashes, multi-line) or ("interp", paren depth).
    stack = []
    comment_depth, doc_block = 0, False

    def current():
        return lines[-1]

    while i < n:
        c = text[i]
        if c == "\n":
            lines.append(Line())
            lines[-1].starts_in_code = comment_depth == 0 and not (stack and stack[-1][0] == "string")
            i += 1
            continue
        if comment_depth:
            if text.startswith("/*", i):
                comment_depth += 1
                i += 2
            elif text.startswith("*/", i):
                comment_depth -= 1
                i += 2
                if comment_depth == 0:
                    if doc_block:
                        current().doc_comment_ends = True
                    else:
                        current().plain_comment = True
            else:
                i += 1
            continue
        if stack and stack[-1][0] == "string":
            _, closing, hashes, _multi = stack[-1]
            if c == "\\" and text.startswith("#" * hashes, i + 1):
                after = i + 1 + hashes
                if after < n and text[after] == "(":
                    stack.append(("interp", 1))
                    i = after + 1
                else:
                    i = after + 1  # an escaped character
                continue
            if text.startswith(closing + "#" * hashes, i):
                stack.pop()
                i += len(closing) + hashes
                continue
            i += 1
            continue
        # Code (top level or inside an interpolation).
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            if text.startswith("///", i) and not text.startswith("////", i):
                if not "".join(current().code).strip():
                    current().doc_comment_ends = True
            else:
                current().plain_comment = True
            i = end
            continue
        if text.startswith("/*", i):
            comment_depth = 1
            doc_block = text.startswith("/**", i) and not text.startswith("/**/", i)
            i += 2
            continue
        hashes = 0
        while i + hashes < n and text[i + hashes] == "#":
            hashes += 1
        if i + hashes < n and text[i + hashes] == '"':
            quote_at = i + hashes
            if text.startswith('"""', quote_at):
                stack.append(("string", '"""', hashes, True))
                i = quote_at + 3
            else:
                stack.append(("string", '"', hashes, False))
                i = quote_at + 1
            current().code.append('""')
            continue
        if stack and stack[-1][0] == "interp":
            if c == "(":
                stack[-1] = ("interp", stack[-1][1] + 1)
            elif c == ")":
                depth = stack[-1][1] - 1
                if depth == 0:
                    stack.pop()
                    i += 1
                    continue
                stack[-1] = ("interp", depth)
        if c == "{":
            current().opens += 1
        elif c == "}":
            current().closes += 1
        current().code.append(c)
        i += 1
    return lines


def head_of(code):
    """(modifiers, keyword, rest) of a line of code that starts a declaration, else None."""
    words = []
    position = 0
    stripped = code.strip()
    # Attributes written on the declaration's own line: `@MainActor public func`, `@available(…) public`.
    while stripped.startswith("@"):
        match = re.match(r"@[A-Za-z_][A-Za-z0-9_.]*", stripped)
        if not match:
            return None
        rest = stripped[match.end():]
        if rest.startswith("("):
            depth = 0
            for index, char in enumerate(rest):
                depth += char == "("
                depth -= char == ")"
                if depth == 0:
                    rest = rest[index + 1:]
                    break
            else:
                return None
        stripped = rest.strip()
    modifiers = []
    while True:
        match = WORD.match(stripped, position)
        if not match:
            return None
        word = match.group(0)
        position = match.end()
        if stripped.startswith("(", position) and word in MODIFIERS | {"nonisolated"}:
            close = stripped.find(")", position)
            if close == -1:
                return None
            position = close + 1  # private(set), nonisolated(unsafe)
            modifiers.append(word + "(…)")
        elif word == "class" and not re.match(r"\s+(func|var|let|subscript|init)\b", stripped[position:]):
            words.append(word)
            break
        elif word in MODIFIERS:
            modifiers.append(word)
        elif word in TYPE_KEYWORDS or word in MEMBER_KEYWORDS or word in {"case", "extension"}:
            words.append(word)
            break
        else:
            return None
        while position < len(stripped) and stripped[position] in " \t":
            position += 1
    return modifiers, words[0], stripped[position:]


def declarations(text):
    """Yield (line number, first line, documented) for each declaration that needs a comment."""
    source_lines = text.split("\n")
    lines = lex(text)
    # Scope stack: the kind of each open brace: "public-enum", "public-protocol",
    # "public-extension", "type" or "other".
    scopes = []
    pending_scope = None
    documented = False
    attribute_depth = 0  # parentheses still open in a multi-line attribute
    carried = ""  # modifiers written on a line of their own, read with the next line
    carried_from = None  # that line's number and text
    for number, line in enumerate(lines, start=1):
        code = "".join(line.code)
        stripped = code.strip()
        if not line.starts_in_code:
            documented = False
        elif attribute_depth:
            attribute_depth += stripped.count("(") - stripped.count(")")
            attribute_depth = max(attribute_depth, 0)
        elif line.doc_comment_ends and not stripped:
            documented = True
        elif not stripped and line.plain_comment:
            documented = False
        elif not stripped:
            documented = False
        elif re.match(r"#(if|elseif|else|endif)\b", stripped):
            pass
        elif stripped.startswith("@") and head_of(stripped) is None:
            balance = stripped.count("(") - stripped.count(")")
            attribute_depth = max(balance, 0)
        elif MODIFIERS_ONLY.match(stripped):
            if not carried:
                carried_from = (number, source_lines[number - 1].strip())
            carried += stripped + " "
            continue
        else:
            head = head_of(carried + stripped) if line.starts_in_code else None
            start = carried_from if carried else (number, source_lines[number - 1].strip())
            carried, carried_from = "", None
            enclosing = scopes[-1] if scopes else "top"
            if head:
                modifiers, keyword, _ = head
                explicit = {m for m in modifiers if m in ACCESS}
                private = {m for m in modifiers if m in NON_PUBLIC}
                needs = False
                if keyword == "extension":
                    pending_scope = "public-extension" if explicit else "type"
                elif keyword == "case":
                    needs = enclosing == "public-enum"
                else:
                    if explicit:
                        needs = True
                    elif enclosing == "public-extension" and not private:
                        needs = True
                    elif enclosing == "public-protocol" and keyword in MEMBER_KEYWORDS:
                        needs = True
                    public = needs
                    if keyword == "enum":
                        pending_scope = "public-enum" if public else "type"
                    elif keyword == "protocol":
                        pending_scope = "public-protocol" if public else "type"
                    elif keyword in TYPE_KEYWORDS:
                        pending_scope = "type"
                    else:
                        pending_scope = "other"
                if needs:
                    yield start[0], start[1], documented
            documented = False
        for char in code:
            if char == "{":
                scopes.append(pending_scope or "other")
                pending_scope = None
            elif char == "}":
                if scopes:
                    scopes.pop()
        if line.doc_comment_ends and stripped and not line.starts_in_code:
            documented = True


def swift_files(root):
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def survey(roots, base):
    """(declarations counted, [(path, line, text)] of those without a comment) under `roots`."""
    total, missing = 0, []
    for root in roots:
        folder = os.path.join(base, root)
        if not os.path.isdir(folder):
            raise SystemExit(f"doc_comments: no folder {root!r} under {base}")
        for path in swift_files(folder):
            with open(path, encoding="utf-8") as file:
                text = file.read()
            for number, first_line, documented in declarations(text):
                total += 1
                if not documented:
                    missing.append((os.path.relpath(path, base), number, first_line))
    return total, missing


SELF_TEST_SOURCE = '''\
/// A documented type.
public struct Documented: Sendable {
    /// A documented property.
    public let key: String

    /// Documented across an attribute spanning lines.
    @available(
        *, deprecated, message: "use key"
    )
    public var oldKey: String { key }

    /** A block doc comment. */
    @discardableResult
    public static func make() -> Int { 1 }

    let internalValue = "public let notADeclaration = 1"
    private static let text = """
        public var insideAMultiLineString: Int
        \\(Documented.self)
        """

    #if DEBUG
    /// Inside a conditional block.
    public func debugOnly() {}
    #endif

    /// Documented across an attribute whose text names a keyword.
    @available(*, deprecated, message: "use the class property")
    public static var legacy: Int { 0 }
}

/// A documented enum.
public enum Choice {
    /// Two cases, one comment.
    case a, b
    case undocumentedCase
}

/// A documented protocol.
package protocol Requirement {
    func undocumentedRequirement()
}

extension Documented {
    public
    func undocumentedAcrossLines() {}
    func internalIsFine() {}
}

public extension Documented {
    // A plain comment is not documentation.
    var undocumentedInPublicExtension: Int { 0 }
    private var privateIsFine: Int { 0 }
}

enum InternalEnum {
    case notCounted
}

public final class Undocumented {}
'''

SELF_TEST_EXPECTED = [
    (36, "case undocumentedCase"),
    (41, "func undocumentedRequirement()"),
    (45, "public"),
    (52, "var undocumentedInPublicExtension: Int { 0 }"),
    (60, "public final class Undocumented {}"),
]


def self_test():
    """The check finds exactly the undocumented declarations of a sample, and nothing documented."""
    with tempfile.TemporaryDirectory() as base:
        os.makedirs(os.path.join(base, "Sources", "Module"))
        path = os.path.join(base, "Sources", "Module", "Sample.swift")
        with open(path, "w", encoding="utf-8") as file:
            file.write(SELF_TEST_SOURCE)
        total, missing = survey(["Sources"], base)
    found = [(line, text) for _, line, text in missing]
    if found != SELF_TEST_EXPECTED or total != 14:
        print("self-test FAILED: expected 14 declarations and these gaps:")
        for line, text in SELF_TEST_EXPECTED:
            print(f"  {line}: {text}")
        print(f"found {total} declarations and these gaps:")
        for line, text in found:
            print(f"  {line}: {text}")
        return False
    print(f"self-test passed: {len(found)} undocumented declarations of {total} found, documented ones pass")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when a declaration has no doc comment")
    parser.add_argument("--self-test", action="store_true", help="show the check fails on an undocumented declaration")
    parser.add_argument("--list", action="store_true", help="name every undocumented declaration")
    parser.add_argument("--root", action="append", help="a folder to check, relative to the repository")
    args = parser.parse_args()

    if args.self_test and not self_test():
        return 1
    roots = args.root or DEFAULT_ROOTS
    total, missing = survey(roots, ROOT)
    if args.list or (args.check and missing):
        for path, line, text in missing:
            print(f"{path}:{line}: {text}")
    if args.check:
        if missing:
            print(f"doc_comments: {len(missing)} of {total} public/package declarations under "
                  f"{', '.join(roots)} have no /// comment; write one right above each")
            return 1
        print(f"doc_comments: all {total} public/package declarations under {', '.join(roots)} are documented")
        return 0
    if not args.list:
        by_folder = {}
        for path, _, _ in missing:
            folder = os.path.dirname(path)
            by_folder[folder] = by_folder.get(folder, 0) + 1
        for folder, count in sorted(by_folder.items(), key=lambda entry: (-entry[1], entry[0])):
            print(f"{count:5d}  {folder}")
        print(f"{len(missing)} of {total} public/package declarations under {', '.join(roots)} have no doc comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
