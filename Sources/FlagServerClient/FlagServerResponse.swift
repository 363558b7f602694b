import Foundation

/// The answer of a flag server.
public struct FlagServerResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The `Location` header of a redirect.
    public var location: String?
    /// The answer's body, at most the request's limit.
    public var body: Data

    /// An answer with `status` and `body`.
    public init(status: Int, location: String? = nil, body: Data) {
        self.status = status
        self.location = location
        self.body = body
    }
}
