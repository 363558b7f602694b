import Foundation

/// A backend endpoint: its HTTP method and its path below an environment's base URL.
///
/// Every path the package requests is declared here, so no feature hard-codes a host, port or
/// path.
public struct RemoteEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// An HTTP method.
    public enum Method: String, Sendable, Hashable {
        /// `GET`.
        case get = "GET"
        /// `POST`.
        case post = "POST"
    }

    /// The HTTP method.
    public var method: Method
    /// The path below the base URL, without a leading slash.
    public var path: String

    /// An endpoint reached with `method` at `path` below the base URL (no leading slash).
    public init(_ method: Method, path: String) {
        self.method = method
        self.path = path.hasPrefix("/") ? String(path.dropFirst()) : path
    }

    /// The app's own backend configuration: `GET {baseURL}/rpc/app_config`.
    public static let appConfig = RemoteEndpoint(.get, path: "rpc/app_config")

    /// OFREP bulk evaluation: `POST {baseURL}/ofrep/v1/evaluate/flags`.
    public static let ofrepBulkEvaluation = RemoteEndpoint(.post, path: "ofrep/v1/evaluate/flags")

    /// The endpoint's URL below `baseURL`.
    public func url(relativeTo baseURL: URL) -> URL {
        baseURL.appendingPathComponent(path)
    }

    /// `METHOD /path`.
    public var description: String { "\(method.rawValue) /\(path)" }
}
