import Foundation

/// A change-notification stream an OFREP bulk response advertises in `eventStreams`.
///
/// ```json
/// "eventStreams": [{"type": "sse", "endpoint": {"requestUri": "/ofrep/v1/events"}, "inactivityDelaySec": 120}]
/// ```
///
/// Its URL may carry channel names or tokens, so it prints without its query
/// (`<REDACTED>`) and is never logged or cached apart from the raw payload.
public struct RemoteEventStream: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The connection type; the loader follows `sse` and ignores others.
    public var type: String
    /// The full URL (`url`), when the server gave one.
    public var url: String?
    /// The origin (`endpoint.origin`), when the server gave one; otherwise the environment's.
    public var origin: String?
    /// The request target (`endpoint.requestUri`), such as `/ofrep/v1/events`.
    public var requestURI: String?
    /// Seconds of inactivity (the app in the background) after which the connection closes
    /// (`inactivityDelaySec`, at least 1).
    public var inactivityDelay: TimeInterval?

    /// A stream as the server advertised it; not checked until it is followed.
    public init(
        type: String, url: String? = nil, origin: String? = nil, requestURI: String? = nil,
        inactivityDelay: TimeInterval? = nil
    ) {
        self.type = type
        self.url = url
        self.origin = origin
        self.requestURI = requestURI
        self.inactivityDelay = inactivityDelay
    }

    /// The most entries of `eventStreams` read (8), and the longest string read from one (2 KiB).
    static let maximumCount = 8
    static let maximumStringLength = 2048
    /// The inactivity delay OFREP assumes when neither the app nor the server sets one.
    public static let defaultInactivityDelay: TimeInterval = 120

    /// Whether the loader can follow it (`sse`).
    public var isServerSentEvents: Bool { type == "sse" }

    /// The URL to connect to for an environment at `baseURL`: `url` as is, or `requestURI`
    /// against `origin` (the environment's origin when absent). A URL on another origin than
    /// `baseURL` is refused, so the app's credentials never leave its origin.
    public func resolvedURL(relativeTo baseURL: URL) -> Result<URL, RemoteLoadError> {
        guard let baseOrigin = RedirectPolicy.Origin(baseURL) else {
            return .failure(refusal("the environment's base URL has no host"))
        }
        let resolved: URL?
        if let url {
            resolved = URL(string: url, relativeTo: baseURL)?.absoluteURL
        } else if let requestURI, requestURI.hasPrefix("/") {
            let originURL = origin.flatMap { URL(string: $0) } ?? Self.origin(of: baseURL)
            resolved = originURL.flatMap { URL(string: requestURI, relativeTo: $0)?.absoluteURL }
        } else {
            return .failure(refusal("it has neither a 'url' nor an 'endpoint.requestUri' starting with '/'"))
        }
        guard let resolved, let target = RedirectPolicy.Origin(resolved), ["http", "https"].contains(target.scheme) else {
            return .failure(refusal("its URL is not an http or https URL with a host"))
        }
        guard target == baseOrigin else {
            return .failure(
                refusal(
                    "it is on another origin (\(target)) than the environment (\(baseOrigin)); credentials never leave the environment's origin"
                ))
        }
        return .success(resolved)
    }

    /// `baseURL` without its path, query and fragment, its port as written.
    private static func origin(of baseURL: URL) -> URL? {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true) else { return nil }
        components.path = ""
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url
    }

    private func refusal(_ reason: String) -> RemoteLoadError {
        RemoteLoadError(.eventStreamRefused, message: "The advertised event stream is not followed: \(reason).")
    }

    /// The type and where it leads, its URL's query left out (it may carry credentials).
    public var description: String {
        var parts = ["type: \(type)"]
        if let url { parts.append("url: \(Self.withoutQuery(url))") }
        if let origin { parts.append("origin: \(origin)") }
        if let requestURI { parts.append("requestUri: \(Self.withoutQuery(requestURI))") }
        if let inactivityDelay { parts.append("inactivityDelaySec: \(Int(inactivityDelay))") }
        return "RemoteEventStream(\(parts.joined(separator: ", ")))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: the fields of ``description``, URLs without their query.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "type": type, "url": url.map(Self.withoutQuery) as Any, "origin": origin as Any,
                "requestURI": requestURI.map(Self.withoutQuery) as Any, "inactivityDelay": inactivityDelay as Any,
            ], displayStyle: .struct)
    }

    private static func withoutQuery(_ text: String) -> String {
        guard let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return text }
        return text[..<query] + "?" + redacted
    }
}
