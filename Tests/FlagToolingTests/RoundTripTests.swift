import ExampleFlags
import FeatureFlags
import FlagManifest
import FlagTooling
import Foundation
import Testing

/// Swift declarations → manifest → generated Swift → manifest must keep every flag's behaviour.
struct RoundTripTests {
    let generator = FlagCodeGenerator(enumName: "AppFlag")

    /// The manifest the generated code declares, read back from its source.
    func reread(_ code: String) throws -> Manifest {
        try SwiftRegistryReader().read(sources: [(path: "AppFlag.swift", text: code)])
    }

    @Test func exampleRegistryBehavesTheSameAfterGenerateAndExport() throws {
        let exported = try Manifest(AppFlag.self)
        let code = generator.generate(exported, source: "flags.json").code
        let manifest = try reread(code)
        #expect(manifest.flags.map(\.key).sorted() == exported.flags.map(\.key).sorted())
        #expect(try Behaviour.differences(exported.definitions, manifest.definitions) == [])
        // A second round gives the same code.
        #expect(generator.generate(manifest, source: "flags.json").code == code)
    }

    @Test func typedBooleanDefaultingToTrueIsTrueInEveryConfiguration() throws {
        let darkMode = TypedFlag<Bool>("dark_mode", default: true, owner: "design")
        let manifest = Manifest(definitions: [darkMode.definition])
        let code = generator.generate(manifest, source: "flags.json").code
        #expect(code.contains("static let darkMode = TypedFlag<Bool>("))
        let regenerated = try reread(code)
        #expect(try Behaviour.differences(manifest.definitions, regenerated.definitions) == [])
        for configuration in BuildConfiguration.allCases {
            let values = try Behaviour.values(
                regenerated.definitions, in: .init(configuration: configuration, everyPhaseEverywhere: false))
            #expect(values["dark_mode"] == .bool(true), "\(configuration)")
        }
    }

    @Test func defaultsMetadataCannotSpellAreDeclaredAsDefinitions() throws {
        let definitions = [
            // Phase policy plus an explicit release default: FlagMetadata has no spelling for it.
            FlagDefinition(key: "new_chat", type: .boolean, default: true, phase: 1, buildDefaults: [.release: .bool(false)]),
            // Sensitive Boolean flags have no FlagMetadata spelling either.
            FlagDefinition(key: "secret_mode", type: .boolean, default: false, phase: 0, isSensitive: true),
            // A case may only depend on cases.
            FlagDefinition(key: "voice", type: .boolean, default: false, phase: 2, requires: ["new_chat"]),
            FlagDefinition(key: "search", type: .boolean, default: true, buildDefaults: [.release: .bool(false)], followsPhasePolicy: false),
            FlagDefinition(key: "page_size", type: .integer, default: 20, followsPhasePolicy: false, checking: .buildOnly),
        ]
        let manifest = Manifest(definitions: definitions)
        let (code, notes) = generator.generate(manifest, source: "flags.json")
        let regenerated = try reread(code)
        #expect(try Behaviour.differences(definitions, regenerated.definitions) == [])
        #expect(code.contains("static let newChat = FlagDefinition("))
        #expect(code.contains("static let secretMode = FlagDefinition("))
        #expect(code.contains("static let voice = FlagDefinition("))
        #expect(code.contains("static let pageSize = FlagDefinition("))
        #expect(regenerated.flag(forKey: "secret_mode")?.definition.isSensitive == true)
        #expect(notes.contains { $0.hasPrefix("'new_chat': ") })
    }

    @Test func swiftNamesTheAppChoseSurviveExportAndGeneration() throws {
        let source = """
            import FeatureFlags

            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                case navigationSplitView = "navigation_split_view"
                case iPadLayouts = "ipad_layouts"
                case iCloudSync = "icloud_sync"

                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    case .navigationSplitView: FlagMetadata("Navigation split view", phase: 1)
                    case .iPadLayouts: FlagMetadata("iPad layouts", phase: 1, requires: [.navigationSplitView])
                    case .iCloudSync: .init("iCloud sync", phase: 8, conflicts: [.iPadLayouts])
                    }
                }
            }
            """
        let manifest = try SwiftRegistryReader().read(sources: [(path: "Flags.swift", text: source)])
        #expect(manifest.flags.map(\.swiftName) == [nil, "iPadLayouts", "iCloudSync"])
        let text = manifest.jsonString()
        #expect(text.contains(#""swiftName": "iPadLayouts""#))
        let reread = try ManifestReader().read(text, file: "flags.json")
        let code = generator.generate(reread, source: "flags.json").code
        #expect(code.contains(#"    case iPadLayouts = "ipad_layouts""#))
        #expect(code.contains("        case .iCloudSync:\n"))
        #expect(code.contains("conflicts: [.iPadLayouts]"))
        #expect(try self.reread(code).jsonString() == text)
    }

    @Test func inProcessExportRecordsCaseNamesThatDifferFromTheKey() throws {
        let manifest = try Manifest(NamedFlag.self)
        #expect(manifest.flags.map(\.swiftName) == [nil, "iPadLayouts"])
    }

    @Test func aSwiftNameMustBeAnIdentifier() throws {
        var text = Manifest(flags: [ManifestFlag(definition: NamedFlag.iPadLayouts.definition, swiftName: "iPadLayouts")])
            .jsonString()
        text = text.replacingOccurrences(of: #""iPadLayouts""#, with: #""iPad layouts!""#)
        #expect {
            try ManifestReader().read(text, file: "flags.json")
        } throws: { error in
            (error as? ManifestError)?.description.contains(
                #"flags.ipad_layouts.metadata.swiftName: "iPad layouts!" is not a Swift identifier"#) == true
        }
    }
}

private enum NamedFlag: String, CaseIterable, FeatureFlagKey {
    case navigationSplitView = "navigation_split_view"
    case iPadLayouts = "ipad_layouts"

    var metadata: FlagMetadata<NamedFlag> {
        switch self {
        case .navigationSplitView: FlagMetadata("Navigation split view")
        case .iPadLayouts: FlagMetadata("iPad layouts", requires: [.navigationSplitView])
        }
    }
}
