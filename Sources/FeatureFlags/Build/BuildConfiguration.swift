/// The kind of build the app is running as, which decides flag defaults and whether local
/// overrides are allowed.
///
/// The app supplies it: a library's own `#if DEBUG` describes how the library was compiled, not
/// the app. See <doc:BuildConfigurations> for the one-liners for Xcode, SwiftPM and servers.
///
/// ```swift
/// if BuildConfiguration.current ~= [.debug, .alpha] { showDiagnostics() }
/// ```
public enum BuildConfiguration: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A local developer build.
    case debug
    /// A branch test build (alpha).
    case alpha
    /// A prerelease testing build (internal, TestFlight).
    case `internal`
    /// The App Store (release) build.
    case release

    /// A human-readable name, for tables and the debug menu.
    public var displayName: String {
        switch self {
        case .debug: "Local developer (debug)"
        case .alpha: "Branch test (alpha)"
        case .internal: "Prerelease testing (internal)"
        case .release: "App Store (release)"
        }
    }

    /// The configuration's raw value (`debug`, `alpha`, `internal`, `release`).
    public var description: String { rawValue }

    /// Whether `configuration` is one of `configurations`: `current ~= [.debug, .alpha]`.
    public static func ~= (configuration: BuildConfiguration, configurations: Set<BuildConfiguration>) -> Bool {
        configurations.contains(configuration)
    }

    /// Pattern form, for `switch`: `case [.debug, .alpha]:`.
    public static func ~= (configurations: Set<BuildConfiguration>, configuration: BuildConfiguration) -> Bool {
        configurations.contains(configuration)
    }

    /// The configurations in which local developer overrides are allowed by default: all but
    /// ``release``.
    public static let overridableByDefault: Set<BuildConfiguration> = [.debug, .alpha, .internal]

    /// The name of the environment variable a server reads its configuration from.
    public static let environmentVariable = "FEATURE_FLAGS_BUILD_CONFIGURATION"

    /// Reads the configuration from an environment, for servers and command-line tools.
    ///
    /// Accepts the case names and the common aliases (`development`, `dev`, `local`, `branch`,
    /// `beta`, `prerelease`, `staging`, `testflight`, `production`, `prod`, `appstore`,
    /// `app-store`), in any letter case.
    ///
    /// ```swift
    /// let configuration = BuildConfiguration(environment: ProcessInfo.processInfo.environment) ?? .release
    /// ```
    public init?(environment: [String: String], variable: String = BuildConfiguration.environmentVariable) {
        guard let value = environment[variable], let configuration = BuildConfiguration(name: value) else {
            return nil
        }
        self = configuration
    }

    /// Parses a configuration name or one of its aliases; `nil` when unknown.
    public init?(name: String) {
        switch name.lowercased().filter({ !$0.isWhitespace }) {
        case "debug", "development", "dev", "local": self = .debug
        case "alpha", "branch", "branch-test": self = .alpha
        case "internal", "beta", "prerelease", "staging", "testflight": self = .internal
        case "release", "production", "prod", "appstore", "app-store": self = .release
        default: return nil
        }
    }
}
