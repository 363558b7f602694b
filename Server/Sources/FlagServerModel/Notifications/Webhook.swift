public import Foundation

/// A receiver of signed notifications (`Server/Docs/Webhooks.md`): an HTTP or HTTPS URL, the kinds
/// and environments it wants, and the secret the server signs its deliveries with.
///
/// The secret is a *signing* secret: the server must read it back to sign every delivery, so it is
/// stored as it is (not hashed, unlike tokens and passwords). It is shown once, when the endpoint
/// is created or its secret rotated; it is not part of the endpoint's encoding (API answers, the
/// audit, the stored document) and prints as `<REDACTED>`.
public struct WebhookEndpoint: Sendable, Hashable, Codable {
    /// `wh_` and 16 hexadecimal digits.
    public var id: String
    /// Where deliveries are posted: an `http` or `https` URL with a host and no credentials.
    public var url: String
    /// The notification kinds it receives (`flag.changed`, …); `nil`: every kind.
    public var kinds: [String]?
    /// The environments whose notifications it receives; `nil`: every environment. With a list,
    /// notifications of no environment are not sent (pings always are).
    public var environments: [String]?
    /// Whether it receives notifications; a disabled endpoint keeps its settings and log.
    public var enabled: Bool
    /// What the endpoint is for, as its creator wrote it; `nil` when not given.
    public var description: String?
    /// When the endpoint was created.
    public var createdAt: Date
    /// When the endpoint last changed.
    public var updatedAt: Date
    /// Signs the deliveries; left out of the encoding on purpose (see the type's notes).
    public var secret = WebhookSecret(text: "")

    enum CodingKeys: String, CodingKey {
        case id, url, kinds, environments, enabled, description, createdAt, updatedAt
    }

    /// An endpoint with its signing secret.
    public init(
        id: String, url: String, kinds: [String]?, environments: [String]?, enabled: Bool, description: String?,
        secret: WebhookSecret, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.url = url
        self.kinds = kinds
        self.environments = environments
        self.enabled = enabled
        self.description = description
        self.secret = secret
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether `notification` goes to this endpoint (enabled, and within its kinds and environments).
    public func wants(_ notification: ServerNotification) -> Bool {
        guard enabled else { return false }
        if let kinds, !kinds.contains(notification.kind.rawValue) { return false }
        if let environments {
            guard let environment = notification.environment, environments.contains(environment) else { return false }
        }
        return true
    }

    /// A new endpoint identifier: `wh_` and 16 random hexadecimal digits.
    package static func newID() -> String { "wh_" + WebhookSecret.randomHex(bytes: 8) }
}

/// A webhook endpoint's signing secret: `whsec_` and 64 hexadecimal digits. The HMAC key is the
/// whole text's UTF-8 bytes. Prints as `<REDACTED>`.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret as issued: `whsec_` and 64 hexadecimal digits.
    public let text: String
    /// Wraps `text`, which is not checked here.
    public init(text: String) { self.text = text }

    /// `<REDACTED>`, so that the secret never lands in logs.
    public var description: String { "<REDACTED>" }
    /// `<REDACTED>`, as in ``description``.
    public var debugDescription: String { "<REDACTED>" }

    /// A new secret from the system's random generator.
    public static func generate() -> WebhookSecret { WebhookSecret(text: "whsec_" + randomHex(bytes: 32)) }

    /// `count` random bytes from the system's generator as lowercase hexadecimal.
    package static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }.lowercaseHex
    }
}

