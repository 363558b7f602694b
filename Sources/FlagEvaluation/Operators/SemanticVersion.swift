/// A semantic version (semver.org 2.0.0) as `sem_ver` compares it.
///
/// Precedence follows the specification: major, minor, patch, then pre-release (a version without
/// one ranks higher; numeric identifiers compare numerically and below alphanumeric ones; a
/// shorter list ranks lower). Build metadata is kept but never compared.
struct SemanticVersion: Sendable, Hashable, Comparable {
    enum Identifier: Sendable, Hashable, Comparable {
        case numeric(UInt64)
        case alphanumeric(String)

        static func < (lhs: Identifier, rhs: Identifier) -> Bool {
            switch (lhs, rhs) {
            case (.numeric(let a), .numeric(let b)): a < b
            case (.numeric, .alphanumeric): true
            case (.alphanumeric, .numeric): false
            case (.alphanumeric(let a), .alphanumeric(let b)): a.utf8.lexicographicallyPrecedes(b.utf8)
            }
        }
    }

    var major: UInt64
    var minor: UInt64
    var patch: UInt64
    var prerelease: [Identifier]
    var build: [String]

    /// Parses the strict form the flagd schema requires of literals: `MAJOR.MINOR.PATCH`, an
    /// optional `-pre.release` and `+build`, no `v` prefix, no leading zeros.
    init?(strict text: String) {
        self.init(text, allowPrefix: false, allowPartial: false)
    }

    /// Parses what `sem_ver` accepts at evaluation time: the strict form, optionally after `v` or
    /// `V`, and the shorthands `MAJOR` and `MAJOR.MINOR` (without pre-release or build), which
    /// mean `MAJOR.0.0` and `MAJOR.MINOR.0`.
    init?(lenient text: String) {
        self.init(text, allowPrefix: true, allowPartial: true)
    }

    private init?(_ text: String, allowPrefix: Bool, allowPartial: Bool) {
        var rest = Substring(text)
        if allowPrefix, let first = rest.first, first == "v" || first == "V" { rest = rest.dropFirst() }
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            let parts = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false)
            guard parts.allSatisfy(Self.isIdentifier) else { return nil }
            build = parts.map(String.init)
            rest = rest[..<plus]
        }
        var prerelease: [Identifier] = []
        if let dash = rest.firstIndex(of: "-") {
            let parts = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            for part in parts {
                guard Self.isIdentifier(part) else { return nil }
                if part.allSatisfy(\.isASCIIDigit) {
                    guard part == "0" || part.first != "0", let number = UInt64(part) else { return nil }
                    prerelease.append(.numeric(number))
                } else {
                    prerelease.append(.alphanumeric(String(part)))
                }
            }
            rest = rest[..<dash]
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        let hasSuffix = !build.isEmpty || !prerelease.isEmpty
        guard core.count == 3 || (allowPartial && !hasSuffix && (1...2).contains(core.count)) else { return nil }
        var numbers: [UInt64] = []
        for part in core {
            guard !part.isEmpty, part.allSatisfy(\.isASCIIDigit), part == "0" || part.first != "0",
                let number = UInt64(part)
            else { return nil }
            numbers.append(number)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.major = numbers[0]
        self.minor = numbers[1]
        self.patch = numbers[2]
        self.prerelease = prerelease
        self.build = build
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        !part.isEmpty && part.allSatisfy { $0.isASCIIDigit || $0.isASCIILetter || $0 == "-" }
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, true): return false
        case (true, false): return false
        case (false, true): return true
        case (false, false): return lhs.prerelease.lexicographicallyPrecedes(rhs.prerelease)
        }
    }

    /// Precedence equality: build metadata is ignored.
    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.patch == rhs.patch && lhs.prerelease == rhs.prerelease
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(prerelease)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
}
