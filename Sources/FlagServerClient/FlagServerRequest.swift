import Foundation

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
