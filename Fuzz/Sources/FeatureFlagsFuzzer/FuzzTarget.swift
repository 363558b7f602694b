import Foundation

/// The fuzz targets this executable holds. One binary links once; `FUZZ_TARGET` picks the target.
enum FuzzTarget: String, CaseIterable {
    /// `FlagValue(jsonData:)` / `JSONValue(parsing:)`: same verdict, and what is written reads back.
    case json
    /// flagd definitions loaded and evaluated for contexts derived from the input.
    case definitions
    /// JSON Logic rules compiled and evaluated against data from the input.
    case jsonlogic
    /// `app_config` and OFREP payloads decoded against a registry, then applied to a manager.
    case remote
    /// Flag manifests read, written and read back.
    case manifest
    /// `-ff.<key> <value>` launch arguments.
    case launch
    /// The JSON override file: written values read back; a corrupt file is moved aside intact.
    case store
    /// A registry with requires/conflicts under fuzzed overrides, preferences and remote values.
    case snapshot

    /// The variable that names the target.
    static let environmentVariable = "FUZZ_TARGET"

    /// The target named by `FUZZ_TARGET`; exits with a usage message when there is none.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment[environmentVariable] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(
                Data("Set \(environmentVariable) to one of: \(names) (it is '\(name)').\n".utf8))
            exit(2)
        }
        return target
    }()

    func run(_ data: Data) {
        switch self {
        case .json: JSONTarget.run(data)
        case .definitions: DefinitionsTarget.run(data)
        case .jsonlogic: JSONLogicTarget.run(data)
        case .remote: RemotePayloadTarget.run(data)
        case .manifest: ManifestTarget.run(data)
        case .launch: LaunchArgumentsTarget.run(data)
        case .store: OverrideStoreTarget.run(data)
        case .snapshot: SnapshotTarget.run(data)
        }
    }
}
