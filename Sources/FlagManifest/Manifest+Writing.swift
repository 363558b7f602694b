import FeatureFlags

extension Manifest {
    /// The flagd schema the manifest declares.
    public static let schemaURL = "https://flagd.dev/schema/v0/flags.json"

    /// The manifest as pretty-printed JSON text: deterministic (flags in manifest order, fields
    /// in a fixed order), two-space indented, ending with a newline.
    public func jsonString() -> String {
        var root: [(String, Pretty)] = [("$schema", .scalar(.string(Self.schemaURL)))]
        var setMetadata: [(String, Pretty)] = []
        if let flagSetID { setMetadata.append(("flagSetId", .scalar(.string(flagSetID)))) }
        if let version { setMetadata.append(("version", .scalar(.string(version)))) }
        if !setMetadata.isEmpty { root.append(("metadata", .object(setMetadata))) }
        root.append(("flags", .object(flags.map { ($0.key, Self.pretty($0)) })))
        var output = ""
        Pretty.object(root).write(to: &output, indent: 0)
        return output + "\n"
    }

    private static func pretty(_ flag: ManifestFlag) -> Pretty {
        let definition = flag.definition
        let variants: [(String, Pretty)]
        let defaultVariant: String
        if definition.type == .boolean, let isOn = definition.defaultValue.boolValue {
            variants = [("on", .scalar(.bool(true))), ("off", .scalar(.bool(false)))]
            defaultVariant = isOn ? "on" : "off"
        } else {
            variants = [("default", .scalar(definition.defaultValue))]
            defaultVariant = "default"
        }
        return .object([
            ("state", .scalar(.string(flag.isEnabled ? "ENABLED" : "DISABLED"))),
            ("variants", .object(variants)),
            ("defaultVariant", .scalar(.string(defaultVariant))),
            ("metadata", .object(metadata(of: flag).map { ($0.0, .scalar($0.1)) })),
        ])
    }

    /// The registry fields encoded as flagd metadata (string, number and Boolean values only).
    static func metadata(of flag: ManifestFlag) -> [(String, FlagValue)] {
        let definition = flag.definition
        var metadata: [(String, FlagValue)] = [
            ("key", .string(definition.key)),
            ("type", .string(definition.type.rawValue)),
            ("displayName", .string(definition.displayName)),
        ]
        if !definition.description.isEmpty { metadata.append(("description", .string(definition.description))) }
        if let owner = definition.owner { metadata.append(("owner", .string(owner))) }
        if let phase = definition.phase { metadata.append(("phase", .int(phase))) }
        if let removalTarget = definition.removalTarget {
            metadata.append(("removalTarget", .string(removalTarget)))
        }
        for configuration in BuildConfiguration.allCases {
            guard let value = definition.buildDefaults[configuration] else { continue }
            metadata.append(("default.\(configuration.rawValue)", encodedBuildDefault(value, type: definition.type)))
        }
        if definition.followsPhasePolicy != FlagDefinition.defaultFollowsPhasePolicy(for: definition.type) {
            metadata.append(("followsPhasePolicy", .bool(definition.followsPhasePolicy)))
        }
        if definition.isUserTogglable { metadata.append(("userTogglable", .bool(true))) }
        if definition.checking != FlagDefinition.defaultChecking(for: definition.type) {
            metadata.append(("checking", .string(definition.checking.rawValue)))
        }
        if definition.isSensitive { metadata.append(("sensitive", .bool(true))) }
        if !definition.requires.isEmpty {
            metadata.append(("requires", .string(definition.requires.joined(separator: ","))))
        }
        if !definition.conflicts.isEmpty {
            metadata.append(("conflicts", .string(definition.conflicts.joined(separator: ","))))
        }
        if let swiftName = flag.swiftName { metadata.append(("swiftName", .string(swiftName))) }
        for key in flag.customMetadata.keys.sorted() {
            metadata.append((key, flag.customMetadata[key]!))
        }
        return metadata
    }

    /// Object values travel as JSON text, since flagd metadata cannot hold objects.
    static func encodedBuildDefault(_ value: FlagValue, type: FlagValueType) -> FlagValue {
        type == .object ? .string(value.jsonString) : value
    }
}

/// A JSON tree that keeps member order, for pretty printing.
private indirect enum Pretty {
    case scalar(FlagValue)
    case object([(String, Pretty)])

    func write(to output: inout String, indent: Int) {
        switch self {
        case .scalar(let value):
            output += value.jsonString
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            let inner = String(repeating: " ", count: indent + 2)
            output += "{\n"
            for (offset, (key, value)) in members.enumerated() {
                output += inner + FlagValue.string(key).jsonString + ": "
                value.write(to: &output, indent: indent + 2)
                output += offset == members.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }
}
