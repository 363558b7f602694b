import FeatureFlags
import Testing

/// Inputs the fuzzers in `Fuzz/` found (`Fuzz/Findings/`), pinned where the fix lives.
struct FuzzFindingTests {
    /// `-ff.key=` followed by a combining mark: as Characters the mark joins the `=`, and the
    /// argument was read as an unknown flag and dropped.
    @Test func aValueStartingWithACombiningMarkKeepsItsEquals() throws {
        let registry = try FlagRegistry([FlagDefinition(key: "greeting", type: .string, default: .string("hi"))])
        let value = "\u{035A}secret"
        let parsed = LaunchArgumentOverrides.parse(["-ff.greeting=\(value)"], registry: registry)
        #expect(parsed.overrides == ["greeting": .string(value)])
        #expect(parsed.problems.isEmpty)
    }

    /// An argument that starts with `-ff.` by Unicode scalars is a flag argument, never the value
    /// of the one before it, even when a combining mark follows the `.`.
    @Test func anArgumentStartingWithThePrefixAndACombiningMarkIsNotAValue() throws {
        let registry = try FlagRegistry([FlagDefinition(key: "greeting", type: .string, default: .string("hi"))])
        let parsed = LaunchArgumentOverrides.parse(["-ff.greeting", "-ff.\u{035A}x"], registry: registry)
        #expect(parsed.overrides.isEmpty)
        #expect(parsed.problems.count == 2)
    }

    /// A key `requires`/`conflicts` lists cannot carry (surrounding white space, a comma) is a
    /// registry error, not a manifest that reads back different.
    @Test(arguments: [" ", " padded", "trailing ", "a,b", " \u{033F}"])
    func keysListsCannotCarryAreRegistryErrors(key: String) {
        #expect {
            try FlagRegistry([FlagDefinition(key: key, type: .boolean, default: .bool(false))])
        } throws: { error in
            (error as? FlagRegistryError)?.keys == [key]
                && "\(error)".contains("surrounding white space or a comma")
        }
    }
}
