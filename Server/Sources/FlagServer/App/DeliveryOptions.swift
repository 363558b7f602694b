/// How the delivery endpoints (OFREP, the event stream, `app_config`) treat their clients: whose
/// forwarding headers name the client (the rate limit and the event-stream cap count per
/// client), and how widely clients spread the refetches a change asks for.
public struct DeliveryOptions: Sendable, Hashable {
    /// The proxies whose `Forwarded` / `X-Forwarded-For` headers are believed (none by default).
    public var trustedProxies: TrustedProxies
    /// The refetches per second the server aims to receive after a change: each event advertises
    /// the open streams divided by this as `refetchSpreadMs` (at most 60 s); 0 advertises none.
    public var refetchesPerSecond: Int

    /// Options with no trusted proxies and a spread aiming at 5,000 refetches a second by default.
    public init(trustedProxies: TrustedProxies = .none, refetchesPerSecond: Int = 5_000) {
        self.trustedProxies = trustedProxies
        self.refetchesPerSecond = refetchesPerSecond
    }
}
