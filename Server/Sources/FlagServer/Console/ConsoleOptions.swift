/// How the web console behaves.
public struct ConsoleOptions: Sendable, Hashable {
    /// Mark cookies `Secure` even without `X-Forwarded-Proto: https` (set it when a TLS proxy
    /// in front of the server does not send that header).
    public var secureCookies: Bool

    public init(secureCookies: Bool = false) {
        self.secureCookies = secureCookies
    }
}
