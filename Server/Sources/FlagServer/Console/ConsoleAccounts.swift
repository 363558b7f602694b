import Crypto
import FlagEvaluation
import FlagServerModel
public import Foundation
import HummingbirdBcrypt
import Synchronization

/// Console users and sessions: bcrypt passwords, session ids stored as SHA-256 digests, CSRF
/// tokens derived from the session id.
///
/// ```swift
/// let accounts = ConsoleAccounts(store: sqliteStore)
/// try await accounts.createUser(name: "alice", password: "correct horse battery", role: .editor)
/// let session = try await accounts.signIn(name: "alice", password: "correct horse battery")
/// ```
public final class ConsoleAccounts: Sendable {
    /// Where users and sessions are kept.
    public let store: any ConsoleAccountStore
    /// How long a session lasts after sign-in.
    public let sessionLifetime: TimeInterval
    /// The bcrypt cost of new password hashes.
    let passwordCost: UInt8
    let now: @Sendable () -> Date
    /// A hash of the same cost that no password is known for, checked when the name is unknown;
    /// made on the password pool at the first use.
    private let unknownUserHash = Mutex<String?>(nil)
    /// Where sign-in's bcrypt checks run: threads of their own, with a bounded queue.
    let passwordChecker: PasswordChecker
    /// How long the latest bcrypt checks took (smoothed): what a sign-in at a name that does not
    /// exist waits instead of running one. `nil` until a check ran.
    private let checkDuration = Mutex<Duration?>(nil)

    /// The shortest password a user may be given.
    public static let minimumPasswordLength = 12
    /// bcrypt reads at most 72 bytes; longer passwords are refused rather than silently cut.
    public static let maximumPasswordBytes = 72

    /// Accounts in `store`: sessions last `sessionLifetime` seconds (12 hours by default), passwords are
    /// hashed with bcrypt at `passwordCost`, and checked on `passwordCheckThreads` threads of their own
    /// with at most `passwordCheckQueue` checks waiting.
    public init(
        store: any ConsoleAccountStore, sessionLifetime: TimeInterval = 12 * 3600, passwordCost: UInt8 = 12,
        now: @escaping @Sendable () -> Date = Date.init, passwordCheckThreads: Int = 2, passwordCheckQueue: Int = 8
    ) {
        passwordChecker = PasswordChecker(threads: passwordCheckThreads, queue: passwordCheckQueue)
        self.store = store
        self.sessionLifetime = sessionLifetime
        self.passwordCost = passwordCost
        self.now = now
    }

    /// The hash checked for an unknown name, made once on the password pool.
    private func unknownHash() async throws(PasswordChecker.Busy) -> String {
        if let hash = unknownUserHash.withLock({ $0 }) { return hash }
        let cost = passwordCost
        let hash = try await passwordChecker.run { Bcrypt.hash(Self.randomHex(bytes: 16), cost: cost) }
        return unknownUserHash.withLock { stored in
            if let stored { return stored }
            stored = hash
            return hash
        }
    }

    /// A signed-in session: the id goes into the cookie, the user acts.
    public struct SignedIn: Sendable {
        /// The session's id, which goes into the cookie; only its digest is stored.
        public var sessionID: String
        /// The user signed in.
        public var user: ConsoleUser
    }

    /// Creates a user with a bcrypt hash of `password`, audited as `actor`'s change.
    ///
    /// - Throws: ``AdminError/badRequest(_:)`` for a bad name or password,
    ///   ``AdminError/conflict(_:)`` if the name is taken.
    @discardableResult
    public func createUser(
        name: String, password: String, role: ConsoleRole, actor: String = ConsoleAccounts.commandLineActor
    ) async throws(AdminError) -> ConsoleUser {
        guard StateValidator.isValidKey(name) else { throw .badRequest("name: \"\(name)\" \(StateValidator.keyRule)") }
        try Self.check(password: password)
        // Hashed on the password pool's threads, not on a thread serving requests.
        let cost = passwordCost
        let hash = await passwordChecker.hash { Bcrypt.hash(password, cost: cost) }
        let user = ConsoleUser(name: name, passwordHash: hash, role: role, createdAt: now())
        do {
            try await store.insertConsoleUser(user, audit: audit(actor: actor, reason: "create", before: nil, after: user))
        } catch {
            throw AdminError(store: error)
        }
        return user
    }

    /// The actor recorded for changes made with `flag-server add-user` and its friends.
    public static let commandLineActor = "flag-server (command line)"

    /// Every user, by name.
    public func users() async throws(AdminError) -> [ConsoleUser] {
        do { return try await store.consoleUsers() } catch { throw AdminError(store: error) }
    }

