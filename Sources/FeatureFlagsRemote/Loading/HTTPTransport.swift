import Foundation

/// Sends one HTTP request and returns the whole response: the seam between the loader and the
/// network. ``URLSessionTransport`` is the default; server apps and tests may supply another
/// (AsyncHTTPClient, an in-process router).
///
/// A transport throws for connection failures and incomplete responses; every HTTP status,
/// including 4xx and 5xx, is a response. The loader enforces its own timeout through its clock,
/// cancelling the task that called `send`.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response once its body is complete.
    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPResponse
}

/// An HTTP request as the loader builds it.
public struct RemoteHTTPRequest: Sendable, Hashable {
    /// `GET` or `POST`.
    public var method: RemoteEndpoint.Method
    /// The full URL.
    public var url: URL
    /// Header fields. Never logged: they may carry credentials.
    public var headerFields: [String: String]
    /// The body, for `POST`.
    public var body: Data?
    /// How long the transport may take, as a backstop to the loader's own timeout.
    public var timeout: TimeInterval

    public init(
        method: RemoteEndpoint.Method, url: URL, headerFields: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval = 30
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.timeout = timeout
    }
}

/// A complete HTTP response.
public struct RemoteHTTPResponse: Sendable, Hashable {
    /// The status code.
    public var statusCode: Int
    /// Header fields, by lower-cased name.
    public var headerFields: [String: String]
    /// The body.
    public var body: Data

    public init(statusCode: Int, headerFields: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headerFields = Dictionary(
            headerFields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The value of a header field, whatever the case of `name`.
    public func value(forHeaderField name: String) -> String? {
        headerFields[name.lowercased()]
    }
}
