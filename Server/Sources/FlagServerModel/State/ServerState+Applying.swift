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
        let transition = try transition(applying: changes)
        return (transition.state, transition.audit)
    }

    /// The state after `changes`, with what they touched (``StateDelta``) and their audit drafts.
    ///
    /// Costs what the changes touch: each change edits the state in place, and the drafts compare
    /// only the touched subjects. Creating an environment touches every flag (it gets settings for
    /// each); every other change touches its own flag or segment, in every environment for a
    /// flag's definition.
    ///
    /// - Throws: ``StoreError/notFound(_:)`` for a change naming a missing environment or flag,
    ///   ``StoreError/conflict(_:)`` for an environment that exists already.
    public func transition(applying changes: [StateChange]) throws(StoreError) -> StateTransition {
        var next = self
        var delta = StateDelta()
        // The keys are copied out first: iterating `next.environments.keys` while mutating
        // `next.environments` would copy the dictionary (and each environment's settings) per change.
        let environmentKeys = { (state: ServerState) in Array(state.environments.keys) }
        for change in changes {
            switch change.asStored {
            case .createEnvironment(let key):
                guard next.environments[key] == nil else { throw .conflict("environment \"\(key)\" exists already") }
                let last = next.environments.values.map(\.position).max()
                var environment = EnvironmentState(key: key, position: last.map { $0 + 1 } ?? 0)
                environment.settings.reserveCapacity(next.flags.count)
                for flag in next.flags.values {
                    environment.settings[flag.key] = FlagSettings(
                        enabled: false, defaultVariant: flag.variants.keys.sorted().first ?? "")
                }
                delta.settings[key, default: []].formUnion(environment.settings.keys)
                delta.environments.insert(key)
                next.environments[key] = environment
            case .putFlag(var flag, let initial):
                // Only archiving and restoring change whether a flag is archived; an archived
                // flag is read-only until restored (a put of it as it is changes nothing).
                let current = next.flags[flag.key]
                flag.archived = current?.archived ?? false
                if let current, current.archived, current != flag { throw .conflict(Self.archivedMessage(flag.key)) }
                next.flags[flag.key] = flag
                delta.flags.insert(flag.key)
                for key in environmentKeys(next) {
                    delta.settings[key, default: []].insert(flag.key)
                    if next.environments[key]!.settings[flag.key] == nil {
                        next.environments[key]!.settings[flag.key] = initial
                    }
                }
            case .deleteFlag(let key):
                guard next.flags.removeValue(forKey: key) != nil else { throw .notFound("flag \"\(key)\"") }
                delta.flags.insert(key)
                for environment in environmentKeys(next) {
                    delta.settings[environment, default: []].insert(key)
                    next.environments[environment]!.settings[key] = nil
                }
            case .archiveFlag(let key), .restoreFlag(let key):
                guard var flag = next.flags[key] else { throw .notFound("flag \"\(key)\"") }
                let archiving = if case .archiveFlag = change { true } else { false }
                guard flag.archived != archiving else {
                    throw .conflict("flag \"\(key)\" is \(archiving ? "archived already" : "not archived")")
                }
                flag.archived = archiving
                next.flags[key] = flag
                delta.flags.insert(key)
                for environment in environmentKeys(next) { delta.settings[environment, default: []].insert(key) }
            case .putSettings(let environment, let flag, let settings):
                guard next.environments[environment] != nil else { throw .notFound("environment \"\(environment)\"") }
                guard let record = next.flags[flag] else { throw .notFound("flag \"\(flag)\"") }
                if record.archived, next.environments[environment]!.settings[flag] != settings {
                    throw .conflict(Self.archivedMessage(flag))
                }
                next.environments[environment]!.settings[flag] = settings
                delta.settings[environment, default: []].insert(flag)
            case .putSegment(let environment, let key, let rule):
                guard next.environments[environment] != nil else { throw .notFound("environment \"\(environment)\"") }
                next.environments[environment]!.segments[key] = rule
                delta.segments[environment, default: []].insert(key)
            case .deleteSegment(let environment, let key):
                guard next.environments[environment]?.segments[key] != nil else {
                    throw .notFound("segment \"\(key)\" in environment \"\(environment)\"")
                }
                next.environments[environment]!.segments[key] = nil
                delta.segments[environment, default: []].insert(key)
            case .orderEnvironments(let keys):
                for (position, key) in keys.enumerated() {
                    guard next.environments[key] != nil else { throw .notFound("environment \"\(key)\"") }
                    next.environments[key]!.position = position
                    delta.environments.insert(key)
                }
            }
        }
        return StateTransition(state: next, audit: auditDrafts(to: next, touched: delta), delta: delta)
    }

    /// Why a change of the archived flag `key` is refused.
    static func archivedMessage(_ key: String) -> String {
        "flag \"\(key)\" is archived, and archived flags are read-only: restore it first"
    }

    /// One draft per environment and subject of `touched` that differs between `self` and `next`,
    /// in the order of ``auditDrafts(to:)``: environments by key, then in each its environment
    /// entry, its flags by key and its segments by key.
    func auditDrafts(to next: ServerState, touched: StateDelta) -> [AuditDraft] {
        var drafts: [AuditDraft] = []
        let environmentKeys = Set(touched.environments).union(touched.settings.keys).union(touched.segments.keys)
        for key in environmentKeys.sorted() {
            guard let after = next.environments[key] else { continue }
            let before = environments[key]
            if touched.environments.contains(key), let draft = Self.environmentDraft(key, before: before, after: after) {
                drafts.append(draft)
            }
            if let before {
                for flag in (touched.settings[key] ?? []).sorted() {
                    let oldFlag = flags[flag], newFlag = next.flags[flag]
                    let oldSettings = before.settings[flag], newSettings = after.settings[flag]
                    guard oldFlag != newFlag || oldSettings != newSettings else { continue }
                    // Referring to the states, built as JSON when read (an import drafts thousands).
                    let draft = AuditDraft(
                        environment: key, subject: .flag, key: flag,
                        beforeValue: oldFlag != nil && oldSettings != nil ? .flag(in: self) : nil,
                        afterValue: newFlag != nil && newSettings != nil ? .flag(in: next) : nil)
                    if draft.recordsAChange { drafts.append(draft) }
                }
            }
            for segment in (touched.segments[key] ?? []).sorted() where before?.segments[segment] != after.segments[segment] {
                drafts.append(AuditDraft(
                    environment: key, subject: .segment, key: segment, before: before?.segments[segment],
                    after: after.segments[segment]))
            }
        }
        return drafts
    }

    /// The draft of an environment created (`before` is `nil`) or moved; `nil` when neither.
    static func environmentDraft(_ key: String, before: EnvironmentState?, after: EnvironmentState) -> AuditDraft? {
        guard let before else {
            return AuditDraft(environment: key, subject: .environment, key: key, before: nil, after: .object(["key": .string(key)]))
        }
        guard before.position != after.position else { return nil }
        return AuditDraft(
            environment: key, subject: .environment, key: key,
            before: .object(["key": .string(key), "position": .int(before.position)]),
            after: .object(["key": .string(key), "position": .int(after.position)]))
    }

    /// One draft per environment and subject that differs between `self` and `next`, comparing
    /// every subject: what ``auditDrafts(to:touched:)`` must equal (tests compare them).
    func auditDrafts(to next: ServerState) -> [AuditDraft] {
        var drafts: [AuditDraft] = []
        for key in next.environments.keys.sorted() {
            let after = next.environments[key]!
            let before = environments[key]
            if let draft = Self.environmentDraft(key, before: before, after: after) { drafts.append(draft) }
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
        return .object(["flag": flag.jsonValue, "settings": settings.jsonValue])
    }
}

