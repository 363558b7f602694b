/// A mistake in a flag registry, found when the registry is built.
///
/// Each message names the flags involved and says how to fix the declaration.
public struct FlagRegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case emptyKey(index: Int)
        case duplicateKey(String)
        case defaultTypeMismatch(key: String, type: FlagValueType, value: String)
        case buildDefaultTypeMismatch(key: String, configuration: BuildConfiguration, type: FlagValueType, value: String)
        case unknownReference(key: String, relation: String, missing: String)
        case selfReference(key: String, relation: String)
        case nonBooleanRelation(key: String, relation: String, other: String)
        case requiresAndConflicts(key: String, other: String)
        case dependencyCycle([String])
    }

    let kind: Kind

    /// The keys of the flags the problem is about.
    public var keys: [String] {
        switch kind {
        case .emptyKey: []
        case .duplicateKey(let key), .selfReference(let key, _): [key]
        case .defaultTypeMismatch(let key, _, _), .buildDefaultTypeMismatch(let key, _, _, _): [key]
        case .unknownReference(let key, _, let missing): [key, missing]
        case .nonBooleanRelation(let key, _, let other), .requiresAndConflicts(let key, let other): [key, other]
        case .dependencyCycle(let keys): keys
        }
    }

    public var description: String {
        switch kind {
        case .emptyKey(let index):
            "Flag number \(index + 1) has an empty key. Give every flag a non-empty key."
        case .duplicateKey(let key):
            "Flag key '\(key)' is declared more than once. Rename one of the flags or remove the duplicate."
        case .defaultTypeMismatch(let key, let type, let value):
            "Flag '\(key)' is declared as \(type) but its default \(value) is not. Change the default or the type."
        case .buildDefaultTypeMismatch(let key, let configuration, let type, let value):
            "Flag '\(key)' is declared as \(type) but its \(configuration) default \(value) is not. Change that default."
        case .unknownReference(let key, let relation, let missing):
            "Flag '\(key)' \(relation) '\(missing)', which is not in the registry. Declare '\(missing)' or remove it from '\(key)'."
        case .selfReference(let key, let relation):
            "Flag '\(key)' \(relation) itself. Remove '\(key)' from its own list."
        case .nonBooleanRelation(let key, let relation, let other):
            "Flag '\(key)' \(relation) '\(other)', but dependencies and conflicts are only between Boolean flags. Remove the relation."
        case .requiresAndConflicts(let key, let other):
            "Flag '\(key)' both requires and conflicts with '\(other)', so it could never be on. Keep only one of the two relations."
        case .dependencyCycle(let keys):
            "Flags depend on each other in a cycle: \(keys.joined(separator: " → ")). Remove one of these requirements to break the cycle."
        }
    }
}
