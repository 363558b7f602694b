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
    /// Sign-in attempts per account name per minute (all at once at most): slow guessing of one
    /// account's password. Default 5.
    public var signInsPerAccountPerMinute: Int = 5
    /// Sign-in attempts per client address per minute (all at once at most). Default 30.
    public var signInsPerAddressPerMinute: Int = 30
    /// Threads checking passwords (bcrypt), apart from those serving requests. Default 2.
    public var passwordCheckThreads: Int = 2
    /// Password checks that may wait for a thread; one more is refused 503 with `Retry-After`. Default 8.
    public var passwordCheckQueue: Int = 8
    /// Sign-in through an OpenID provider; `nil`: passwords only.
    public var singleSignOn: OIDCConfiguration? = nil

    /// Options with the defaults documented on each member.
    public init(secureCookies: Bool = false, signInsPerSecond: Double = 10, signInBurst: Int = 20) {
        self.secureCookies = secureCookies
        self.signInsPerSecond = signInsPerSecond
        self.signInBurst = signInBurst
    }
}
