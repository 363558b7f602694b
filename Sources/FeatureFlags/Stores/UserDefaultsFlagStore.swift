#if canImport(Foundation)
import Foundation

/// A store that keeps values in `UserDefaults`, as one JSON object under one key.
///
/// Keeping the values as JSON text keeps Booleans and numbers apart on every platform, and
/// lets an unreadable entry be moved aside (to `<key>.corrupt-<timestamp>`) like a file.
///
/// ```swift
/// let store = UserDefaultsFlagStore(suiteName: "com.example.app.flags")
/// ```
public struct UserDefaultsFlagStore: FlagValueStore {
    /// The suite, or `nil` for `UserDefaults.standard`.
    public let suiteName: String?
    /// The key the values are kept under.
    public let key: String
    /// The clock that stamps the key of an unreadable entry moved aside (tests set it).
    package var now: @Sendable () -> Date = { Date() }

    /// A store under `key` in the suite `suiteName` (`UserDefaults.standard` when `nil`).
    public init(suiteName: String? = nil, key: String = "debug-feature-flags") {
        self.suiteName = suiteName
        self.key = key
    }

    private var defaults: UserDefaults {
        suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
    }

    private var location: String { "UserDefaults(\(suiteName ?? "standard"))[\(key)]" }

    /// The entry's values; none when there is no entry.
    /// - Throws: ``FlagStoreError`` when the entry is not a JSON object of flag values, after moving it aside.
    public func load() throws(FlagStoreError) -> [String: FlagValue] {
        let defaults = self.defaults
        guard let stored = defaults.object(forKey: key) else { return [:] }
        guard let text = stored as? String else {
            throw FlagStoreError.unreadable(
                location: location, reason: "the entry is not JSON text", movedTo: moveAside(stored, in: defaults))
        }
        do {
            return try JSONDecoder().decode([String: FlagValue].self, from: Data(text.utf8))
        } catch {
            throw FlagStoreError.unreadable(
                location: location, reason: "it is not a JSON object of flag values",
                movedTo: moveAside(stored, in: defaults))
        }
    }

    /// Writes `values` as JSON text under the key.
    public func save(_ values: [String: FlagValue]) throws(FlagStoreError) {
        defaults.set(FlagValue.object(values).jsonString, forKey: key)
    }

    private func moveAside(_ stored: Any, in defaults: UserDefaults) -> String {
        let asideKey = "\(key).corrupt-\(UnixTimestamp.seconds(now()))"
        defaults.set(stored, forKey: asideKey)
        defaults.removeObject(forKey: key)
        return "UserDefaults(\(suiteName ?? "standard"))[\(asideKey)]"
    }
}
#endif
