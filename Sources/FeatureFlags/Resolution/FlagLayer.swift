/// The layers a flag's value passes through, lowest to highest precedence.
public enum FlagLayer: Int, Sendable, Hashable, CaseIterable, Comparable, Codable, CustomStringConvertible {
    /// The code default declared with the flag.
    case `default`
    /// The default for the running build configuration, including phase rules.
    case buildConfiguration
    /// A value from a remote provider (backend, OFREP, cache).
    case remote
    /// The user's own choice, for user-togglable flags.
    case userPreference
    /// A local developer override, where the build configuration permits overrides.
    case override

    /// Orders layers by precedence: a higher layer's value wins.
    public static func < (lhs: FlagLayer, rhs: FlagLayer) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The name used in tables and JSON output.
    public var name: String {
        switch self {
        case .default: "default"
        case .buildConfiguration: "build"
        case .remote: "remote"
        case .userPreference: "user"
        case .override: "override"
        }
    }

    /// The layer's name, as ``name`` gives it.
    public var description: String { name }
}
