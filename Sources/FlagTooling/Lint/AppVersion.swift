/// A dotted version such as `3.0` or `3.1.2`, compared component by component (missing
/// components count as zero, so `3.0` equals `3.0.0`).
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The version's numbers, in order (`[3, 1, 2]` for `3.1.2`).
    public let components: [Int]

    /// Parses `X.Y` or `X.Y.Z` (whole numbers); `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var components: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber), let number = Int(part) else {
                return nil
            }
            components.append(number)
        }
        self.components = components
    }

    /// Compares component by component, a missing component counting as zero.
    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// Equal when no component differs, a missing component counting as zero (`3.0` equals `3.0.0`).
    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    /// Hashes the components without trailing zeros, so that equal versions hash alike.
    public func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }

    /// The components joined by dots, as given.
    public var description: String { components.map(String.init).joined(separator: ".") }
}
