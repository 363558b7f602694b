import FlagEvaluation
import Foundation

extension ServerState {
    /// The state after `changes`, and the audit entries (without revision, time or actor) they
    /// produce: one per environment and changed subject. Storage implementations share this so
    /// that they record the same history.
    ///
    /// - Throws: ``StoreError/notFound(_:)`` for a change naming a missing environment or flag,
    ///   ``StoreError/conflict(_:)`` for an environment that exists already.
    public func applying(_ changes: [StateChange]) throws(StoreError) -> (state: ServerState, audit: [AuditDraft]) {
        var next = self
        for change in changes {
            switch change {
            case .createEnvironment(let key):
                guard next.environments[key] == nil else { throw .conflict("environment \"\(key)\" exists already") }
                let last = next.environments.values.map(\.position).max()
                var environment = EnvironmentState(key: key, position: last.map { $0 + 1 } ?? 0)
                for flag in next.flags.values {
                    environment.settings[flag.key] = FlagSettings(
                        enabled: false, defaultVariant: flag.variants.keys.sorted().first ?? "")
                }
                next.environments[key] = environment
            case .putFlag(let flag, let initial):
                next.flags[flag.key] = flag
                for key in next.environments.keys where next.environments[key]?.settings[flag.key] == nil {
                    next.environments[key]?.settings[flag.key] = initial
                }
            case .deleteFlag(let key):
                guard next.flags.removeValue(forKey: key) != nil else { throw .notFound("flag \"\(key)\"") }
                for environment in next.environments.keys {
                    next.environments[environment]?.settings[key] = nil
                }
            case .putSettings(let environment, let flag, let settings):
                guard next.environments[environment] != nil else { throw .notFound("environment \"\(environment)\"") }
                guard next.flags[flag] != nil else { throw .notFound("flag \"\(flag)\"") }
                next.environments[environment]?.settings[flag] = settings
            case .putSegment(let environment, let key, let rule):
                guard next.environments[environment] != nil else { throw .notFound("environment \"\(environment)\"") }
                next.environments[environment]?.segments[key] = rule
            case .deleteSegment(let environment, let key):
                guard next.environments[environment]?.segments[key] != nil else {
                    throw .notFound("segment \"\(key)\" in environment \"\(environment)\"")
                }
                next.environments[environment]?.segments[key] = nil
            case .orderEnvironments(let keys):
                for (position, key) in keys.enumerated() {
                    guard next.environments[key] != nil else { throw .notFound("environment \"\(key)\"") }
                    next.environments[key]?.position = position
                }
            }
        }
        return (next, auditDrafts(to: next))
    }

    /// One draft per environment and subject that differs between `self` and `next`.
    func auditDrafts(to next: ServerState) -> [AuditDraft] {
        var drafts: [AuditDraft] = []
        for key in next.environments.keys.sorted() {
            let after = next.environments[key]!
            let before = environments[key]
            if before == nil {
                drafts.append(AuditDraft(environment: key, subject: .environment, key: key, before: nil, after: .object(["key": .string(key)])))
            } else if let before, before.position != after.position {
                drafts.append(AuditDraft(
                    environment: key, subject: .environment, key: key,
                    before: .object(["key": .string(key), "position": .int(before.position)]),
                    after: .object(["key": .string(key), "position": .int(after.position)])))
            }
            let flagKeys = Set(flags.keys).union(next.flags.keys).sorted()
            for flag in flagKeys {
                let old = before.flatMap { flagView(flags[flag], $0.settings[flag]) }
                let new = flagView(next.flags[flag], after.settings[flag])
                if old != new, before != nil {
                    drafts.append(AuditDraft(environment: key, subject: .flag, key: flag, before: old, after: new))
                }
            }
            let segmentKeys = Set(before.map { Array($0.segments.keys) } ?? []).union(after.segments.keys).sorted()
            for segment in segmentKeys where before?.segments[segment] != after.segments[segment] {
                drafts.append(AuditDraft(
                    environment: key, subject: .segment, key: segment, before: before?.segments[segment],
                    after: after.segments[segment]))
            }
        }
        return drafts
    }

    /// A flag as one environment sees it, as stored in audit entries: `{"flag": …, "settings": …}`.
    func flagView(_ flag: FlagRecord?, _ settings: FlagSettings?) -> JSONValue? {
        guard let flag, let settings else { return nil }
        return .object(["flag": JSONValue(encoding: flag), "settings": JSONValue(encoding: settings)])
    }
}

/// An audit entry before the store numbers and stamps it.
public struct AuditDraft: Sendable, Hashable {
    public var environment: String
    public var subject: AuditEntry.Subject
    public var key: String
    public var before: JSONValue?
    public var after: JSONValue?
}

extension JSONValue {
    /// `value` as JSON, through its Codable conformance.
    init(encoding value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding the server's own model types cannot fail: they hold strings, numbers and JSONValue.
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        self = (try? JSONValue(parsing: data)) ?? .null
    }

    /// Decodes a model type from this JSON value.
    func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(serialized().utf8))
    }
}
