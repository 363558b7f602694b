public import FlagEvaluation

extension ServerState {
    /// The environment's flags as a flagd flag-definition document, with the registry metadata in
    /// each flag's `metadata` as the project's manifest format writes it, and the segments as
    /// `$evaluators`. Off flags are `DISABLED`.
    ///
    /// The document has no flag-set `metadata`: an imported flag set's metadata was merged into
    /// each of its flags (see ``FlagdImporter``), and the environment and revision are the
    /// request's and the ETag's, not data of the flags.
    ///
    /// - Parameter forEvaluation: Whether the document is what the server evaluates and delivers
    ///   (OFREP and `/flagd/v1/flags.json`): each flag's metadata is then only its flagd metadata
    ///   (``FlagRecordMetadata/custom``), so an OFREP client and a flagd client see the same metadata,
    ///   what the flag's author wrote. The registry fields travel in the export (`false`).
    ///   - only: The flags to include (those of them that exist); `nil` for every flag.
    ///   - includingArchived: Whether archived flags are included (validation compiles them, so
    ///     that a restore brings back a flag that compiles); they are not served, so neither
    ///     delivery nor the export has them.
    public func flagdDocument(
        environment key: String, forEvaluation: Bool = false, only: Set<String>? = nil, includingArchived: Bool = false
    ) -> JSONValue? {
        guard let environment = environments[key] else { return nil }
        var flagsJSON: [String: JSONValue] = [:]
        func add(_ flagKey: String) {
            guard let flag = flags[flagKey], includingArchived || !flag.archived, let settings = environment.settings[flagKey]
            else { return }
            flagsJSON[flagKey] = flagdEntry(flag, settings, forEvaluation: forEvaluation)
        }
        if let only {
            for flagKey in only { add(flagKey) }
        } else {
            for flagKey in flags.keys { add(flagKey) }
        }
        var document: [String: JSONValue] = [
            "$schema": "https://flagd.dev/schema/v0/flags.json",
            "flags": .object(flagsJSON),
        ]
        if !environment.segments.isEmpty { document["$evaluators"] = .object(environment.segments) }
        return .object(document)
    }
}

extension ServerState {
    /// One flag's entry of ``flagdDocument(environment:forEvaluation:only:)``.
    package func flagdEntry(_ flag: FlagRecord, _ settings: FlagSettings, forEvaluation: Bool) -> JSONValue {
        var entry: [String: JSONValue] = [
            "state": .string(settings.enabled ? "ENABLED" : "DISABLED"),
            "variants": .object(flag.variants),
            "defaultVariant": settings.defaultVariant.map(JSONValue.string) ?? .null,
            "metadata": .object(forEvaluation ? flag.metadata.custom : flag.manifestMetadata),
        ]
        if let targeting = settings.targeting { entry["targeting"] = targeting }
        return .object(entry)
    }
}

extension FlagRecord {
    /// The metadata key that carries a flag's code default in exports and imports
    /// (FlagServer's `FlagdImporter` reads it back).
    package static let codeDefaultKey = "x-codeDefault"

    /// The flag's flagd metadata (``FlagRecordMetadata/custom``) and the registry fields in the
    /// manifest's metadata encoding (flagd allows only scalars), and the code default as
    /// `x-codeDefault` (a team annotation to the manifest format, read back by the importer).
    var manifestMetadata: [String: JSONValue] {
        var metadata = self.metadata.custom
        metadata["key"] = .string(key)
        metadata["type"] = .string(type.manifestName)
        if let value = self.metadata.displayName { metadata["displayName"] = .string(value) }
        if let value = self.metadata.description { metadata["description"] = .string(value) }
        if let value = self.metadata.owner { metadata["owner"] = .string(value) }
        if let value = self.metadata.phase { metadata["phase"] = .int(value) }
        if let value = self.metadata.removalTarget { metadata["removalTarget"] = .string(value) }
        if !self.metadata.requires.isEmpty { metadata["requires"] = .string(self.metadata.requires.joined(separator: ",")) }
        if !self.metadata.conflicts.isEmpty { metadata["conflicts"] = .string(self.metadata.conflicts.joined(separator: ",")) }
        if self.metadata.sensitive { metadata["sensitive"] = true }
        if let codeDefault = defaultVariant { metadata[Self.codeDefaultKey] = .string(codeDefault) }
        return metadata
    }
}
