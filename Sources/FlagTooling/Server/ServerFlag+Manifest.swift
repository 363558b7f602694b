import FeatureFlags
import FlagManifest
import FlagServerClient

extension ServerFlag {
    /// The metadata key the server's export uses for a flag's code default (its
    /// ``defaultVariant``): the server refuses it among a flag's own metadata, and a manifest's
    /// code default is its `defaultVariant`.
    static let codeDefaultKey = "x-codeDefault"

    /// The server definition of a manifest flag: its type, its variants as the manifest writes
    /// them (`on`/`off` for Boolean flags, one `default` variant otherwise), the code default's
    /// variant, the registry metadata the server keeps, and the `x-` annotations as the flag's
    /// own metadata (``Metadata/custom``), except `x-codeDefault`, which the code default says.
    ///
    /// Build-configuration defaults, `followsPhasePolicy`, `userTogglable`, `checking` and
    /// `swiftName` belong to the app and are not part of it.
    public init(_ flag: ManifestFlag) {
        let definition = flag.definition
        let variants: [String: FlagValue]
        let defaultVariant: String
        if definition.type == .boolean, let isOn = definition.defaultValue.boolValue {
            variants = ["on": .bool(true), "off": .bool(false)]
            defaultVariant = isOn ? "on" : "off"
        } else {
            variants = ["default": definition.defaultValue]
            defaultVariant = "default"
        }
        self.init(
            key: definition.key, type: ValueType(definition.type), variants: variants,
            metadata: Metadata(
                displayName: definition.displayName, description: definition.description.isEmpty ? nil : definition.description,
                owner: definition.owner, phase: definition.phase, removalTarget: definition.removalTarget,
                requires: definition.requires, conflicts: definition.conflicts, sensitive: definition.isSensitive,
                custom: flag.customMetadata.filter { $0.key != Self.codeDefaultKey }),
            defaultVariant: defaultVariant)
    }

    /// The variant a manifest takes as the code default: `settings`' when given, else the
    /// registered one, else `off` for Boolean flags and the first variant by name for others.
    func manifestDefaultVariant(settings: ServerFlagSettings?) -> String {
        if let settings { return settings.defaultVariant }
        if let defaultVariant { return defaultVariant }
        if type == .boolean, variants["off"] != nil { return "off" }
        return variants.keys.sorted().first ?? ""
    }

    /// The manifest flag for this definition, with `settings`' state and variant when given.
    ///
    /// The flag's own metadata (``Metadata/custom``) under `x-` keys becomes the manifest flag's
    /// annotations; a manifest cannot hold other keys (flagd metadata an import brought), so they
    /// are left out with a warning, and `flags push` keeps them on the server.
    ///
    /// - Returns: the flag, and warnings for what a manifest cannot hold (variants besides the
    ///   ones the manifest format writes, metadata keys without `x-`).
    /// - Throws: ``ToolingError`` when the default variant is not one of the variants.
    public func manifestFlag(settings: ServerFlagSettings? = nil) throws(ToolingError) -> (ManifestFlag, [String]) {
        let name = manifestDefaultVariant(settings: settings)
        guard let value = variants[name] else {
            throw ToolingError(
                .serverFailure,
                "The server's flag \"\(key)\" has the default variant \"\(name)\", which is not one of its variants (\(variants.keys.sorted().joined(separator: ", "))).")
        }
        let type = self.type.manifestType
        guard let normalized = value.normalized(to: type) else {
            throw ToolingError(
                .serverFailure, "The server's flag \"\(key)\": the variant \"\(name)\" is not \(type.nameWithArticle) value.")
        }
        var warnings: [String] = []
        let written: Set<String> = type == .boolean ? ["on", "off"] : ["default"]
        let expected: [String: FlagValue] =
            type == .boolean ? ["on": .bool(true), "off": .bool(false)] : [written.first!: normalized]
        if type == .boolean ? variants != expected : variants.count != 1 {
            warnings.append(
                "\"\(key)\": the server's variants (\(variants.keys.sorted().joined(separator: ", "))) become the manifest's \(written.sorted().joined(separator: " and ")); the default is the variant \"\(name)\".")
        }
        // The manifest's defaults for fields it writes only when they differ (see `Manifest`).
        let definition = FlagDefinition(
            key: key, type: type, default: normalized, displayName: metadata.displayName,
            description: metadata.description ?? "", phase: metadata.phase, owner: metadata.owner,
            removalTarget: metadata.removalTarget, followsPhasePolicy: type == .boolean,
            requires: metadata.requires, conflicts: metadata.conflicts,
            checking: type == .boolean ? .buildAndUser : .userOnly, isSensitive: metadata.sensitive)
        let annotations = metadata.custom.filter { ManifestFlag.isCustomMetadataKey($0.key) && $0.key != Self.codeDefaultKey }
        let unwritten = metadata.custom.keys.filter { annotations[$0] == nil }.sorted()
        if !unwritten.isEmpty {
            let names = unwritten.map { "\"\($0)\"" }.joined(separator: ", ")
            warnings.append(
                unwritten.count == 1
                    ? "\"\(key)\": the server's metadata key \(names) is not written: a manifest holds only registry fields and x- keys (flags push keeps it on the server)."
                    : "\"\(key)\": the server's metadata keys \(names) are not written: a manifest holds only registry fields and x- keys (flags push keeps them on the server).")
        }
        return (
            ManifestFlag(definition: definition, isEnabled: settings?.enabled ?? true, customMetadata: annotations), warnings
        )
    }
}

extension Manifest {
    /// A manifest of the server's definitions, sorted by key; with `settings` (one environment's,
    /// by flag key), each flag's state and default variant are that environment's.
    ///
    /// - Returns: the manifest and warnings for what it cannot hold.
    public static func pulled(
        from flags: [ServerFlag], settings: [String: ServerFlagSettings]? = nil, flagSetID: String? = nil
    ) throws(ToolingError) -> (Manifest, [String]) {
        var manifestFlags: [ManifestFlag] = []
        var warnings: [String] = []
        for flag in flags.sorted(by: { $0.key < $1.key }) {
            let (manifestFlag, flagWarnings) = try flag.manifestFlag(settings: settings?[flag.key])
            manifestFlags.append(manifestFlag)
            warnings += flagWarnings
        }
        return (Manifest(flags: manifestFlags, flagSetID: flagSetID), warnings)
    }
}
