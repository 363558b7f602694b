import FeatureFlags
import Foundation

/// Reads flag manifests (flagd flag-definition files carrying the registry in `metadata`).
///
/// The reader is strict: unknown fields, values of the wrong type and repeated keys are errors
/// naming the file, line and field. It is deliberately small, so that it can later be replaced
/// by the flagd definitions reader of `FlagEvaluation` for the flagd part of the format.
public struct ManifestReader: Sendable {
    /// Whether a flag key that appears twice is recorded in ``Manifest/duplicateKeys`` (for
    /// linting) instead of failing the read.
    public var allowsDuplicateFlags: Bool

    /// A reader; with `allowsDuplicateFlags` a repeated flag key is recorded rather than refused.
    public init(allowsDuplicateFlags: Bool = false) {
        self.allowsDuplicateFlags = allowsDuplicateFlags
    }

    /// Reads the manifest at `path`.
    ///
    /// - Throws: ``ManifestError`` when the file cannot be read or is not a valid manifest.
    public func read(contentsOfFile path: String) throws(ManifestError) -> Manifest {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ManifestError(file: path, message: "no such file. Pass the path of a flag manifest with --manifest.")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ManifestError(file: path, message: "the file cannot be read: \(Self.reason(error))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ManifestError(file: path, message: "the file is not UTF-8 text.")
        }
        return try read(text, file: path)
    }

    /// Reads a manifest from JSON text; `file` names it in errors.
    public func read(_ text: String, file: String) throws(ManifestError) -> Manifest {
        let root: JSONNode
        do {
            // Repeated flags are reported by `Context`, or kept for the linter.
            root = try JSONNodeParser.parse(text, allowingDuplicateKeysIn: ["flags"])
        } catch where error.duplicateKey != nil {
            throw ManifestError(file: file, line: error.line, message: error.message)
        } catch {
            throw ManifestError(
                file: file, line: error.line, message: "not valid JSON: \(error.message) (column \(error.column)).")
        }
        var context = Context(file: file, allowsDuplicateFlags: allowsDuplicateFlags)
        return try context.manifest(root)
    }

    private static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        return error.localizedDescription
    }
}

private struct Context {
    let file: String
    let allowsDuplicateFlags: Bool

    static let rootFields: Set<String> = ["$schema", "$evaluators", "metadata", "flags"]
    static let flagFields: Set<String> = ["state", "variants", "defaultVariant", "targeting", "metadata"]
    static let metadataFields: Set<String> = [
        "key", "type", "displayName", "description", "owner", "phase", "removalTarget", "followsPhasePolicy",
        "userTogglable", "checking", "sensitive", "requires", "conflicts", "swiftName",
    ]

    func error(_ field: String, line: Int?, _ message: String) -> ManifestError {
        ManifestError(file: file, line: line, field: field, message: message)
    }

    /// The members of an object, rejecting repeated keys.
    func members(_ node: JSONNode, field: String, line: Int?) throws(ManifestError) -> [JSONNode.Member] {
        guard let members = node.members else {
            throw error(field, line: line, "expected an object, found \(node.typeName).")
        }
        var seen: [String: Int] = [:]
        for member in members {
            if let first = seen[member.key] {
                throw error(
                    field.isEmpty ? member.key : "\(field).\(member.key)", line: member.line,
                    "the key appears twice (first on line \(first)); JSON readers would silently keep only one. Remove one of them."
                )
            }
            seen[member.key] = member.line
        }
        return members
    }

    mutating func manifest(_ root: JSONNode) throws(ManifestError) -> Manifest {
        guard let rootMembers = root.members else {
            throw error("", line: 1, "expected a JSON object with a \"flags\" member, found \(root.typeName).")
        }
        var flagsNode: JSONNode.Member?
        var flagSetID: String?
        var version: String?
        var seenRoot: Set<String> = []
        for member in rootMembers {
            guard seenRoot.insert(member.key).inserted else {
                throw error(member.key, line: member.line, "the key appears twice. Remove one of them.")
            }
            switch member.key {
            case "flags": flagsNode = member
            case "metadata":
                for entry in try members(member.value, field: "metadata", line: member.line) {
                    let field = "metadata.\(entry.key)"
                    switch entry.key {
                    case "flagSetId": flagSetID = try string(entry.value, field: field, line: entry.line)
                    case "version": version = try string(entry.value, field: field, line: entry.line)
                    default: _ = try metadataScalar(entry.value, field: field, line: entry.line)
                    }
                }
            case "$schema", "$evaluators": break
            default:
                throw error(
                    member.key, line: member.line,
                    "unknown field; a manifest's top level may only have \(Self.rootFields.sorted().joined(separator: ", ")).")
            }
        }
        guard let flagsNode else {
            throw error("flags", line: 1, "missing; a manifest needs a \"flags\" object mapping keys to flags.")
        }
        guard let flagMembers = flagsNode.value.members else {
            throw error("flags", line: flagsNode.line, "expected an object mapping keys to flags, found \(flagsNode.value.typeName).")
        }
        var manifest = Manifest(flags: [], flagSetID: flagSetID, version: version)
        var lines: [String: [Int]] = [:]
        for member in flagMembers {
            lines[member.key, default: []].append(member.line)
            if lines[member.key]!.count > 1 {
                guard allowsDuplicateFlags else {
                    throw error(
                        "flags.\(member.key)", line: member.line,
                        "the flag is declared twice (first on line \(lines[member.key]![0])); JSON readers would silently keep only one. Remove or rename one of them."
                    )
                }
                continue
            }
            manifest.flags.append(try flag(member))
        }
        manifest.duplicateKeys = flagMembers.compactMap { member in
            guard let found = lines[member.key], found.count > 1, found[0] == member.line else { return nil }
            return (member.key, found)
        }
        return manifest
    }