    /// Gives `name` another role and/or disables it (signed out everywhere, cannot sign in) or
    /// enables it again; `nil` keeps that part. Refused when it would leave no active admin.
    /// A change that changes nothing writes nothing.
    @discardableResult
    public func updateUser(
        _ name: String, role: ConsoleRole? = nil, disabled: Bool? = nil, actor: String
    ) async throws(AdminError) -> ConsoleUser {
        let time = now()
        return try await update(name, actor: actor, reason: nil, endingSessions: disabled == true) { user in
            if let role { user.role = role }
            if let disabled { user.disabledAt = disabled ? user.disabledAt ?? time : nil }
        }
    }

    /// Gives `name` a new generated password (returned, to show once) and ends the user's sessions.
    public func resetPassword(of name: String, actor: String) async throws(AdminError) -> String {
        let password = Self.generatedPassword()
        let cost = passwordCost
        let hash = await passwordChecker.hash { Bcrypt.hash(password, cost: cost) }
        _ = try await update(name, actor: actor, reason: "password reset", endingSessions: true) { $0.passwordHash = hash }
        return password
    }

    /// Applies `change` to the user, refusing a change that leaves no active admin, and stores
    /// it with its audit entry (`reason`, or else what changed: `role editor`, `disable`).
    private func update(
        _ name: String, actor: String, reason: String?, endingSessions: Bool, _ change: (inout ConsoleUser) -> Void
    ) async throws(AdminError) -> ConsoleUser {
        var users = try await users()
        guard let index = users.firstIndex(where: { $0.name == name }) else { throw .notFound("console user \"\(name)\" does not exist") }
        let before = users[index]
        change(&users[index])
        let after = users[index]
        guard after != before else { return after }
        if before.role == .admin, before.disabledAt == nil, !users.contains(where: { $0.role == .admin && $0.disabledAt == nil }) {
            throw .conflict("console user \"\(name)\" is the last active admin: make another user admin first")
        }
        var changes: [String] = []
        if after.role != before.role { changes.append("role \(after.role.rawValue)") }
        if (after.disabledAt == nil) != (before.disabledAt == nil) { changes.append(after.disabledAt == nil ? "enable" : "disable") }
        do {
            try await store.updateConsoleUser(
                after, endingSessions: endingSessions,
                audit: audit(actor: actor, reason: reason ?? changes.joined(separator: ", "), before: before, after: after))
        } catch {
            throw AdminError(store: error)
        }
        return after
    }

    /// The audit entry of a change to a user: name, role and whether disabled (never the hash).
    func audit(actor: String, reason: String, before: ConsoleUser?, after: ConsoleUser) -> AuditEntry {
        func view(_ user: ConsoleUser?) -> JSONValue? {
            user.map { ["name": .string($0.name), "role": .string($0.role.rawValue), "disabled": .bool($0.disabledAt != nil)] }
        }
        return AuditEntry(
            environment: AuditEntry.accountsEnvironment, revision: 0, time: now(), actor: actor, reason: reason, subject: .user,
            key: after.name, before: view(before), after: view(after))
    }

    static func check(password: String) throws(AdminError) {
        guard password.count >= Self.minimumPasswordLength else {
            throw .badRequest("password: must be at least \(Self.minimumPasswordLength) characters")
        }
        guard password.utf8.count <= Self.maximumPasswordBytes else {
            throw .badRequest("password: must be at most \(Self.maximumPasswordBytes) bytes")
        }
    }

    /// Creates the first admin (`admin`, a generated password) if there is no user yet.
    ///
    /// - Returns: The name and the password, to show once; `nil` if users exist.
    public func createFirstAdminIfNeeded() async throws(AdminError) -> (name: String, password: String)? {
        let users: [ConsoleUser]
        do { users = try await store.consoleUsers() } catch { throw AdminError(store: error) }
        guard users.isEmpty else { return nil }
        let password = Self.generatedPassword()
        do {
            _ = try await createUser(name: "admin", password: password, role: .admin, actor: "flag-server (first start)")
        } catch .conflict {
            // Another replica sharing the database created it first: its start printed the password.
            return nil
        }
        return ("admin", password)
    }

    /// Signs `name` in if `password` is theirs; `nil` otherwise, without telling which was wrong.
    ///
    /// The password check runs on the accounts' own threads (``PasswordChecker``).
    ///
    /// - Throws: ``AdminError/unavailable(_:)`` when as many checks run and wait as allowed.
    public func signIn(name: String, password: String) async throws(AdminError) -> SignedIn? {
        switch try await signIn(name: name, password: password, knownBrowser: false, admitCheck: { nil }) {
        case .signedIn(let signedIn): signedIn
        case .wrong, .limited: nil
        }
    }