/// What a list of ``StateChange``s touched: the subjects whose stored rows, audit entries,
/// validation and compiled pieces may differ. A superset of what changed (a flag put unchanged
/// is touched), never a subset.
public struct StateDelta: Sendable, Hashable {
    /// Flags whose definition was put or deleted.
    public var flags: Set<String> = []
    /// Per environment, the flags whose settings or definition may have changed there.
    public var settings: [String: Set<String>] = [:]
    /// Per environment, the segments put or deleted.
    public var segments: [String: Set<String>] = [:]
    /// Environments created or moved in the listing order.
    public var environments: Set<String> = []

    /// A delta that touched nothing.
    public init() {}
}

/// The result of applying changes to a state: the next state, what was touched, the audit drafts.
public struct StateTransition: Sendable {
    /// The state after the changes.
    public var state: ServerState
    /// One audit draft per subject changed.
    public var audit: [AuditDraft]
    /// What the changes touched.
    public var delta: StateDelta
}


extension JSONValue {
    /// `value` as JSON, through its Codable conformance.
    package init(encoding value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding the server's own model types cannot fail: they hold strings, numbers and JSONValue.
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        self = (try? JSONValue(parsing: data)) ?? .null
    }

    /// Decodes a model type from this JSON value.
    package func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(serialized().utf8))
    }
}

