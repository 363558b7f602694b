import FeatureFlags
import Logging

/// The registry the remote, launch-argument and snapshot targets apply fuzzed values to: Boolean
/// flags with a chain of dependencies, conflicts and user-togglable flags, plus typed values.
///
/// ```
/// base ← child ← grandchild      (requires)
/// child ⟂ rival, base ⟂ loner    (conflicts)
/// ```
enum FuzzFlag: String, CaseIterable, FeatureFlagKey {
    case base
    case child
    case grandchild
    case rival
    case loner
    case preference = "user_preference"
    case userOnly = "user_only"
    case phased

    var metadata: FlagMetadata<FuzzFlag> {
        switch self {
        case .base: FlagMetadata("Base", default: true)
        case .child: FlagMetadata("Child", phase: 1, requires: [.base])
        case .grandchild: FlagMetadata("Grandchild", phase: 2, requires: [.child])
        case .rival: FlagMetadata("Rival", default: true, conflicts: [.child])
        case .loner: FlagMetadata("Loner", conflicts: [.base], userTogglable: true)
        case .preference: FlagMetadata("Preference", requires: [.base], userTogglable: true)
        case .userOnly: FlagMetadata("User only", userTogglable: true, checking: .userOnly)
        case .phased: FlagMetadata("Phased", enabledIn: [.debug, .internal], requires: [.grandchild])
        }
    }

    static let pageSize = TypedFlag("page_size", default: 20, userTogglable: true)
    static let ratio = TypedFlag("ratio", default: 0.5)
    static let greeting = TypedFlag("greeting", default: "hello", sensitive: true)
    static let layout = TypedFlag("layout", default: Layout(columns: 2, title: "grid"), sensitive: true)

    static let typedFlags: [any FlagDefinitionConvertible] = [pageSize, ratio, greeting, layout]

    /// The registry; building it must succeed.
    static let registry: FlagRegistry = {
        do {
            return try FlagRegistry(FuzzFlag.self)
        } catch {
            Invariant.fail("the fuzz registry does not build: \(error)")
        }
    }()

    /// Every key, with one that is not in the registry.
    static let keys = registry.definitions.map(\.key) + ["unknown_flag"]

    /// A logger that drops everything, so that warnings do not slow the fuzzer down.
    static let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// The `object` value of ``FuzzFlag/layout``.
struct Layout: CodableFlagValue {
    var columns: Int
    var title: String
}

extension FlagSnapshot<FuzzFlag> {
    /// Checks that no flag is on while a flag it requires is off, that no two conflicting flags
    /// are both on, and that every value has its flag's type.
    func checkRelations(registry: FlagRegistry, after step: String) {
        for flag in FuzzFlag.allCases where isEnabled(flag) {
            for required in flag.metadata.requires {
                Invariant.require(
                    isEnabled(required),
                    "'\(flag.rawValue)' is on while '\(required.rawValue)', which it requires, is off (after \(step))")
            }
            for other in flag.metadata.conflicts {
                Invariant.require(
                    !isEnabled(other),
                    "'\(flag.rawValue)' and '\(other.rawValue)' conflict but are both on (after \(step))")
            }
        }
        let values = self.values
        for definition in registry.definitions {
            guard let value = values[definition.key] else {
                Invariant.fail("the snapshot has no value for '\(definition.key)' (after \(step))")
            }
            Invariant.require(
                value.conforms(to: definition.type),
                "'\(definition.key)' is a \(definition.type) flag but its value is \(definition.isSensitive ? "<REDACTED>" : value.jsonString) (after \(step))")
        }
    }
}