    /// What a password sign-in came to.
    public enum PasswordSignIn: Sendable {
        /// The password matched an enabled user: the new session.
        case signedIn(SignedIn)
        /// The name or the password is wrong, or the user is disabled.
        case wrong
        /// Not checked: `admitCheck` refused; retry after this many seconds.
        case limited(retryAfter: Int)
    }

    /// Checks `name`'s password.
    ///
    /// A known user's password is checked with bcrypt on the password pool, after `admitCheck`
    /// allowed it (the server's total of checks; `nil` to go on, else the seconds to wait); on the
    /// pool's lane of its own when `knownBrowser` (a browser that signed in to the account
    /// before). A name that does not exist costs no bcrypt: the answer waits as long as the latest
    /// checks took, so that its time does not tell names apart while the pool is not saturated.
    /// Until a first check ran, an unknown name is checked against a hash no password is known
    /// for, like a known one.
    public func signIn(
        name: String, password: String, knownBrowser: Bool, admitCheck: () -> Int?
    ) async throws(AdminError) -> PasswordSignIn {
        guard password.utf8.count <= Self.maximumPasswordBytes, name.utf8.count <= StateValidator.maximumKeyLength else {
            return .wrong
        }
        let users: [ConsoleUser]
        do { users = try await store.consoleUsers() } catch { throw AdminError(store: error) }
        let user = users.first { $0.name == name }
        if user == nil, let wait = checkDuration.withLock({ $0 }) {
            try? await Task.sleep(for: wait)
            return .wrong
        }
        if let retryAfter = admitCheck() { return .limited(retryAfter: retryAfter) }
        // A disabled user is checked like any other and refused like a wrong password.
        let matches: Bool
        do {
            let hash: String
            if let user { hash = user.passwordHash } else { hash = try await unknownHash() }
            let clock = ContinuousClock()
            let started = clock.now
            matches = try await passwordChecker.verify(password, hash: hash, priority: knownBrowser && user != nil)
            let took = clock.now - started
            checkDuration.withLock { duration in
                duration = duration.map { $0 * 0.75 + took * 0.25 } ?? took
            }
        } catch {
            throw .unavailable("too many sign-ins are being checked at once")
        }
        guard let user, matches, user.disabledAt == nil else { return .wrong }
        return .signedIn(try await startSession(for: user))
    }

    /// A new session of `user` (already checked).
    func startSession(for user: ConsoleUser) async throws(AdminError) -> SignedIn {
        let sessionID = Self.randomHex(bytes: 32)
        let time = now()
        let session = ConsoleSession(
            digest: TokenIssuer.digest(of: sessionID), user: user.name, createdAt: time,
            expiresAt: time.addingTimeInterval(sessionLifetime))
        do { try await store.insertConsoleSession(session) } catch { throw AdminError(store: error) }
        return SignedIn(sessionID: sessionID, user: user)
    }

    /// The user of a live session, or `nil` for an unknown, expired or signed-out one.
    public func user(sessionID: String) async throws(AdminError) -> ConsoleUser? {
        guard sessionID.utf8.count == 64 else { return nil }
        do {
            guard let session = try await store.consoleSession(digest: TokenIssuer.digest(of: sessionID)),
                session.expiresAt > now()
            else { return nil }
            return try await store.consoleUsers().first { $0.name == session.user && $0.disabledAt == nil }
        } catch {
            throw AdminError(store: error)
        }
    }

    /// Ends a session on every replica (and clears expired ones).
    public func signOut(sessionID: String) async throws(AdminError) {
        do {
            try await store.deleteConsoleSession(digest: TokenIssuer.digest(of: sessionID), expiredBefore: now())
        } catch {
            throw AdminError(store: error)
        }
    }

    /// The CSRF token of a session: an HMAC of a fixed label keyed by the session id, so only the
    /// holder of the (HttpOnly) session cookie can know it.
    public static func csrfToken(sessionID: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("flag-server console csrf".utf8), using: SymmetricKey(data: Data(sessionID.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `presented` is the CSRF token of `sessionID` (constant-time comparison).
    public static func isValidCSRF(_ presented: String?, sessionID: String) -> Bool {
        guard let presented else { return false }
        return TokenIssuer.constantTimeEqual(Array(presented.utf8), Array(csrfToken(sessionID: sessionID).utf8))
    }

    /// A new random password (96 bits, hex).
    public static func generatedPassword() -> String { randomHex(bytes: 12) }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

}
