import Crypto
import FlagServerModel
import Foundation

/// The `Webhook-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA-256(secret, "<t>.<body>")>`.
///
/// The key is the secret's text as UTF-8 (`whsec_…`, whole). Receivers recompute the code over the
/// timestamp, a full stop and the raw body, compare in constant time, and refuse a timestamp more
/// than a few minutes away from their clock (replay).
public enum WebhookSignature {
    /// The header value for `body` sent at `timestamp` (seconds since 1970).
    public static func header(secret: WebhookSecret, timestamp: Int, body: String) -> String {
        "t=\(timestamp),v1=\(code(secret: secret, timestamp: timestamp, body: body))"
    }

    /// The hexadecimal HMAC-SHA-256 of `"<timestamp>.<body>"`.
    public static func code(secret: WebhookSecret, timestamp: Int, body: String) -> String {
        let key = SymmetricKey(data: Data(secret.text.utf8))
        return HMAC<SHA256>.authenticationCode(for: Data("\(timestamp).\(body)".utf8), using: key).lowercaseHex
    }
}

/// The JSON body of a delivery: the notification, with an id of its own (the same for every
/// endpoint it goes to) and its time in RFC 3339.
struct WebhookPayload: Encodable {
    var id: String
    var notification: ServerNotification

    enum CodingKeys: String, CodingKey { case id, kind, time, actor, environment, flag, revision, summary, details }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(notification.kind.rawValue, forKey: .kind)
        try container.encode(notification.time, forKey: .time)
        try container.encode(notification.actor, forKey: .actor)
        try container.encodeIfPresent(notification.environment, forKey: .environment)
        try container.encodeIfPresent(notification.flag, forKey: .flag)
        try container.encodeIfPresent(notification.revision, forKey: .revision)
        try container.encode(notification.summary, forKey: .summary)
        try container.encode(notification.details, forKey: .details)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The body text, or `nil` if it does not encode (never, for values the server builds).
    static func body(of notification: ServerNotification) -> String? {
        let payload = WebhookPayload(id: "evt_" + WebhookSecret.randomHex(bytes: 8), notification: notification)
        return (try? encoder.encode(payload)).map { String(decoding: $0, as: UTF8.self) }
    }
}
