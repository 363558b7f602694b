/// Bounds console sign-in attempts three ways, each a token bucket: per account name (slow
/// guessing of one password), per client address (one client trying many names), and in total
/// (a bound on the bcrypt work of all attempts together).
///
/// A client refused for its own address does not use up an account's or the total's attempts,
/// so one noisy client cannot lock everybody out by itself. The total is taken only for a check
/// that runs bcrypt (``acquireCheck()``: a name that exists): attempts at names that do not exist
/// cost no bcrypt and cannot spend it. A browser the account signed in from before is limited by
/// ``SignInDevices`` instead.
struct SignInLimiter: Sendable {
    let perAccount: RateLimiter
    let perAddress: RateLimiter
    let total: RateLimiter
    /// Browsers that signed in before, limited per device instead.
    let devices = SignInDevices()

    init(options: ConsoleOptions) {
        perAccount = RateLimiter(
            perSecond: Double(options.signInsPerAccountPerMinute) / 60, burst: options.signInsPerAccountPerMinute,
            maximumKeys: 100_000)
        perAddress = RateLimiter(
            perSecond: Double(options.signInsPerAddressPerMinute) / 60, burst: options.signInsPerAddressPerMinute,
            maximumKeys: 100_000)
        total = RateLimiter(perSecond: options.signInsPerSecond, burst: options.signInBurst)
    }

    /// Why an attempt is refused, and in how many seconds to retry.
    enum Refusal: Equatable {
        case account(retryAfter: Int)
        case address(retryAfter: Int)
        case total(retryAfter: Int)

        var retryAfter: Int {
            switch self {
            case .account(let seconds), .address(let seconds), .total(let seconds): seconds
            }
        }
    }

    /// Takes one attempt from `address` that names no account (a single sign-on started here,
    /// which holds a pending sign-in until it returns or expires); `nil` if allowed.
    func acquire(address: String) -> Refusal? {
        if let seconds = perAddress.acquire(String(address.prefix(64))) { return .address(retryAfter: seconds) }
        return nil
    }

    /// Takes one attempt for `account` from `address`; `nil` if allowed.
    func acquire(account: String, address: String) -> Refusal? {
        if let seconds = perAddress.acquire(String(address.prefix(64))) { return .address(retryAfter: seconds) }
        // A name longer than any account's is kept by its first bytes: bounded memory per key.
        let accountKey = String(decoding: account.utf8.prefix(StateValidator.maximumKeyLength + 1), as: UTF8.self)
        if let seconds = perAccount.acquire(accountKey) { return .account(retryAfter: seconds) }
        return nil
    }

    /// Takes one bcrypt check from the server's total, just before it runs; `nil` if allowed.
    func acquireCheck() -> Refusal? {
        total.acquire("sign-in").map { .total(retryAfter: $0) }
    }
}
