import FlagServerModel
import Foundation

/// A store that several server processes (replicas) share, and that tells them when another one
/// committed: PostgreSQL's LISTEN/NOTIFY in ``PostgresFlagStore``.
///
/// A ``ReplicaSynchronizer`` listens for ``RevisionAnnouncement``s and, as a safety net for a lost
/// notification or a dropped connection, compares ``currentVersion()`` with what it serves.
public protocol ReplicatedFlagStore: FlagStore {
    /// The newest committed revision of every environment and the token generation: a cheap read
    /// for the periodic check.
    func currentVersion() async throws(StoreError) -> StoreVersion

    /// Listens for commits of every replica until the connection fails or the task is cancelled.
    ///
    /// Calls `onListening` once the subscription is in place (anything committed before may have
    /// been missed: check ``currentVersion()`` then), and `onAnnouncement` for each commit
    /// (`nil` for a notification it cannot read: check the whole version then).
    func listen(
        onListening: @Sendable () async -> Void,
        onAnnouncement: @Sendable (RevisionAnnouncement?) async -> Void
    ) async throws(StoreError)

    /// Sends `announcement` to every listener, outside any write: a replica's heartbeat
    /// (``RevisionAnnouncement/heartbeat``), which must come back through its own listening
    /// connection to prove that connection still receives.
    func announce(_ announcement: RevisionAnnouncement) async throws(StoreError)
}

/// What a replica compares to know whether it serves the newest state.
public struct StoreVersion: Sendable, Hashable {
    /// The revision of every environment.
    public var revisions: [String: Int]
    /// Grows with every token created or revoked (tokens change no revision).
    public var tokenGeneration: Int

    /// A version of `revisions` per environment and the tokens' `tokenGeneration`.
    public init(revisions: [String: Int], tokenGeneration: Int) {
        self.revisions = revisions
        self.tokenGeneration = tokenGeneration
    }
}

/// One commit, as announced to every replica.
public struct RevisionAnnouncement: Sendable, Hashable, Codable {
    /// The new revision of every environment the commit changed (empty for a token change).
    public var revisions: [String: Int]
    /// Whether tokens changed.
    public var tokens: Bool
    /// When the writer committed (seconds since 1970, the writer's clock): the start of the
    /// propagation delay.
    public var committedAt: Double
    /// Set on a heartbeat, not a commit: the sending replica's identifier. A heartbeat names no
    /// revision and no token change, so a replica that does not know the field ignores it as an
    /// announcement of nothing new.
    public var heartbeat: String?

    /// An announcement of a commit (or, with `heartbeat`, of a replica's heartbeat).
    public init(revisions: [String: Int], tokens: Bool = false, committedAt: Double, heartbeat: String? = nil) {
        self.revisions = revisions
        self.tokens = tokens
        self.committedAt = committedAt
        self.heartbeat = heartbeat
    }

    /// The announcement's wire form (well below PostgreSQL's 8000-byte payload limit for any
    /// realistic number of environments).
    var payload: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }

    /// Reads a payload; `nil` for one that is not an announcement (the receiver then checks the
    /// whole version instead).
    init?(payload: String) {
        guard payload.utf8.count <= 8000,
            let value = try? JSONDecoder().decode(Self.self, from: Data(payload.utf8))
        else { return nil }
        self = value
    }
}
