/// The feature flag managers a SwiftUI subtree sees, one per flag type: what
/// `.featureFlags(_:)` in FeatureFlagsUI keeps in the environment.
///
/// An app whose modules each declare a flag enum gives every module's manager to the same
/// subtree; a nested `.featureFlags(_:)` adds its manager (or replaces the one of the same flag
/// type) without hiding the others.
///
/// ```swift
/// let managers = FeatureFlagManagers().inserting(appFlags).inserting(checkoutFlags)
/// managers.manager(for: CheckoutFlag.self)   // checkoutFlags
/// ```
public struct FeatureFlagManagers: Sendable {
    private struct Entry: Sendable {
        let type: ObjectIdentifier
        let typeName: String
        let manager: any AnyObject & Sendable
        let engine: FlagEngine
    }

    /// In insertion order, one per flag type.
    private var entries: [Entry] = []

    /// No managers.
    public init() {}

    /// Whether there are no managers.
    public var isEmpty: Bool { entries.isEmpty }

    /// How many flag types have a manager.
    public var count: Int { entries.count }

    /// These managers with `flags` added, replacing any manager of the same flag type.
    public func inserting<Key: FeatureFlagKey>(_ flags: FeatureFlagManager<Key>) -> FeatureFlagManagers {
        var copy = self
        copy.insert(flags)
        return copy
    }

    /// Adds `flags`, replacing any manager of the same flag type.
    public mutating func insert<Key: FeatureFlagKey>(_ flags: FeatureFlagManager<Key>) {
        let entry = Entry(
            type: ObjectIdentifier(Key.self), typeName: "\(Key.self)", manager: flags, engine: flags.engine)
        if let index = entries.firstIndex(where: { $0.type == entry.type }) {
            entries[index] = entry
        } else {
            entries.append(entry)
        }
    }

    /// The manager of `Key`, if there is one.
    public func manager<Key: FeatureFlagKey>(for type: Key.Type = Key.self) -> FeatureFlagManager<Key>? {
        entries.first { $0.type == ObjectIdentifier(Key.self) }?.manager as? FeatureFlagManager<Key>
    }

    /// The flag types that have a manager, in the order they were added (for messages).
    public var flagTypeNames: [String] { entries.map(\.typeName) }

    /// The build configurations of the managers that are configured.
    var buildConfigurations: [BuildConfiguration] { entries.compactMap(\.engine.buildConfiguration) }
}
