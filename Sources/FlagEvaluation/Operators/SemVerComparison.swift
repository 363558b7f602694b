/// The comparisons `sem_ver` offers, written as in flag definitions.
enum SemVerComparison: String, Sendable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// Same major version.
    case sameMajor = "^"
    /// Same major and minor version.
    case sameMinor = "~"

    func holds(_ version: SemanticVersion, _ target: SemanticVersion) -> Bool {
        switch self {
        case .equal: version == target
        case .notEqual: version != target
        case .less: version < target
        case .lessOrEqual: version <= target
        case .greater: version > target
        case .greaterOrEqual: version >= target
        case .sameMajor: version.major == target.major
        case .sameMinor: version.major == target.major && version.minor == target.minor
        }
    }
}