/// One notification on its way to one endpoint, and every attempt made to deliver it.
public struct WebhookDelivery: Sendable, Hashable, Codable {
    /// Where the delivery is.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Waiting for its next attempt (``nextAttemptAt``).
        case pending
        /// An attempt was answered 2xx.
        case delivered
        /// Every attempt failed, or the endpoint was disabled or deleted meanwhile.
        case failed
    }

    /// One attempt: when, how it was answered (or why it was not), how long it took.
    public struct Attempt: Sendable, Hashable, Codable {
        /// When the attempt started.
        public var time: Date
        /// The HTTP status the endpoint answered; `nil` when no answer came.
        public var statusCode: Int?
        /// Why the attempt failed without an answer (refused, timed out…); `nil` when one came.
        public var error: String?
        /// How long the attempt took, in milliseconds.
        public var milliseconds: Int

        /// An attempt started at `time` that got `statusCode` or failed with `error`, taking `milliseconds`.
        package init(time: Date, statusCode: Int? = nil, error: String? = nil, milliseconds: Int) {
            self.time = time
            self.statusCode = statusCode
            self.error = error
            self.milliseconds = milliseconds
        }
    }

    /// `whd_` and 16 hexadecimal digits; sent as `Webhook-Id` (the same on every attempt, so that
    /// receivers can drop a delivery they already handled).
    public var id: String
    /// The id of the endpoint it goes to.
    public var endpoint: String
    /// The notification's kind (`flag.changed`, …).
    public var kind: String
    /// The JSON body exactly as it is sent (and signed) on every attempt.
    public var body: String
    /// Where the delivery is.
    public var status: Status
    /// Attempts made since it was created or redelivered.
    public var attemptCount: Int
    /// The latest attempts, oldest first (at most ``maximumLoggedAttempts``).
    public var attempts: [Attempt]
    /// When the next attempt is due; `nil` once delivered or failed.
    public var nextAttemptAt: Date?
    /// When the delivery was created.
    public var createdAt: Date
    /// When the delivery last changed.
    public var updatedAt: Date

    /// The most attempts a delivery's log keeps (redeliveries add to it).
    public static let maximumLoggedAttempts = 32

    /// The newest attempt's HTTP status; `nil` before an attempt or when none answered.
    public var lastStatusCode: Int? { attempts.last?.statusCode }
    /// Why the newest attempt failed without an answer; `nil` otherwise.
    public var lastError: String? { attempts.last?.error }

    static func newID() -> String { "whd_" + WebhookSecret.randomHex(bytes: 8) }

    /// A new delivery of `body` (a notification of `kind`) to `endpoint`: pending, no attempt yet, its first due at `time`.
    package init(endpoint: String, kind: String, body: String, at time: Date) {
        id = Self.newID()
        self.endpoint = endpoint
        self.kind = kind
        self.body = body
        status = .pending
        attemptCount = 0
        attempts = []
        nextAttemptAt = time
        createdAt = time
        updatedAt = time
    }

    /// How a delivery is stored: one JSON document.
    package func stored() throws(StoreError) -> String {
        do { return String(decoding: try JSONEncoder().encode(self), as: UTF8.self) } catch {
            throw .database("webhook delivery \(id) does not encode: \(error)")
        }
    }

    /// A delivery read back from its stored JSON document (``stored()``).
    package init(stored: String) throws(StoreError) {
        do { self = try JSONDecoder().decode(Self.self, from: Data(stored.utf8)) } catch {
            throw .database("a stored webhook delivery does not decode: \(error)")
        }
    }
}

extension WebhookEndpoint {
    /// How an endpoint is stored besides its id and secret: one JSON document.
    package func stored() throws(StoreError) -> String {
        do { return String(decoding: try JSONEncoder().encode(self), as: UTF8.self) } catch {
            throw .database("webhook endpoint \(id) does not encode: \(error)")
        }
    }

    /// An endpoint read back from its stored JSON document (``stored()``) and its secret, kept apart.
    package init(stored: String, secret: String) throws(StoreError) {
        do { self = try JSONDecoder().decode(Self.self, from: Data(stored.utf8)) } catch {
            throw .database("a stored webhook endpoint does not decode: \(error)")
        }
        self.secret = WebhookSecret(text: secret)
    }
}

extension ServerNotification.Kind {
    /// A test notification sent on request (`POST /admin/v1/webhooks/{id}/ping`).
    public static let ping = Self(rawValue: "ping")

    /// Every kind the server sends, for the API's validation and the documentation.
    public static let all: [Self] = [
        .flagChanged, .killSwitch, .scheduleCreated, .scheduleUpdated, .scheduleCancelled, .scheduleRan, .scheduleHeld,
        .scheduleMissed, .scheduleFailed, .rolloutStepped, .rolloutPaused, .rolloutRolledBack, .rolloutFinished, .changeRequestOpened,
        .changeRequestApproved, .changeRequestRejected, .changeRequestApplied, .experimentStarted, .experimentStopped,
        .experimentShipped, .ping,
    ]
}
