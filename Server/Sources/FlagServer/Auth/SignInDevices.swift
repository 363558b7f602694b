import Synchronization

/// Browsers that signed in to a console account before, recognised by a cookie of their own, so
/// that guessing at an account's password from elsewhere cannot lock its user out.
///
/// A password sign-in that succeeds gives the browser a random device token (cookie
/// ``cookieName``, `HttpOnly`, `SameSite=Strict`, for ``lifetime``); only its SHA-256 digest is
/// kept, with the account's name, in this process's memory (at most ``capacity``, the oldest
/// dropped first). A later sign-in to the same account presenting it is a known browser's: it is
/// limited by a budget of its own per device instead of the account's, the address's and the
/// server's (which strangers may have spent), and its password check runs on the checker's lane
/// of its own. A wrong password from a known browser counts against its own budget only.
///
/// Kept in memory: after a restart, or on another replica, a browser is a stranger again until
/// its next sign-in there.
final class SignInDevices: Sendable {
    static let cookieName = "flag_console_device"

    private struct Device {
        var account: String
        var expires: Double
        var issued: Int
    }

    private struct State {
        var devices: [String: Device] = [:]
        var issued = 0
    }

    /// How long a device token is recognised after it was issued (30 days).
    let lifetime: Double
    let capacity: Int
    /// Attempts per device token (5 per minute, 5 at once).
    let perDevice: RateLimiter
    private let now: @Sendable () -> Double
    private let state = Mutex(State())

    init(
        lifetime: Double = 30 * 24 * 3600, capacity: Int = 10_000, attemptsPerMinute: Int = 5,
        now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds
    ) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
        self.now = now
        perDevice = RateLimiter(perSecond: Double(attemptsPerMinute) / 60, burst: attemptsPerMinute, maximumKeys: self.capacity)
    }

    /// A new device token for a browser that just signed in to `account`.
    func issue(account: String) -> String {
        let token = ConsoleAccounts.randomHex(bytes: 32)
        let digest = TokenIssuer.digest(of: token)
        let time = now()
        state.withLock { state in
            if state.devices.count >= capacity {
                state.devices = state.devices.filter { $0.value.expires > time }
            }
            if state.devices.count >= capacity, let oldest = state.devices.min(by: { $0.value.issued < $1.value.issued }) {
                state.devices[oldest.key] = nil
            }
            state.issued += 1
            state.devices[digest] = Device(account: account, expires: time + lifetime, issued: state.issued)
        }
        return token
    }

    /// The digest under which `token` is kept and limited, when it is a live device token of
    /// `account`; `nil` otherwise.
    func recognise(_ token: String?, account: String) -> String? {
        guard let token, token.utf8.count == 64 else { return nil }
        let digest = TokenIssuer.digest(of: token)
        let time = now()
        let known = state.withLock { state -> Bool in
            guard let device = state.devices[digest] else { return false }
            guard device.expires > time else {
                state.devices[digest] = nil
                return false
            }
            return device.account == account
        }
        return known ? digest : nil
    }

    /// Takes one attempt of the device kept under `digest`; `nil` if allowed, else the seconds
    /// to wait.
    func acquire(_ digest: String) -> Int? {
        perDevice.acquire(digest)
    }
}
