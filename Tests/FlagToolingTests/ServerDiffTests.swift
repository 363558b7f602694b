import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling
import Testing

/// `flags diff` and `flags push` compare the app's definitions with the server's.
struct ServerDiffTests {
    static func manifest(_ text: String) throws -> Manifest {
        try ManifestReader().read(text, file: "flags.json")
    }

    static let appManifest = """
        {
          "flags": {
            "new_checkout": {
              "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
              "metadata": {"owner": "payments", "phase": 2, "removalTarget": "3.0", "requires": "search"}
            },
            "search": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
            "page_size": {"state": "ENABLED", "variants": {"default": 20}, "defaultVariant": "default",
              "metadata": {"owner": "search", "default.release": 50, "userTogglable": true}}
          }
        }
        """

    var code: [ServerFlag] {
        get throws { try Self.manifest(Self.appManifest).flags.map(ServerFlag.init) }
    }

    @Test func equalDefinitionsHaveNoDifferences() throws {
        let diff = ServerDiff(code: try code, server: try code.reversed())
        #expect(diff.isEmpty)
        #expect(diff.text() == "No differences.\n")
        #expect(diff.json.jsonString == #"{"added":[],"changed":[],"equal":true,"removed":[],"typeMismatches":[]}"#)
    }

    @Test func additionsRemovalsChangesAndTypeMismatchesAreListed() throws {
        var server = try code.filter { $0.key != "new_checkout" }
        let index = try #require(server.firstIndex { $0.key == "page_size" })
        server[index].metadata.owner = "growth"
        server[index].variants = ["default": 25]
        server.append(ServerFlag(key: "old_banner", type: .boolean, variants: ["on": true, "off": false]))
        let searchIndex = try #require(server.firstIndex { $0.key == "search" })
        server[searchIndex] = ServerFlag(key: "search", type: .integer, variants: ["default": 1], defaultVariant: "default")

        let diff = ServerDiff(code: try code, server: server)
        #expect(diff.added == ["new_checkout"])
        #expect(diff.removed == ["old_banner"])
        #expect(diff.typeMismatches == [.init(key: "search", code: .boolean, server: .integer)])
        #expect(
            diff.text() == """
                ! search: type boolean in code, integer on the server
                + new_checkout (in code, not on the server)
                - old_banner (on the server, not in code)
                ~ page_size
                    variants: code {"default":25,"default-2":20}, server {"default":25}
                    defaultVariant: code "default-2", server "default"
                    owner: code "search", server "growth"
                1 added, 1 changed, 1 type mismatch, 1 only on the server.

                """)
    }

    /// The server's variants are the server's: a non-Boolean flag with more variants than its
    /// one code default is no difference, and a push keeps them (and the settings serving them).
    @Test func variantsTheServerAddedAreKept() throws {
        var server = try code
        let index = try #require(server.firstIndex { $0.key == "page_size" })
        server[index].variants = ["default": 20, "large": 100, "small": 5]
        #expect(ServerDiff(code: try code, server: server).isEmpty)
        let pageSize = try #require(try code.first { $0.key == "page_size" })
        #expect(pageSize.registration(over: server[index]) == server[index])

        // A code default another variant holds names that variant; none is overwritten.
        var larger = pageSize
        larger.variants = ["default": 100]
        #expect(larger.registration(over: server[index]).variants == server[index].variants)
        #expect(larger.registration(over: server[index]).defaultVariant == "large")
        let diff = ServerDiff(code: [larger], server: [server[index]])
        #expect(diff.changed == [.init(key: "page_size", changes: [.init(field: "defaultVariant", code: #""large""#, server: #""default""#)], isSensitive: false)])

        // A value no variant holds is added beside them, under a free name.
        larger.variants = ["default": 50]
        #expect(larger.registration(over: server[index]).variants == ["default": 20, "large": 100, "small": 5, "default-2": 50])
        #expect(larger.registration(over: server[index]).defaultVariant == "default-2")

        // A new flag, or one whose type changes, is written as the app declares it.
        #expect(larger.registration(over: nil) == larger)
        let boolean = ServerFlag(key: "page_size", type: .boolean, variants: ["on": true, "off": false], defaultVariant: "on")
        #expect(larger.registration(over: boolean) == larger)
    }

    /// A pulled manifest compares clean with the server it came from, flags created in the
    /// console (several variants, no registered code default, no display name) included.
    @Test(arguments: [
        ServerFlag(key: "theme", type: .string, variants: ["dark": "dark", "light": "light", "system": "system"]),
        ServerFlag(key: "limit", type: .integer, variants: ["low": 10, "high": 1000], metadata: .init(owner: "growth"), defaultVariant: "high"),
        ServerFlag(key: "beta", type: .boolean, variants: ["on": true, "off": false]),
        ServerFlag(key: "ratio", type: .float, variants: ["a": 0.5, "b": 2.0], metadata: .init(displayName: "The ratio")),
    ])
    func aPulledManifestHasNoDifferences(flag: ServerFlag) throws {
        let (manifest, _) = try Manifest.pulled(from: [flag])
        let reread = try Self.manifest(manifest.jsonString())
        #expect(ServerDiff(code: reread.flags.map(ServerFlag.init), server: [flag]).isEmpty)
    }

    /// What only the app knows (build defaults, userTogglable…) is not a difference.
    @Test func appOnlyFieldsAreNotCompared() throws {
        var manifest = try Self.manifest(Self.appManifest)
        manifest.flags[2].definition.buildDefaults = [.release: 99]
        manifest.flags[2].definition.isUserTogglable = false
        manifest.flags[2].swiftName = "pageSize"
        #expect(ServerDiff(code: manifest.flags.map(ServerFlag.init), server: try code).isEmpty)
    }

    /// A changed code default (off → on) is a change of the registered default variant.
    @Test func aChangedCodeDefaultIsADifference() throws {
        var server = try code
        server[0].defaultVariant = "on"
        let diff = ServerDiff(code: try code, server: server)
        #expect(diff.changed == [.init(key: "new_checkout", changes: [.init(field: "defaultVariant", code: #""off""#, server: #""on""#)], isSensitive: false)])
    }

    /// JSON numbers compare by value: the server answers `30.0` as `30`, at any depth.
    @Test func integralDoublesEqualIntegers() throws {
        let code = [
            ServerFlag(key: "interval", type: .float, variants: ["default": 30.0], defaultVariant: "default"),
            ServerFlag(key: "style", type: .object, variants: ["default": ["ratio": 1.0, "sizes": [2.0, 2.5]]], defaultVariant: "default"),
        ]
        let server = [
            ServerFlag(key: "interval", type: .float, variants: ["default": 30], defaultVariant: "default"),
            ServerFlag(key: "style", type: .object, variants: ["default": ["ratio": 1, "sizes": [2, 2.5]]], defaultVariant: "default"),
        ]
        #expect(ServerDiff(code: code, server: server).isEmpty)
        var changed = server
        changed[1].variants = ["default": ["ratio": 1, "sizes": [2, 2.6]]]
        #expect(ServerDiff(code: code, server: changed).changed.map(\.key) == ["style"])
    }

    @Test func valuesOfSensitiveFlagsAreRedacted() throws {
        let text = """
            {"flags": {"api_key": {"state": "ENABLED", "variants": {"default": "sk-live-123"}, "defaultVariant": "default",
              "metadata": {"sensitive": true}}}}
            """
        let code = try Self.manifest(text).flags.map(ServerFlag.init)
        var server = code
        server[0].variants = ["default": "sk-old-456"]
        let diff = ServerDiff(code: code, server: server)
        #expect(diff.text().contains("variants: code <REDACTED>, server <REDACTED>"))
        #expect(!diff.text().contains("sk-"))
        #expect(!diff.json.jsonString.contains("sk-"))
        #expect(diff.json.jsonString.contains("<REDACTED>"))
    }

    /// The flag's own metadata is compared key by key as a push writes it: the manifest's keys
    /// set over the server's, which keeps its other keys (also through a forced type change).
    @Test func theFlagsOwnMetadataIsComparedAsAPushWritesIt() throws {
        let code = ServerFlag(
            key: "checkout", type: .boolean, variants: ["on": true, "off": false],
            metadata: .init(custom: ["x-tags": "beta", "x-ticket": 12.0]), defaultVariant: "off")
        var server = code
        server.metadata.custom = ["team": "payments", "x-tags": "beta", "x-ticket": 12]
        #expect(ServerDiff(code: [code], server: [server]).isEmpty)
        #expect(code.registration(over: server).metadata.custom == ["team": "payments", "x-tags": "beta", "x-ticket": 12.0])

        server.metadata.custom = ["team": "payments", "x-tags": "stable"]
        let diff = ServerDiff(code: [code], server: [server])
        #expect(diff.changed == [.init(key: "checkout", changes: [
            .init(field: "x-tags", code: #""beta""#, server: #""stable""#),
            .init(field: "x-ticket", code: "12.0", server: "null"),
        ], isSensitive: false)])
        #expect(code.registration(over: server).metadata.custom == ["team": "payments", "x-tags": "beta", "x-ticket": 12.0])

        var retyped = server
        retyped.type = .string
        retyped.variants = ["default": "on"]
        #expect(code.registration(over: retyped).metadata.custom == ["team": "payments", "x-tags": "beta", "x-ticket": 12.0])
        #expect(code.registration(over: retyped).variants == code.variants)
    }
}
