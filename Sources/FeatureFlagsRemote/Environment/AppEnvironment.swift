import Foundation
import Logging

/// Where the app runs against: a named backend with its base URL, plus what the app says about
/// itself in requests (bundle identifier, version, build) and how much it logs by default.
///
/// Choosing an environment is a value operation: nothing touches the network until a
/// ``RemoteConfigurationLoader`` is asked to load.
///
/// ```swift
/// let environment = AppEnvironment(
///     .prod, baseURL: URL(string: "https://api.example.com")!,
///     bundleIdentifier: "com.example.app", appVersion: "3.2.0", build: "412")
/// let url = environment.url(for: .appConfig)   // https://api.example.com/rpc/app_config
/// ```
///
/// Environments hold no secrets: credentials belong in the keychain or the server's secret
/// store, never in an environment or a configuration payload.
public struct AppEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The environment's name.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
        /// Development: local or shared development backends.
        case dev
        /// Staging: production-like backends for testing releases.
        case stage
        /// Production.
        case prod

        /// The name (`dev`, `stage`, `prod`).
        public var description: String { rawValue }

        /// The log level an environment uses unless told otherwise: `debug` in dev, `info` in
        /// stage and `notice` in prod.
        public var defaultLogLevel: Logger.Level {
            switch self {
            case .dev: .debug
            case .stage: .info
            case .prod: .notice
            }
        }
    }

    /// The environment's name.
    public var name: Name
    /// The backend every ``RemoteEndpoint`` is resolved against.
    public var baseURL: URL
    /// The app's bundle identifier (or a server's service name).
    public var bundleIdentifier: String
    /// The marketing version, such as `3.2.0`.
    public var appVersion: String
    /// The build number.
    public var build: String
    /// The log level to configure for this environment.
    public var defaultLogLevel: Logger.Level

    /// An environment named `name` at `baseURL`; its log level defaults to the name's (``Name/defaultLogLevel``).
    public init(
        _ name: Name,
        baseURL: URL,
        bundleIdentifier: String,
        appVersion: String,
        build: String,
        defaultLogLevel: Logger.Level? = nil
    ) {
        self.name = name
        self.baseURL = baseURL
        self.bundleIdentifier = bundleIdentifier
        self.appVersion = appVersion
        self.build = build
        self.defaultLogLevel = defaultLogLevel ?? name.defaultLogLevel
    }

    /// The full URL of an endpoint in this environment.
    public func url(for endpoint: RemoteEndpoint) -> URL {
        endpoint.url(relativeTo: baseURL)
    }

    /// The `User-Agent` the loader sends: `bundle/version (build)`.
    public var userAgent: String { "\(bundleIdentifier)/\(appVersion) (\(build))" }

    /// The name, for logs. The base URL is left out so logs don't pin infrastructure.
    public var description: String { name.rawValue }
}
