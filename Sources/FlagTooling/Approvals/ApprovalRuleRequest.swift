import FeatureFlags
import FlagServerClient
import Foundation

/// An environment's approval rule (`/admin/v1/environments/{environment}/approval-rule`), as
/// `flags approval-rule` sends and prints it.
public struct ApprovalRuleRequest: Sendable, Hashable, Decodable {
    /// What a rule can cover.
    public static let scopes = ["settings", "segments", "definitions"]

    /// 1 to 10 identities other than the author.
    public var requiredApprovals: Int
    /// `settings`, `segments`, `definitions`; the server's default is all three.
    public var appliesTo: [String]?
    /// Why, recorded in the audit log (sent, never answered).
    public var reason: String?

    /// A rule request; with `appliesTo` `nil` the server covers its default scopes (all three).
    public init(requiredApprovals: Int, appliesTo: [String]? = nil, reason: String? = nil) {
        self.requiredApprovals = requiredApprovals
        self.appliesTo = appliesTo
        self.reason = reason
    }

    /// Checks the rule as the server does.
    ///
    /// - Throws: ``ToolingError`` (invalid input) naming the option.
    public func check() throws(ToolingError) {
        guard (1...10).contains(requiredApprovals) else {
            throw ToolingError(.invalidInput, "--required-approvals must be from 1 to 10 (identities other than the author).")
        }
        for scope in appliesTo ?? [] where !Self.scopes.contains(scope) {
            throw ToolingError(.invalidInput, "--applies-to \"\(scope)\": give settings, segments or definitions.")
        }
        if let appliesTo, Set(appliesTo).count != appliesTo.count {
            throw ToolingError(.invalidInput, "--applies-to: give each scope once.")
        }
        if let reason, reason.utf8.count > 1000 {
            throw ToolingError(.invalidInput, "--reason: the reason is \(reason.utf8.count) bytes; at most 1000 are kept.")
        }
    }

    /// The JSON body of `PUT …/approval-rule`.
    public var body: FlagValue {
        var object: [String: FlagValue] = ["requiredApprovals": .int(requiredApprovals)]
        if let appliesTo { object["appliesTo"] = .array(appliesTo.map { .string($0) }) }
        if let reason { object["reason"] = .string(reason) }
        return .object(object)
    }

    /// `production: 2 approvals other than the author's, for settings, segments, definitions`.
    public func text(environment: String) -> String {
        let scopes = (appliesTo ?? Self.scopes).joined(separator: ", ")
        return "\(environment): \(requiredApprovals) approval\(requiredApprovals == 1 ? "" : "s") other than the author's, for \(scopes)\n"
    }
}
