import ExampleFlags
import FeatureFlags
import Testing

struct FlagRegistryTests {
    private func definition(
        _ key: String, requires: [String] = [], conflicts: [String] = [], type: FlagValueType = .boolean,
        default value: FlagValue = false
    ) -> FlagDefinition {
        FlagDefinition(key: key, type: type, default: value, requires: requires, conflicts: conflicts)
    }

    private func error(_ definitions: [FlagDefinition]) -> FlagRegistryError? {
        do {
            _ = try FlagRegistry(definitions)
            return nil
        } catch {
            return error
        }
    }

    @Test func theExampleRegistryIsValid() throws {
        let registry = try FlagRegistry(AppFlag.self)
        #expect(AppFlag.allCases.count == 32)
        #expect(registry.count == AppFlag.allCases.count + AppFlag.typedFlags.count)
        #expect(registry.definitions.first?.key == "liquid_glass_design")
        #expect(Set(AppFlag.allCases.compactMap(\.metadata.phase)) == Set(0...8))
        #expect(AppFlag.allCases.allSatisfy { $0.metadata.owner != nil && $0.metadata.removalTarget == "3.0" })
    }

    @Test func rejectsADuplicateKey() {
        let found = error([definition("a"), definition("a")])
        #expect(found?.keys == ["a"])
        #expect(found?.description.contains("'a' is declared more than once") == true)
    }

    @Test func rejectsAnUnknownDependency() {
        let found = error([definition("a", requires: ["ghost"])])
        #expect(found?.keys == ["a", "ghost"])
        #expect(found?.description.contains("Declare 'ghost' or remove it from 'a'") == true)
    }

    @Test func rejectsACycleAndNamesItsFlags() {
        let found = error([definition("a", requires: ["b"]), definition("b", requires: ["c"]), definition("c", requires: ["a"])])
        #expect(found?.keys == ["a", "b", "c", "a"])
        #expect(found?.description.contains("a → b → c → a") == true)
    }

    @Test func rejectsAFlagThatRequiresAndConflictsWithTheSameFlag() {
        let found = error([definition("a", requires: ["b"], conflicts: ["b"]), definition("b")])
        #expect(found?.description.contains("both requires and conflicts with 'b'") == true)
        let reverse = error([definition("a", requires: ["b"]), definition("b", conflicts: ["a"])])
        #expect(reverse?.keys == ["a", "b"])
    }

    @Test func rejectsSelfReferencesAndRelationsWithNonBooleanFlags() {
        #expect(error([definition("a", requires: ["a"])])?.description.contains("requires itself") == true)
        let typed = error([definition("a", requires: ["n"]), definition("n", type: .integer, default: 1)])
        #expect(typed?.description.contains("only between Boolean flags") == true)
    }

    @Test func rejectsDefaultsOfTheWrongType() {
        let found = error([definition("n", type: .integer, default: "ten")])
        #expect(found?.description.contains("declared as integer but its default \"ten\" is not") == true)
        var build = definition("m", type: .integer, default: 1)
        build.buildDefaults = [.debug: true]
        #expect(error([build])?.description.contains("its debug default true") == true)
        #expect(error([definition("")])?.description.contains("empty key") == true)
    }

    @Test func keepsDeclarationOrderAndLooksUpByKey() throws {
        let registry = try FlagRegistry(TestFlag.self)
        #expect(registry.index(ofKey: "base") == 0)
        #expect(registry.index(ofKey: "limit") == TestFlag.allCases.count)
        #expect(registry.definition(forKey: "child")?.requires == ["base"])
        #expect(registry.definition(forKey: "missing") == nil)
    }

    @Test func displayNamesAreDerivedFromKeys() {
        #expect(FlagDefinition.displayName(forKey: "chat_view_redesign") == "Chat view redesign")
        #expect(FlagDefinition.displayName(forKey: "auth.magic-link") == "Auth magic link")
    }
}
