import Foundation

/// Sends one HTTP request and returns the response head with its body as a stream of chunks:
/// the seam between the loader and the network. ``URLSessionTransport`` is the default; server
/// apps and tests may supply another (AsyncHTTPClient, an in-process router).
///
/// The loader reads the body only as far as it accepts it: it checks `Content-Length` first and
/// stops reading at ``RemoteConfigurationLoader/Configuration/maximumPayloadSize``, dropping the
/// stream, which should cancel the download. A transport with the whole body at hand wraps it:
///
/// ```swift
/// struct FixedTransport: HTTPTransport {
///     let response: RemoteHTTPResponse
///     func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
///         RemoteHTTPStreamingResponse(response)
///     }
/// }
/// ```
///
/// A transport throws for connection failures and incomplete responses (or finishes the body
/// stream with an error); every HTTP status, including 4xx and 5xx, is a response. The loader
/// enforces its own timeout through its clock, cancelling the task that called `send`.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head has arrived.
    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse
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

    /// A request; the timeout has the default documented on its member.
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

/// A response head and its body, arriving in chunks.
public struct RemoteHTTPStreamingResponse: Sendable {
    /// The status code.
    public var statusCode: Int
    /// Header fields, by lower-cased name.
    public var headerFields: [String: String]
    /// The body's chunks; it finishes with an error when the connection breaks off.
    public var body: AsyncThrowingStream<Data, any Error>

    /// A response whose body arrives through `body`.
    public init(statusCode: Int, headerFields: [String: String] = [:], body: AsyncThrowingStream<Data, any Error>) {
        self.statusCode = statusCode
        self.headerFields = Dictionary(
            headerFields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// A complete response, its body as one chunk.
    public init(_ response: RemoteHTTPResponse) {
        let body = response.body
        self.init(
            statusCode: response.statusCode, headerFields: response.headerFields,
            body: AsyncThrowingStream { continuation in
                if !body.isEmpty { continuation.yield(body) }
                continuation.finish()
            })
    }

    /// The value of a header field, whatever the case of `name`.
    public func value(forHeaderField name: String) -> String? {
        headerFields[name.lowercased()]
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

    /// A response with its whole body.
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
