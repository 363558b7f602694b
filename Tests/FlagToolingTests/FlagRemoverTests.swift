import ExampleFlags
import FeatureFlags
import FlagManifest
@testable import FlagTooling
import FlagServerClient
import Testing

/// Removing a flag must not change what any other flag does.
struct FlagRemoverTests {
    /// The registry as it behaves once the flag is gone: the flag itself pinned to the kept value
    /// in every configuration and layer (its own requirements no longer apply).
    static func pinned(_ definitions: [FlagDefinition], key: String, keep: Bool) -> [FlagDefinition] {
        definitions.map { definition in
            guard definition.key == key else { return definition }
            var pinned = definition
            pinned.defaultValue = .bool(keep)
            pinned.buildDefaults = Dictionary(uniqueKeysWithValues: BuildConfiguration.allCases.map { ($0, .bool(keep)) })
            pinned.followsPhasePolicy = false
            pinned.isUserTogglable = false
            pinned.requires = []
            return pinned
        }
    }

    /// The flags whose overrides can tell a removal of `key` apart: those that name it in their
    /// dependencies, those it names, and those a removal would force off. (Overriding any other
    /// flag changes only that flag and its own dependents, the same way before and after.)
    static func related(_ manifest: Manifest, key: String, keep: Bool) -> [String] {
        let removed = manifest.flag(forKey: key)?.definition
        let named = Set((removed?.requires ?? []) + (removed?.conflicts ?? []))
        let affected = Set(FlagRemover.affectedFlags(manifest: manifest, key: key, keep: keep).map(\.key))
        return manifest.flags.map(\.key).filter { other in
            guard other != key, let definition = manifest.flag(forKey: other)?.definition else { return false }
            return named.contains(other) || affected.contains(other) || definition.requires.contains(key)
                || definition.conflicts.contains(key)
        }
    }

    /// Every Boolean flag of the example registry, kept on and kept off: a removal the tool
    /// allows leaves every other flag's value unchanged in every configuration and phase
    /// policy, and with each related flag overridden or preferred on and off; a removal it
    /// refuses would have let a flag turn on that must stay off (had the tool just dropped the
    /// flag from the other flags' lists, as it once did).
    @Test(arguments: [true, false])
    func removalKeepsEveryOtherFlagsBehaviour(keep: Bool) throws {
        let manifest = try Manifest(AppFlag.self)
        var refused: [String] = []
        for flag in manifest.flags where flag.definition.type == .boolean {
            let remaining = manifest.flags.map(\.key).filter { $0 != flag.key }
            let before = Self.pinned(manifest.definitions, key: flag.key, keep: keep)
            do {
                let plan = try FlagRemover(manifest: manifest, key: flag.key, keep: keep).plan(files: [])
                #expect(
                    try Behaviour.differences(
                        before, plan.manifest.definitions, keys: remaining,
                        setting: Self.related(manifest, key: flag.key, keep: keep)) == [],
                    "removing \(flag.key) kept \(keep ? "on" : "off")")
            } catch {
                // Refused: each flag it names is always off once the flag is pinned (kept off:
                // its requirement can never be met; kept on: it conflicts with a flag that is
                // always on), yet dropping the flag from the others' lists, as the tool once
                // did, would let it turn on.
                refused.append(flag.key)
                let affected = FlagRemover.affectedFlags(manifest: manifest, key: flag.key, keep: keep).map(\.key)
                #expect(!affected.isEmpty)
                var naive = manifest
                naive.flags.removeAll { $0.key == flag.key }
                for index in naive.flags.indices {
                    naive.flags[index].definition.requires.removeAll { $0 == flag.key }
                    naive.flags[index].definition.conflicts.removeAll { $0 == flag.key }
                }
                let setting = Self.related(manifest, key: flag.key, keep: keep)
                for key in affected {
                    #expect(try Behaviour.canBeOn(key, naive.definitions, setting: setting), "\(key)")
                    if !keep {
                        #expect(try !Behaviour.canBeOn(key, before, setting: setting), "\(key)")
                    }
                }
            }
        }
        #expect(
            refused.sorted()
                == (keep
                    ? ["icloud_sync", "offline_mode"]
                    : ["app_intents", "chat_view_redesign", "message_card_system", "navigation_split_view", "settings_redesign", "sheet_system"]))
    }

    @Test func refusalNamesEveryAffectedFlagInRemovalOrder() {
        let manifest = Manifest(definitions: [
            FlagDefinition(key: "sync", type: .boolean, default: false),
            FlagDefinition(key: "offline", type: .boolean, default: false, conflicts: ["sync"]),
            FlagDefinition(key: "offline_search", type: .boolean, default: false, requires: ["offline"]),
            FlagDefinition(key: "offline_hints", type: .boolean, default: false, requires: ["offline_search"]),
        ])
        #expect(throws: ToolingError(
            .failed,
            "Removing 'sync' kept on would change other flags: 'offline_hints' requires 'offline_search', so it would always be off; 'offline_search' requires 'offline', so it would always be off; 'offline' conflicts with 'sync', so it would always be off. Remove them first, in this order: flags remove offline_hints --keep off, then flags remove offline_search --keep off, then flags remove offline --keep off; or keep 'sync' off."
        )) {
            try FlagRemover(manifest: manifest, key: "sync", keep: true)
        }
        #expect(throws: ToolingError(
            .failed,
            "Removing 'offline' kept off would change other flags: 'offline_hints' requires 'offline_search', so it would always be off; 'offline_search' requires 'offline', so it would always be off. Remove them first, in this order: flags remove offline_hints --keep off, then flags remove offline_search --keep off; or keep 'offline' on."
        )) {
            try FlagRemover(manifest: manifest, key: "offline", keep: false)
        }
        // Kept off, a conflict can never happen: it simply goes.
        #expect(throws: Never.self) {
            let plan = try FlagRemover(manifest: manifest, key: "sync", keep: false).plan(files: [])
            #expect(plan.manifest.flag(forKey: "offline")?.definition.conflicts == [])
        }
    }
}
