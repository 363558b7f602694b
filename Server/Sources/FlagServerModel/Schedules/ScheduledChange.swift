public import FlagEvaluation
public import Foundation

/// A change to one flag in one environment, kept until its time and then applied once by one
/// server (see `Server/Docs/ScheduledChanges.md`): its settings (a JSON Merge Patch as
/// `PATCH …/settings` takes, or whole settings) or its definition (as `PUT /admin/v1/flags/{key}`).
public struct ScheduledChange: Sendable, Hashable, Codable {
    /// Where the change is: pending until its time, then ran, held, missed or failed (or cancelled before).
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Waiting for ``runAt``; editable and cancellable.
        case pending
        /// Applied: ``revision`` is the revision it produced.
        case ran
        /// Not applied: the flag left ``basedOnRevision`` (``outcome`` says how).
        case held
        /// Not applied: its time passed longer than the grace period before a server saw it.
        case missed
        /// Cancelled before it ran; kept for the record.
        case cancelled
        /// Not applied: the write was refused (``outcome`` says why).
        case failed
    }

    /// The change, in the forms of the direct admin API: exactly one of `patch`, `settings`,
    /// `definition`.
    public struct Change: Sendable, Hashable, Codable {
        /// A JSON Merge Patch (RFC 7396) to the flag's settings in the environment.
        public var patch: JSONValue?
        /// The flag's whole new settings in the environment.
        public var settings: FlagSettings?
        /// The flag's whole new definition (every environment's settings).
        public var definition: JSONValue?

        /// A change; give exactly one of the three.
        public init(patch: JSONValue? = nil, settings: FlagSettings? = nil, definition: JSONValue? = nil) {
            self.patch = patch
            self.settings = settings
            self.definition = definition
        }
    }

    /// The change's identifier (`sc-` and 16 hexadecimal digits).
    public var id: String
    /// The environment the change applies to.
    public var environment: String
    /// The key of the flag it changes.
    public var flag: String
    /// What it does to the flag.
    public var change: Change
    /// When it is due to be applied.
    public var runAt: Date
    /// The revision of the environment at which the flag last changed when the change was
    /// scheduled or edited (0: never). It applies only while the flag is still there.
    public var basedOnRevision: Int
    /// Who scheduled it: a token's or console user's name; for an approved change request, its author (`token ci-bot`, `user alice`).
    public var actor: String
    /// Why, as whoever scheduled it wrote it; audited with the write.
    public var reason: String
    /// Where the change is.
    public var status: Status
    /// The revision a run produced (`ran`).
    public var revision: Int?
    /// Why it was held, missed, failed or cancelled.
    public var outcome: String?
    /// The approved change request it applies, if it came from one.
    public var changeRequest: String?
    /// The server holding the change while it runs, and until when (a lease: another server
    /// takes it over after that, see ``ScheduledChangeExecutor``).
    public var claimedBy: String?
    /// When the holding server's lease lapses; `nil` when no server holds the change.
    public var claimedUntil: Date?
    /// When the change was scheduled.
    public var createdAt: Date
    /// When the change last changed (an edit, a claim or its outcome).
    public var updatedAt: Date
    /// Bumped on every stored change: an update based on an older version is refused.
    public var version: Int

    /// A pending change at version 1; not validated here.
    public init(
        id: String, environment: String, flag: String, change: Change, runAt: Date, basedOnRevision: Int, actor: String,
        reason: String, status: Status = .pending, changeRequest: String? = nil, createdAt: Date, version: Int = 1
    ) {
        self.id = id
        self.environment = environment
        self.flag = flag
        self.change = change
        self.runAt = runAt
        self.basedOnRevision = basedOnRevision
        self.actor = actor
        self.reason = reason
        self.status = status
        self.changeRequest = changeRequest
        self.createdAt = createdAt
        self.updatedAt = createdAt
        self.version = version
    }

    /// The reason a run writes into the audit; the executor finds a run it made before a crash by it.
    package var auditReason: String { "scheduled change \(id): \(reason)" }

    /// The change as a change-request proposal (the same forms and checks).
    package var proposal: ChangeRequest.Proposal {
        ChangeRequest.Proposal(flag: flag, settings: change.settings, patch: change.patch, definition: change.definition)
    }
}

extension ScheduledChange {
    /// How a scheduled change is stored: one JSON document.
    package func stored() throws(StoreError) -> String {
        do { return String(decoding: try JSONEncoder().encode(self), as: UTF8.self) } catch {
            throw .database("scheduled change \(id) does not encode: \(error)")
        }
    }

    /// A scheduled change read back from its stored JSON document (``stored()``).
    package init(stored: String) throws(StoreError) {
        do { self = try JSONDecoder().decode(ScheduledChange.self, from: Data(stored.utf8)) } catch {
            throw .database("a stored scheduled change does not decode: \(error)")
        }
    }
}
