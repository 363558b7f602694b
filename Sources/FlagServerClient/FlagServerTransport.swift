import Foundation

/// Sends one HTTP request to a flag server and collects the answer. ``FlagServerClient`` uses
/// ``URLSessionFlagServerTransport``; tests substitute their own.
public protocol FlagServerTransport: Sendable {
    /// Sends `request`; the body of the answer is at most `maximumResponseBytes` bytes.
    func send(_ request: FlagServerRequest) throws(FlagServerTransportError) -> FlagServerResponse
}
