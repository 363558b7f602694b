/// A mistake in a flag registry, found when the registry is built.
///
/// Each message names the flags involved and says how to fix the declaration. Values of flags
/// marked sensitive print as `<REDACTED>`.
public struct FlagRegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case emptyKey(index: Int)
        /// Surrounding white space or a comma: `requires`/`conflicts` lists in manifests and
        /// launch arguments could not carry the key.
        case malformedKey(String)
        case duplicateKey(String)
        case defaultTypeMismatch(key: String, type: FlagValueType, value: String)
        case buildDefaultTypeMismatch(key: String, configuration: BuildConfiguration, type: FlagValueType, value: String)
        /// `configuration` is `nil` for the code default.
        case invalidDefault(key: String, configuration: BuildConfiguration?, reason: String)
        case rangeTypeMismatch(key: String, type: FlagValueType, range: String)
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
        case .duplicateKey(let key), .selfReference(let key, _), .malformedKey(let key): [key]
        case .defaultTypeMismatch(let key, _, _), .buildDefaultTypeMismatch(let key, _, _, _): [key]
        case .invalidDefault(let key, _, _), .rangeTypeMismatch(let key, _, _): [key]
        case .unknownReference(let key, _, let missing): [key, missing]
        case .nonBooleanRelation(let key, _, let other), .requiresAndConflicts(let key, let other): [key, other]
        case .dependencyCycle(let keys): keys
        }
    }

    /// What is wrong with the registry and how to fix it, naming the flags involved.
    public var description: String {
        switch kind {
        case .emptyKey(let index):
            "Flag number \(index + 1) has an empty key. Give every flag a non-empty key."
        case .malformedKey(let key):
            "Flag key '\(key)' has surrounding white space or a comma, which lists of keys (requires, conflicts) cannot carry. Trim it and leave out commas."
        case .duplicateKey(let key):
            "Flag key '\(key)' is declared more than once. Rename one of the flags or remove the duplicate."
        case .defaultTypeMismatch(let key, let type, let value):
            "Flag '\(key)' is declared as \(type) but its default \(value) is not. Change the default or the type."
        case .buildDefaultTypeMismatch(let key, let configuration, let type, let value):
            "Flag '\(key)' is declared as \(type) but its \(configuration) default \(value) is not. Change that default."
        case .invalidDefault(let key, nil, let reason):
            "Flag '\(key)' has a default its own declaration refuses: \(reason). Change the default, or the flag's range or validation."
        case .invalidDefault(let key, let configuration?, let reason):
            "Flag '\(key)' has a \(configuration) default its own declaration refuses: \(reason). Change that default, or the flag's range or validation."
        case .rangeTypeMismatch(let key, let type, let range):
            "Flag '\(key)' is declared as \(type) but has the range \(range), which is for another type. Declare a range of the flag's type."
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