extension StateChange {
    /// The change with its JSON values as the store gives them back (see ``JSONValue/asStored``),
    /// so that a state a write applied in memory equals the one a replica loads.
    var asStored: StateChange {
        switch self {
        case .putFlag(var flag, var initial):
            // Copied only when a value differs as stored: the state then shares the change's storage.
            if !flag.variants.values.allSatisfy(\.isStored) { flag.variants = flag.variants.mapValues(\.asStored) }
            if !flag.metadata.custom.values.allSatisfy(\.isStored) {
                flag.metadata.custom = flag.metadata.custom.mapValues(\.asStored)
            }
            initial.targeting = initial.targeting?.asStored
            return .putFlag(flag, initialSettings: initial)
        case .putSettings(let environment, let flag, var settings):
            settings.targeting = settings.targeting?.asStored
            return .putSettings(environment: environment, flag: flag, settings)
        case .putSegment(let environment, let key, let rule):
            return .putSegment(environment: environment, key: key, rule: rule.asStored)
        case .createEnvironment, .deleteFlag, .archiveFlag, .restoreFlag, .deleteSegment, .orderEnvironments:
            return self
        }
    }
}

extension JSONValue {
    /// The value as decoding its stored text (``JSONValue``'s `Codable` conformance) gives it
    /// back: a whole number written as a double (`1.0`) reads back as an integer, a non-finite
    /// one as `null`. Served bytes come from the state, so every replica must hold the same cases.
    var asStored: JSONValue {
        guard !isStored else { return self }
        switch self {
        case .double(let value):
            if let integer = Int(exactly: value) { return .int(integer) }
            return value.isFinite ? self : .null
        case .array(let items): return .array(items.map(\.asStored))
        case .object(let members): return .object(members.mapValues(\.asStored))
        case .null, .bool, .int, .string: return self
        }
    }

    /// Whether the value is as the store gives it back already (``asStored`` is the same value):
    /// no whole or non-finite double anywhere in it.
    var isStored: Bool {
        switch self {
        case .double(let value): value.isFinite && Int(exactly: value) == nil
        case .array(let items): items.allSatisfy(\.isStored)
        case .object(let members): members.values.allSatisfy(\.isStored)
        case .null, .bool, .int, .string: true
        }
    }
}

extension FlagRecord {
    /// The flag as its Codable encoding writes it (what ``JSONValue/init(encoding:)`` gives), built
    /// directly: audit drafts and stored rows need it for every touched flag.
    package var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "key": .string(key), "type": .string(type.rawValue), "variants": .object(variants), "metadata": metadata.jsonValue,
        ]
        if let defaultVariant { object["defaultVariant"] = .string(defaultVariant) }
        if archived { object["archived"] = .bool(true) }
        return .object(object)
    }
}

extension FlagRecordMetadata {
    /// The metadata as its Codable encoding writes it.
    package var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "requires": .array(requires.map(JSONValue.string)), "conflicts": .array(conflicts.map(JSONValue.string)),
            "sensitive": .bool(sensitive), "custom": .object(custom),
        ]
        if let displayName { object["displayName"] = .string(displayName) }
        if let description { object["description"] = .string(description) }
        if let owner { object["owner"] = .string(owner) }
        if let phase { object["phase"] = .int(phase) }
        if let removalTarget { object["removalTarget"] = .string(removalTarget) }
        return .object(object)
    }
}

extension FlagSettings {
    /// The settings as their Codable encoding writes them.
    package var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["enabled": .bool(enabled)]
        if let defaultVariant { object["defaultVariant"] = .string(defaultVariant) }
        if let targeting { object["targeting"] = targeting }
        return .object(object)
    }
}
