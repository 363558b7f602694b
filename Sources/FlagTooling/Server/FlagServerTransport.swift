import Foundation

/// Sends one HTTP request to a flag server and collects the answer. ``FlagServerClient`` uses
/// ``URLSessionFlagServerTransport``; tests substitute their own.
public protocol FlagServerTransport: Sendable {
    /// Sends `request`; the body of the answer is at most `maximumResponseBytes` bytes.
    func send(_ request: FlagServerRequest) throws(FlagServerTransportError) -> FlagServerResponse
}

/// One request to a flag server.
public struct FlagServerRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    /// Header fields, including `Authorization`.
    public var headers: [String: String]
    public var body: Data?
    /// The largest answer body accepted.
    public var maximumResponseBytes: Int

    public init(method: String, url: URL, headers: [String: String], body: Data? = nil, maximumResponseBytes: Int) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maximumResponseBytes = maximumResponseBytes
    }
}

/// The answer of a flag server.
public struct FlagServerResponse: Sendable, Hashable {
    public var status: Int
    /// The `Location` header of a redirect.
    public var location: String?
    public var body: Data

    public init(status: Int, location: String? = nil, body: Data) {
        self.status = status
        self.location = location
        self.body = body
    }
}

/// Why a request got no usable answer.
public enum FlagServerTransportError: Error, Sendable, Hashable {
    /// The connection failed or timed out; the text says why.
    case unreachable(String)
    /// The answer's body is larger than the request's limit.
    case tooLarge(limit: Int)
}
