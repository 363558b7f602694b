import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling
import Testing

/// A manifest flag and the server's definition map onto each other.
struct ServerFlagMappingTests {
    static let text = """
        {
          "$schema": "https://flagd.dev/schema/v0/flags.json",
          "flags": {
            "checkout": {
              "state": "ENABLED",
              "variants": {
                "on": true,
                "off": false
              },
              "defaultVariant": "on",
              "metadata": {
                "key": "checkout",
                "type": "boolean",
                "displayName": "New checkout",
                "description": "The one-page checkout.",
                "owner": "payments",
                "phase": 3,
                "removalTarget": "4.0",
                "requires": "search",
                "conflicts": "legacy_cart"
              }
            },
            "legacy_cart": {
              "state": "ENABLED",
              "variants": {
                "on": true,
                "off": false
              },
              "defaultVariant": "off",
              "metadata": {
                "key": "legacy_cart",
                "type": "boolean",
                "displayName": "Legacy cart"
              }
            },
            "ratio": {
              "state": "ENABLED",
              "variants": {
                "default": 0.5
              },
              "defaultVariant": "default",
              "metadata": {
                "key": "ratio",
                "type": "double",
                "displayName": "Ratio",
                "sensitive": true
              }
            },
            "search": {
              "state": "ENABLED",
              "variants": {
                "default": {"limit":10}
              },
              "defaultVariant": "default",
              "metadata": {
                "key": "search",
                "type": "object",
                "displayName": "Search"
              }
            }
          }
        }

        """

    @Test func aManifestFlagBecomesTheServerDefinition() throws {
        let manifest = try ManifestReader().read(Self.text, file: "flags.json")
        let flags = manifest.flags.map(ServerFlag.init)
        #expect(
            flags[0]
                == ServerFlag(
                    key: "checkout", type: .boolean, variants: ["on": true, "off": false],
                    metadata: .init(
                        displayName: "New checkout", description: "The one-page checkout.", owner: "payments", phase: 3,
                        removalTarget: "4.0", requires: ["search"], conflicts: ["legacy_cart"]),
                    defaultVariant: "on"))
        #expect(
            flags[2]
                == ServerFlag(
                    key: "ratio", type: .float, variants: ["default": 0.5],
                    metadata: .init(displayName: "Ratio", sensitive: true), defaultVariant: "default"))
    }

    @Test func pullingTheDefinitionsGivesTheManifestBack() throws {
        let manifest = try ManifestReader().read(Self.text, file: "flags.json")
        let (pulled, warnings) = try Manifest.pulled(from: manifest.flags.map(ServerFlag.init).reversed())
        #expect(warnings.isEmpty)
        #expect(pulled.jsonString() == Self.text)
    }

    @Test func anEnvironmentGivesStateAndDefaultVariant() throws {
        let manifest = try ManifestReader().read(Self.text, file: "flags.json")
        let (pulled, _) = try Manifest.pulled(
            from: manifest.flags.map(ServerFlag.init),
            settings: ["checkout": ServerFlagSettings(enabled: false, defaultVariant: "off")])
        #expect(pulled.flags[0].isEnabled == false)
        #expect(pulled.flags[0].definition.defaultValue == false)
        #expect(pulled.flags[1].isEnabled == true)
    }

    /// Flags created on the server (not by `flags push`) have no registered default and may
    /// have more variants than a manifest holds: the manifest takes one, with a warning.
    @Test func serverOnlyShapesAreMappedWithWarnings() throws {
        let flags = [
            ServerFlag(key: "color", type: .string, variants: ["red": "#f00", "blue": "#00f"]),
            ServerFlag(key: "dark_mode", type: .boolean, variants: ["on": true, "off": false]),
        ]
        let (pulled, warnings) = try Manifest.pulled(from: flags)
        #expect(pulled.flags.map(\.definition.defaultValue) == ["#00f", false])
        #expect(
            warnings == [
                #""color": the server's variants (blue, red) become the manifest's default; the default is the variant "blue"."#
            ])
    }

    @Test func aDefaultVariantThatIsNotAVariantIsAnError() {
        let flag = ServerFlag(key: "limit", type: .integer, variants: ["small": 1], defaultVariant: "large")
        #expect {
            try Manifest.pulled(from: [flag])
        } throws: { error in
            (error as? ToolingError)
                == ToolingError(
                    .serverFailure,
                    #"The server's flag "limit" has the default variant "large", which is not one of its variants (small)."#)
        }
    }

    /// A manifest's `x-` annotations are the flag's own metadata on the server (`metadata.custom`),
    /// except `x-codeDefault` (the code default is the manifest's `defaultVariant`); a pull
    /// writes them back, and names the server's keys a manifest cannot hold.
    @Test func annotationsAreTheFlagsOwnMetadata() throws {
        let text = """
            {"flags": {"checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
              "metadata": {"owner": "payments", "x-tags": "beta", "x-ticket": 12, "x-codeDefault": "off"}}}}
            """
        let flag = try #require(try ManifestReader().read(text, file: "flags.json").flags.map(ServerFlag.init).first)
        #expect(flag.metadata.custom == ["x-tags": "beta", "x-ticket": 12])

        var server = flag
        server.metadata.custom["team"] = "payments-core"
        let (pulled, warnings) = try Manifest.pulled(from: [server])
        #expect(pulled.flags.first?.customMetadata == ["x-tags": "beta", "x-ticket": 12])
        #expect(warnings == [
            #""checkout": the server's metadata key "team" is not written: a manifest holds only registry fields and x- keys (flags push keeps it on the server)."#
        ])
        let reread = try ManifestReader().read(pulled.jsonString(), file: "pulled.json")
        #expect(reread.flags.map(ServerFlag.init) == [flag])
    }
}
