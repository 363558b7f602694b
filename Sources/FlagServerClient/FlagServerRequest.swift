import Foundation

/// One request to a flag server.
public struct FlagServerRequest: Sendable, Hashable {
    /// The HTTP method, such as `GET` or `POST`.
    public var method: String
    /// The full URL, admin path included.
    public var url: URL
    /// Header fields, including `Authorization`.
    public var headers: [String: String]
    /// The JSON body, when the request has one.
    public var body: Data?
    /// The largest answer body accepted.
    public var maximumResponseBytes: Int

    /// A request; `maximumResponseBytes` bounds the answer read.
    public init(method: String, url: URL, headers: [String: String], body: Data? = nil, maximumResponseBytes: Int) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maximumResponseBytes = maximumResponseBytes
    }
}
