/// A problem the manager noticed and worked around: reported through the logger and kept in
/// ``FlagEngine/diagnostics`` so apps and tests can show or check it.
public struct FlagDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Kind: String, Sendable, Hashable {
        /// A stored override or preference named a flag that no longer exists, or had the wrong
        /// type; it was removed from the store.
        case prunedStoredValue
        /// A store could not be read; its data was moved aside.
        case unreadableStore
        /// A store could not be written; the value applies in memory only.
        case unwritableStore
        /// A remote value was for an unknown flag or of the wrong type, and was ignored.
        case ignoredRemoteValue
        /// The remote provider failed; the last good values stay.
        case remoteProviderFailed
        /// A launch argument could not be used.
        case invalidLaunchArgument
    }

    /// The kind of problem.
    public let kind: Kind
    /// The flag concerned, if one is.
    public let key: String?
    /// What happened and what was done about it.
    public let message: String

    /// A diagnostic of `kind` about the flag `key`, if it concerns one.
    public init(kind: Kind, key: String? = nil, message: String) {
        self.kind = kind
        self.key = key
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Why an override or preference could not be set.
public struct FlagOverrideError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case unknownFlag(String)
        case typeMismatch(key: String, expected: FlagValueType, value: String)
        /// A value of the right type that the flag refuses (range, validation, decoding).
        case rejected(key: String, reason: String)
        case notPermitted(key: String, configuration: BuildConfiguration?)
        case notUserTogglable(String)
    }

    let kind: Kind

    /// A sentence naming the flag and what to do.
    public var description: String {
        switch kind {
        case .unknownFlag(let key):
            "There is no flag '\(key)'. Check the key against the registry (`flags list`)."
        case .typeMismatch(let key, let expected, let value):
            "Flag '\(key)' is \(expected), so it cannot be set to \(value)."
        case .rejected(let key, let reason):
            "Flag '\(key)' cannot be set: \(reason)."
        case .notPermitted(let key, let configuration?):
            "Cannot override '\(key)': overrides are not permitted in \(configuration) builds."
        case .notPermitted(let key, nil):
            "Cannot override '\(key)' before the feature flags are configured."
        case .notUserTogglable(let key):
            "Flag '\(key)' is not user-togglable, so it has no user preference. Declare it with `userTogglable: true`."
        }
    }
}
