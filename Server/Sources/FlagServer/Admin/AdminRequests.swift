import FlagEvaluation
import FlagServerModel
import Foundation

/// Request and response bodies of the admin API (see `openapi.json`).
enum AdminRequests {
    struct CreateEnvironment: Decodable {
        var key: String
        var reason: String?
    }

    /// `PUT /admin/v1/flags/{key}`: replaces the flag's definition (type, variants, metadata).
    ///
    /// `defaultVariant` is the flag's code default, as `GET` shows it and `flags push` records it,
    /// so a read-edit-write round trip keeps it. The code default belongs to the app's code, so a
    /// body without the field keeps the recorded one; `"defaultVariant": null` clears it.
    struct PutFlag: Decodable {
        var type: FlagType
        var variants: [String: JSONValue]
        var metadata: FlagRecordMetadata?
        /// The code default: absent keeps the recorded one, `.some(nil)` (JSON `null`) clears it.
        var defaultVariant: String??
        var reason: String?

        enum CodingKeys: String, CodingKey {
            case type, variants, metadata, defaultVariant, reason
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(FlagType.self, forKey: .type)
            variants = try container.decode([String: JSONValue].self, forKey: .variants)
            metadata = try container.decodeIfPresent(FlagRecordMetadata.self, forKey: .metadata)
            if container.contains(.defaultVariant) {
                defaultVariant = .some(try container.decodeNil(forKey: .defaultVariant)
                    ? nil : try container.decode(String.self, forKey: .defaultVariant))
            } else {
                defaultVariant = nil
            }
            reason = try container.decodeIfPresent(String.self, forKey: .reason)
        }

        /// The write this body asks for, given the flag as stored (`nil` when new): the definition
        /// of `key`, off where it is new, on its code default (else the first variant).
        func change(key: String, current: FlagRecord?) -> StateChange {
            let codeDefault = defaultVariant ?? current?.defaultVariant
            let flag = FlagRecord(
                key: key, type: type, variants: variants, metadata: metadata ?? FlagRecordMetadata(), defaultVariant: codeDefault)
            let initial = FlagSettings(enabled: false, defaultVariant: codeDefault ?? variants.keys.sorted().first ?? "")
            return .putFlag(flag, initialSettings: initial)
        }
    }

    /// `POST /admin/v1/flags`: definitions registered together (see `AdminRoutes+Registration`).
    struct RegisterFlags: Decodable {
        struct Flag: Decodable {
            var key: String
            var type: FlagType
            var variants: [String: JSONValue]
            var metadata: FlagRecordMetadata?
            /// The code default; also the variant environments where the flag is new start on.
            var defaultVariant: String
            /// Switch the flag off on `defaultVariant` in every environment (a forced type change).
            var resetSettings: Bool?
            /// On/off and default variant in the named environments (targeting is kept).
            var settings: [String: Settings]?
        }
        struct Settings: Decodable {
            var enabled: Bool
            var defaultVariant: String
        }
        var flags: [Flag]
        var reason: String?
    }

    struct PutSettings: Decodable {
        var enabled: Bool
        /// `null` serves the caller's code default when targeting picks no variant (as in flagd).
        var defaultVariant: String?
        var targeting: JSONValue?
        var reason: String?

        /// The settings this body describes.
        var settings: FlagSettings { FlagSettings(enabled: enabled, defaultVariant: defaultVariant, targeting: targeting) }
    }

    struct PutSegment: Decodable {
        var rule: JSONValue
        var reason: String?
    }

    /// `POST /admin/v1/flags/{key}/archive` and `…/restore`.
    struct Lifecycle: Decodable {
        var reason: String?
    }

    struct Revert: Decodable {
        var revision: Int
        var reason: String?
    }

    struct CreateToken: Decodable {
        var name: String
        var environment: String
        var role: TokenRole
    }
}

extension AdminRequests {
    /// `POST /admin/v1/users`: a console user; the password is generated and answered once.
    struct CreateUser: Decodable {
        var name: String
        var role: ConsoleRole
    }

    /// `PUT /admin/v1/users/{name}`: the user's role and whether it is disabled.
    struct PutUser: Decodable {
        var role: ConsoleRole
        var disabled: Bool
    }

    /// `PUT /admin/v1/environments/order`: every environment once, in listing order.
    struct OrderEnvironments: Decodable {
        var environments: [String]
        var reason: String?
    }
}

enum AdminResponses {
    /// A console user as the admin API shows it (never the password hash).
    struct User: Encodable {
        var name: String
        var role: ConsoleRole
        var createdAt: Date
        var disabled: Bool

        init(_ user: ConsoleUser) {
            name = user.name
            role = user.role
            createdAt = user.createdAt
            disabled = user.disabledAt != nil
        }
    }

    struct CreatedUser: Encodable {
        var user: User
        /// The generated password, shown this once.
        var password: String
    }

    struct Password: Encodable {
        /// The new generated password, shown this once.
        var password: String
    }

    struct Environment: Encodable {
        var key: String
        var revision: Int
    }

    struct EnvironmentFlag: Encodable {
        var flag: FlagRecord
        var settings: FlagSettings
        var revision: Int
    }

    struct WriteResult: Encodable {
        /// The new revision of every environment the write changed.
        var revisions: [String: Int]
    }

    struct CreatedToken: Encodable {
        /// The token text, shown this once.
        var token: String
        var record: TokenSummary
    }

    struct TokenSummary: Encodable {
        var id: String
        var name: String
        var environment: String
        var role: TokenRole
        var createdAt: Date
        var revokedAt: Date?

        init(_ record: TokenRecord) {
            id = record.id
            name = record.name
            environment = record.environment
            role = record.role
            createdAt = record.createdAt
            revokedAt = record.revokedAt
        }
    }
}

extension AdminResponses {
    /// What an import would change (dry run) or changed: its audit drafts, each encoded as a
    /// ``Change`` (see ``response()``, which encodes them a slice at a time).
    struct ImportResult: Encodable {
        struct Change: Encodable {
            var environment: String
            var subject: AuditEntry.Subject
            var key: String
            var before: JSONValue?
            var after: JSONValue?
        }
        var dryRun: Bool
        var changes: [AuditDraft]
        var problems: [ValidationError]
        var revisions: [String: Int]
        /// What was imported (or would be) but fails the evaluations that reach it: a targeting
        /// rule returning a variant its flag lacks (``StateValidator/missingVariantWarnings(in:changedBy:environment:)``).
        /// Encoded only when there is one.
        var warnings: [ValidationError] = []
    }
}
