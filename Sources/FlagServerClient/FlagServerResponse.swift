import Foundation

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
