/// The platform-neutral debug menu: rows with every flag's metadata, value, winning layer and an
/// overridden mark; case-insensitive search; a phase filter; set, clear and reset overrides.
///
/// The SwiftUI menu in `FeatureFlagsUI` and the `flags` command both sit on it.
///
/// ```swift
/// let menu = FlagDebugModel(flags)
/// for row in menu.rows(matching: "chat", phase: 2) {
///     print(row.displayName, row.displayValue, row.layer, row.isOverridden ? "•" : "")
/// }
/// try menu.toggle("chat_view_redesign")
/// try menu.setOverride(parsing: "25", forKey: "page_size")   // typed fields, validated
/// menu.resetAll()
/// ```
///
/// Enum-like values get a picker when the app declares their cases with ``FlagChoices``; the
/// remote loader's state appears in ``status`` when the app passes it as `remote`.
public struct FlagDebugModel: Sendable {
    /// The engine the menu reads and writes.
    public let engine: FlagEngine
    /// The declared choices by key, normalised to each flag's type.
    let choices: [String: [FlagValue]]
    /// The remote loader's reporter, if the app gave one.
    let remote: (any FlagDebugRemoteStatusReporting)?

    /// A menu over an engine.
    ///
    /// - Parameters:
    ///   - choices: the values enum-like flags may take, for pickers. Choices for an unknown key,
    ///     or values of the wrong type, are left out with a warning in the engine's log.
    ///   - remote: the remote loader, so ``status`` shows its state, last fetch and error.
    public init(
        engine: FlagEngine, choices: [FlagChoices] = [], remote: (any FlagDebugRemoteStatusReporting)? = nil
    ) {
        self.engine = engine
        self.choices = Self.checked(choices, in: engine)
        self.remote = remote
    }

    /// A menu over the app's flags; see ``init(engine:choices:remote:)``.
    public init<Key>(
        _ flags: FeatureFlagManager<Key>, choices: [FlagChoices] = [],
        remote: (any FlagDebugRemoteStatusReporting)? = nil
    ) {
        self.init(engine: flags.engine, choices: choices, remote: remote)
    }

    /// The phases present in the registry, ascending, for a phase picker.
    public var phases: [Int] {
        Array(Set(engine.registry.definitions.compactMap(\.phase))).sorted()
    }

    /// Rows in registry order, filtered by a case-insensitive search over key, display name and
    /// owner (empty matches everything) and by phase (`nil` matches every phase).
    public func rows(matching search: String = "", phase: Int? = nil) -> [FlagDebugRow] {
        let table = engine.currentTable()
        let overrides = engine.overrides
        let canOverride = engine.overridesPermitted
        let needle = search.lowercased().filter { !$0.isNewline }
        return table.registry.definitions.enumerated().compactMap { index, definition in
            if let phase, definition.phase != phase { return nil }
            if !needle.isEmpty, !definition.key.lowercased().contains(needle),
                !definition.displayName.lowercased().contains(needle),
                !(definition.owner?.lowercased().contains(needle) ?? false)
            {
                return nil
            }
            let value = table.values[index]
            return FlagDebugRow(
                key: definition.key, displayName: definition.displayName, description: definition.description,
                phase: definition.phase, owner: definition.owner, removalTarget: definition.removalTarget,
                type: definition.type, value: value,
                displayValue: Self.display(value, sensitive: definition.isSensitive),
                layer: table.layers[index], isOverridden: overrides[definition.key] != nil && canOverride,
                canOverride: canOverride, isUserTogglable: definition.isUserTogglable,
                note: table.adjustments[index], isSensitive: definition.isSensitive,
                userPreference: table.inputs.userPreferences[index],
                displayUserPreference: table.inputs.userPreferences[index].map {
                    Self.display($0, sensitive: definition.isSensitive)
                },
                editor: editor(for: definition),
                editText: definition.isSensitive ? "" : Self.editText(value))
        }
    }

    /// Sets an override; `nil` clears it.
    public func setOverride(_ value: FlagValue?, forKey key: String) throws(FlagOverrideError) {
        try engine.setOverride(value, forKey: key)
    }

    /// Flips a Boolean flag by overriding it to the opposite of its current value.
    public func toggle(_ key: String) throws(FlagOverrideError) {
        let current = engine.currentTable()
        guard let index = engine.registry.index(ofKey: key) else {
            throw FlagOverrideError(kind: .unknownFlag(key))
        }
        guard let on = current.values[index].boolValue else {
            throw FlagOverrideError(
                kind: .typeMismatch(key: key, expected: engine.registry.definitions[index].type, value: "a toggle"))
        }
        try engine.setOverride(.bool(!on), forKey: key)
    }

    /// Clears one override.
    public func clearOverride(forKey key: String) throws(FlagOverrideError) {
        try engine.setOverride(nil, forKey: key)
    }

    /// Clears every override.
    public func resetAll() {
        engine.removeAllOverrides()
    }

    /// How the menu shows a value.
    public static func display(_ value: FlagValue, sensitive: Bool = false) -> String {
        if sensitive { return "<REDACTED>" }
        switch value {
        case .bool(let on): return on ? "on" : "off"
        case .string(let text): return text
        default: return value.jsonString
        }
    }
}