    func flag(_ member: JSONNode.Member) throws(ManifestError) -> ManifestFlag {
        let key = member.key
        let base = "flags.\(key)"
        guard !key.isEmpty else { throw error(base, line: member.line, "a flag key must not be empty.") }
        var state: Bool?
        var variants: [JSONNode.Member]?
        var defaultVariant: String??
        var defaultVariantLine = member.line
        var metadata: [JSONNode.Member] = []
        for field in try members(member.value, field: base, line: member.line) {
            let path = "\(base).\(field.key)"
            switch field.key {
            case "state":
                switch try string(field.value, field: path, line: field.line) {
                case "ENABLED": state = true
                case "DISABLED": state = false
                case let other:
                    throw error(path, line: field.line, "expected \"ENABLED\" or \"DISABLED\", found \"\(other)\".")
                }
            case "variants":
                let entries = try members(field.value, field: path, line: field.line)
                guard !entries.isEmpty else { throw error(path, line: field.line, "a flag needs at least one variant.") }
                variants = entries
            case "defaultVariant":
                defaultVariantLine = field.line
                if case .null = field.value {
                    defaultVariant = .some(nil)
                } else {
                    defaultVariant = .some(try string(field.value, field: path, line: field.line))
                }
            case "targeting": break
            case "metadata": metadata = try members(field.value, field: path, line: field.line)
            default:
                throw error(
                    path, line: field.line,
                    "unknown field; a flag may only have \(Self.flagFields.sorted().joined(separator: ", ")).")
            }
        }
        guard state != nil else { throw error("\(base).state", line: member.line, "missing; use \"ENABLED\" or \"DISABLED\".") }
        guard let variants else { throw error("\(base).variants", line: member.line, "missing; a flag needs its variants.") }
        guard case .some(.some(let defaultName)) = defaultVariant else {
            throw error(
                "\(base).defaultVariant", line: defaultVariantLine,
                "\(defaultVariant == nil ? "missing" : "is null"); a manifest flag needs a default variant, which is its code default.")
        }
        guard let defaultNode = variants.first(where: { $0.key == defaultName }) else {
            throw error(
                "\(base).defaultVariant", line: defaultVariantLine,
                "names \"\(defaultName)\", which is not one of the variants (\(variants.map(\.key).joined(separator: ", "))).")
        }
        let defaultValue = defaultNode.value.flagValue

        // Metadata.
        var fields: [String: JSONNode.Member] = [:]
        var custom: [String: FlagValue] = [:]
        var buildDefaults: [BuildConfiguration: JSONNode.Member] = [:]
        for entry in metadata {
            let path = "\(base).metadata.\(entry.key)"
            let scalar = try metadataScalar(entry.value, field: path, line: entry.line)
            if ManifestFlag.isCustomMetadataKey(entry.key) {
                custom[entry.key] = scalar
            } else if entry.key.hasPrefix("default.") {
                let name = String(entry.key.dropFirst("default.".count))
                guard let configuration = BuildConfiguration(rawValue: name) else {
                    throw error(
                        path, line: entry.line,
                        "unknown build configuration \"\(name)\"; use one of \(BuildConfiguration.allCases.map { "default.\($0.rawValue)" }.joined(separator: ", ")).")
                }
                buildDefaults[configuration] = entry
            } else if Self.metadataFields.contains(entry.key) {
                fields[entry.key] = entry
            } else {
                throw error(
                    path, line: entry.line,
                    "unknown metadata field; known fields are \(Self.metadataFields.sorted().joined(separator: ", ")) and default.<configuration>. Prefix your own fields with \"x-\".")
            }
        }
        func text(_ name: String) throws(ManifestError) -> String? {
            guard let entry = fields[name] else { return nil }
            return try string(entry.value, field: "\(base).metadata.\(name)", line: entry.line)
        }
        func flag(_ name: String) throws(ManifestError) -> Bool? {
            guard let entry = fields[name] else { return nil }
            guard case .bool(let value) = entry.value else {
                throw error("\(base).metadata.\(name)", line: entry.line, "expected a Boolean, found \(entry.value.typeName).")
            }
            return value
        }

        if let declared = try text("key"), declared != key {
            throw error(
                "\(base).metadata.key", line: fields["key"]?.line,
                "is \"\(declared)\" but the flag's key is \"\(key)\"; they must be equal.")
        }
        let type: FlagValueType
        if let name = try text("type") {
            guard let declared = FlagValueType(rawValue: name) else {
                throw error(
                    "\(base).metadata.type", line: fields["type"]?.line,
                    "unknown type \"\(name)\"; use one of \(FlagValueType.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            type = declared
        } else if let inferred = defaultValue.valueType {
            type = inferred
        } else {
            throw error("\(base).metadata.type", line: member.line, "missing, and the default variant is null.")
        }
        for variant in variants where !variant.value.flagValue.conforms(to: type) {
            throw error(
                "\(base).variants.\(variant.key)", line: variant.line,
                "expected \(Self.article(type)) value (the flag's type), found \(variant.value.typeName).")
        }

        var phase: Int?
        if let entry = fields["phase"] {
            guard let number = entry.value.flagValue.intValue, number >= 0 else {
                throw error(
                    "\(base).metadata.phase", line: entry.line,
                    "expected a whole number ≥ 0, found \(entry.value.typeName == "a number" ? "\(entry.value.flagValue)" : entry.value.typeName).")
            }
            phase = number
        }
        var decodedDefaults: [BuildConfiguration: FlagValue] = [:]
        for (configuration, entry) in buildDefaults {
            decodedDefaults[configuration] = try buildDefault(
                entry, type: type, field: "\(base).metadata.default.\(configuration.rawValue)")
        }
        var checking = FlagDefinition.defaultChecking(for: type)
        if let name = try text("checking") {
            guard let mode = CheckingMode(rawValue: name) else {
                throw error(
                    "\(base).metadata.checking", line: fields["checking"]?.line,
                    "unknown checking mode \"\(name)\"; use one of \(CheckingMode.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            checking = mode
        }
        let definition = FlagDefinition(
            key: key,
            type: type,
            default: defaultValue.normalized(to: type) ?? defaultValue,
            displayName: try text("displayName"),
            description: try text("description") ?? "",
            phase: phase,
            owner: try text("owner"),
            removalTarget: try text("removalTarget"),
            buildDefaults: decodedDefaults,
            followsPhasePolicy: try flag("followsPhasePolicy") ?? FlagDefinition.defaultFollowsPhasePolicy(for: type),
            requires: Self.list(try text("requires")),
            conflicts: Self.list(try text("conflicts")),
            isUserTogglable: try flag("userTogglable") ?? false,
            checking: checking,
            isSensitive: try flag("sensitive") ?? false
        )
        let swiftName = try text("swiftName")
        if let swiftName, !SwiftNames.isIdentifier(swiftName) {
            throw error(
                "\(base).metadata.swiftName", line: fields["swiftName"]?.line,
                "\"\(swiftName)\" is not a Swift identifier; use letters, digits and underscores, not starting with a digit.")
        }
        return ManifestFlag(
            definition: definition, isEnabled: state ?? true, line: member.line, customMetadata: custom,
            swiftName: swiftName)
    }

    func buildDefault(_ entry: JSONNode.Member, type: FlagValueType, field: String) throws(ManifestError) -> FlagValue {
        var value = entry.value.flagValue
        if type == .object {
            guard case .string(let json) = entry.value else {
                throw error(field, line: entry.line, "expected JSON text in a string (flagd metadata cannot hold objects), found \(entry.value.typeName).")
            }
            do {
                value = try JSONNodeParser.parse(json).flagValue
            } catch {
                throw self.error(field, line: entry.line, "the string is not valid JSON: \(error.message).")
            }
        }
        guard let normalized = value.normalized(to: type) else {
            throw error(field, line: entry.line, "expected \(Self.article(type)) value (the flag's type), found \(entry.value.typeName).")
        }
        return normalized
    }

    func string(_ node: JSONNode, field: String, line: Int?) throws(ManifestError) -> String {
        guard case .string(let value) = node else {
            throw error(field, line: line, "expected a string, found \(node.typeName).")
        }
        return value
    }

    func metadataScalar(_ node: JSONNode, field: String, line: Int?) throws(ManifestError) -> FlagValue {
        switch node {
        case .bool, .integer, .double, .string: return node.flagValue
        default:
            throw error(field, line: line, "flagd metadata values must be strings, numbers or Booleans, found \(node.typeName).")
        }
    }

    static func list(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func article(_ type: FlagValueType) -> String {
        type.nameWithArticle
    }
}
