/// Where flag values chosen on the device are kept: local developer overrides and user
/// preferences.
///
/// Keys are the flags' keys (the enum's raw values). Three stores come with the package:
/// ``InMemoryFlagStore``, ``JSONFileFlagStore`` and ``UserDefaultsFlagStore``.
///
/// A store never destroys what it cannot read: it moves it aside, then reports it by throwing.
public protocol FlagValueStore: Sendable {
    /// Reads every stored value.
    ///
    /// - Throws: ``FlagStoreError`` when the stored data cannot be read; the store has moved the
    ///   unreadable data aside before throwing, and the next `load` starts empty.
    func load() throws(FlagStoreError) -> [String: FlagValue]

    /// Replaces every stored value.
    ///
    /// - Throws: ``FlagStoreError`` when the values cannot be written; what was stored before
    ///   is left as it was.
    func save(_ values: [String: FlagValue]) throws(FlagStoreError)
}

/// A store that could not read or write its values.
public struct FlagStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case unreadable(location: String, reason: String, movedTo: String?)
        case unwritable(location: String, reason: String)
    }

    let kind: Kind

    /// The data could not be read; it was moved to `movedTo` (when moving succeeded).
    public static func unreadable(location: String, reason: String, movedTo: String?) -> FlagStoreError {
        FlagStoreError(kind: .unreadable(location: location, reason: reason, movedTo: movedTo))
    }

    /// The values could not be written.
    public static func unwritable(location: String, reason: String) -> FlagStoreError {
        FlagStoreError(kind: .unwritable(location: location, reason: reason))
    }

    /// Where the unreadable data was moved, if it was.
    public var movedAsideTo: String? {
        if case .unreadable(_, _, let movedTo) = kind { movedTo } else { nil }
    }

    /// What could not be read or written, where, why, and where unreadable data was moved.
    public var description: String {
        switch kind {
        case .unreadable(let location, let reason, let movedTo?):
            "Could not read flag values from \(location): \(reason). The data was moved to \(movedTo) and the app continues without it."
        case .unreadable(let location, let reason, nil):
            "Could not read flag values from \(location): \(reason). It could not be moved aside either; it was left in place and the app continues without it."
        case .unwritable(let location, let reason):
            "Could not write flag values to \(location): \(reason). The previous values were kept."
        }
    }
}
