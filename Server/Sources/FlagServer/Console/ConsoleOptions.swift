/// How the web console behaves.
public struct ConsoleOptions: Sendable, Hashable {
    /// Mark cookies `Secure` even without `X-Forwarded-Proto: https` (set it when a TLS proxy
    /// in front of the server does not send that header).
    public var secureCookies: Bool
    /// Sign-in attempts the server checks per second, across all names (each costs a bcrypt
    /// check): a bound on the work password guessing can cause.
    public var signInsPerSecond: Double
    /// Sign-in attempts allowed at once before ``signInsPerSecond`` applies.
    public var signInBurst: Int

    public init(secureCookies: Bool = false, signInsPerSecond: Double = 2, signInBurst: Int = 10) {
        self.secureCookies = secureCookies
        self.signInsPerSecond = signInsPerSecond
        self.signInBurst = signInBurst
    }
}
