import FeatureFlags
import FlagManifest
import Foundation

/// Flag manifests: the reader on fuzzed text, and the writer on fuzzed registries.
///
/// Input that looks like JSON text (first non-space byte `{`) is read as a manifest; any other
/// input is decoded into a registry of one to four flags with fuzzed keys, types, defaults and
/// metadata, which is written.
///
/// Invariants:
/// - a manifest that reads, once written, reads back identical (every definition field, state,
///   `x-` metadata, flag-set id and version), and writing that again gives the same text;
/// - the writer's output for any valid registry reads back identical.
enum ManifestTarget {
    static func run(_ data: Data) {
        if data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) == UInt8(ascii: "{") {
            guard let text = String(validatingUTF8Data: data),
                let manifest = try? ManifestReader().read(text, file: "fuzz.json")
            else { return }
            checkRoundTrip(manifest, origin: "a manifest read from text")
        } else {
            var reader = FuzzedDataReader(data)
            guard let manifest = generatedManifest(&reader) else { return }
            // Findings/manifest-*: keys with white space or commas (refused by the registry) and
            // custom keys with combining marks must not break the round trip.
            checkRoundTrip(manifest, origin: "a generated registry")
        }
    }

    static func checkRoundTrip(_ manifest: Manifest, origin: String) {
        let written = manifest.jsonString()
        let reread: Manifest
        do {
            reread = try ManifestReader().read(written, file: "written.json")
        } catch {
            Invariant.fail("the manifest written from \(origin) does not read back: \(error)\n\(written)")
        }
        Invariant.require(
            reread.flags.count == manifest.flags.count,
            "\(origin) had \(manifest.flags.count) flags; written and read back, \(reread.flags.count)")
        Invariant.require(reread.flagSetID == manifest.flagSetID, "\(origin): the flag-set id changed in a round trip")
        Invariant.require(reread.version == manifest.version, "\(origin): the version changed in a round trip")
        for (before, after) in zip(manifest.flags, reread.flags) {
            if let difference = difference(before, after) {
                Invariant.fail("\(origin): flag '\(before.key)' changed in a round trip: \(difference)\n\(written)")
            }
        }
        let rewritten = reread.jsonString()
        Invariant.require(rewritten == written, "\(origin): writing the manifest read back gave different text")
    }

    /// The first field that differs between two flags, or `nil` when they are the same.
    static func difference(_ left: ManifestFlag, _ right: ManifestFlag) -> String? {
        let a = left.definition
        let b = right.definition
        let checks: [(String, Bool)] = [
            ("key", a.key == b.key),
            ("type", a.type == b.type),
            ("defaultValue", a.defaultValue.isSameJSON(as: b.defaultValue)),
            ("displayName", a.displayName == b.displayName),
            ("description", a.description == b.description),
            ("phase", a.phase == b.phase),
            ("owner", a.owner == b.owner),
            ("removalTarget", a.removalTarget == b.removalTarget),
            (
                "buildDefaults",
                a.buildDefaults.count == b.buildDefaults.count
                    && a.buildDefaults.allSatisfy { configuration, value in
                        b.buildDefaults[configuration].map(value.isSameJSON(as:)) ?? false
                    }
            ),
            ("followsPhasePolicy", a.followsPhasePolicy == b.followsPhasePolicy),
            ("requires", a.requires == b.requires),
            ("conflicts", a.conflicts == b.conflicts),
            ("isUserTogglable", a.isUserTogglable == b.isUserTogglable),
            ("checking", a.checking == b.checking),
            ("isSensitive", a.isSensitive == b.isSensitive),
            ("isEnabled", left.isEnabled == right.isEnabled),
            (
                "customMetadata",
                left.customMetadata.count == right.customMetadata.count
                    && left.customMetadata.allSatisfy { key, value in
                        right.customMetadata[key].map(value.isSameJSON(as:)) ?? false
                    }
            ),
        ]
        return checks.first { !$0.1 }.map(\.0)
    }

    /// One to four flags from the input, when they make a valid registry.
    static func generatedManifest(_ reader: inout FuzzedDataReader) -> Manifest? {
        var definitions: [FlagDefinition] = []
        var flags: [ManifestFlag] = []
        for _ in 0..<(1 + reader.choice(4)) {
            let type = FlagValueType.allCases[reader.choice(FlagValueType.allCases.count)]
            let key = reader.string(maxLength: 8)
            var buildDefaults: [BuildConfiguration: FlagValue] = [:]
            for configuration in BuildConfiguration.allCases where reader.bool() {
                buildDefaults[configuration] = value(of: type, &reader)
            }
            let previous = definitions.map(\.key)
            func relation() -> [String] {
                previous.isEmpty || !reader.bool() ? [] : [previous[reader.choice(previous.count)]]
            }
            let definition = FlagDefinition(
                key: key,
                type: type,
                default: value(of: type, &reader),
                displayName: reader.bool() ? reader.string() : nil,
                description: reader.string(maxLength: 24),
                phase: reader.bool() ? Int(reader.byte()) : nil,
                owner: reader.bool() ? reader.string() : nil,
                removalTarget: reader.bool() ? reader.string(maxLength: 6) : nil,
                buildDefaults: buildDefaults,
                followsPhasePolicy: reader.bool(),
                requires: relation(),
                conflicts: relation(),
                isUserTogglable: reader.bool(),
                checking: CheckingMode.allCases[reader.choice(CheckingMode.allCases.count)],
                isSensitive: reader.bool()
            )
            var custom: [String: FlagValue] = [:]
            for _ in 0..<reader.choice(3) {
                custom["x-" + reader.string(maxLength: 6)] =
                    switch reader.choice(3) {
                    case 0: .bool(reader.bool())
                    case 1: .int(reader.int())
                    default: .string(reader.string())
                    }
            }
            definitions.append(definition)
            flags.append(ManifestFlag(definition: definition, isEnabled: reader.bool(), customMetadata: custom))
        }
        guard (try? FlagRegistry(definitions)) != nil else { return nil }
        return Manifest(
            flags: flags, flagSetID: reader.bool() ? reader.string() : nil, version: reader.bool() ? reader.string() : nil)
    }

    /// A value of `type`; doubles are finite (JSON cannot hold the others).
    static func value(of type: FlagValueType, _ reader: inout FuzzedDataReader) -> FlagValue {
        switch type {
        case .boolean: return .bool(reader.bool())
        case .integer: return .int(reader.bool() ? reader.smallInt() : reader.int())
        case .double:
            let bits = Double(bitPattern: UInt64(bitPattern: Int64(reader.int())))
            return .double(bits.isFinite ? bits : Double(reader.smallInt()) / 8)
        case .string: return .string(reader.string())
        case .object:
            let value = reader.flagValue(depth: 2)
            return value.valueType == .object ? value : .object(["value": value])
        }
    }
}
