extension FlagDebugModel {
    /// The overrides in effect as an override document (``FlagOverridesDocument``), the JSON
    /// the `flags` command reads with `--overrides`: what a tester shares with a developer.
    /// Overrides of sensitive flags are left out, and named in the result.
    public func exportOverrides() -> FlagOverridesExport {
        var values = engine.overrides
        var omitted: [String] = []
        for key in values.keys.sorted() where engine.registry.definition(forKey: key)?.isSensitive ?? false {
            values[key] = nil
            omitted.append(key)
        }
        return FlagOverridesExport(
            text: FlagOverridesDocument.text(of: values), keys: values.keys.sorted(), omittedSensitiveKeys: omitted)
    }

    /// Replaces the overrides with those of an override document, such as one a tester shared.
    ///
    /// Keys this app does not know and values its flags refuse are skipped and reported (as the
    /// `flags` command does with such a file); the others replace every override in one change.
    ///
    /// - Throws: ``FlagOverridesImportError`` when the text is not an override document or
    ///   overrides are not permitted in this build; the overrides are then left as they were.
    @discardableResult
    public func importOverrides(fromJSON text: String) throws(FlagOverridesImportError) -> FlagOverridesImport {
        let values: [String: FlagValue]
        do {
            values = try FlagOverridesDocument.values(fromJSON: text)
        } catch {
            throw FlagOverridesImportError(message: error.description)
        }
        guard engine.overridesPermitted else {
            let configuration = engine.buildConfiguration.map { "\($0) builds" } ?? "flags that are not configured"
            throw FlagOverridesImportError(message: "Overrides are not permitted in \(configuration); nothing was imported.")
        }
        var accepted: [String: FlagValue] = [:]
        var skipped: [FlagOverridesImport.Skipped] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let definition = engine.registry.definition(forKey: key) else {
                skipped.append(.init(key: key, reason: "this app has no such flag"))
                continue
            }
            switch definition.accepting(value) {
            case .success(let normalized): accepted[key] = normalized
            case .failure(let rejection): skipped.append(.init(key: key, reason: rejection.description))
            }
        }
        do throws(FlagOverrideError) {
            try engine.replaceOverrides(with: accepted)
        } catch {
            throw FlagOverridesImportError(message: "\(error.description) Nothing was imported.")
        }
        return FlagOverridesImport(applied: accepted.keys.sorted(), skipped: skipped)
    }
}

/// Overrides ready to share: the document's text and what it holds.
public struct FlagOverridesExport: Sendable, Hashable {
    /// The override document (JSON, keys sorted, newline-terminated).
    public var text: String
    /// The keys it holds, sorted.
    public var keys: [String]
    /// Overrides of sensitive flags, which are never shared.
    public var omittedSensitiveKeys: [String]

    /// Whether there is nothing to share.
    public var isEmpty: Bool { keys.isEmpty }

    /// A line for the share sheet: `3 overrides` (and the sensitive ones left out).
    public var summary: String {
        var summary = keys.count == 1 ? "1 override" : "\(keys.count) overrides"
        if !omittedSensitiveKeys.isEmpty {
            summary += "; left out (sensitive): " + omittedSensitiveKeys.joined(separator: ", ")
        }
        return summary
    }
}

/// What an import did.
public struct FlagOverridesImport: Sendable, Hashable {
    /// An entry that was not applied, and why.
    public struct Skipped: Sendable, Hashable {
        /// The entry's flag key.
        public var key: String
        /// Why it was not applied: no such flag in this app, or why the value was refused.
        public var reason: String
    }

    /// The keys now overridden, sorted.
    public var applied: [String]
    /// The entries left out, in key order.
    public var skipped: [Skipped]

    /// One line per outcome, for the menu to show.
    public var summary: String {
        var lines = [applied.count == 1 ? "Imported 1 override." : "Imported \(applied.count) overrides."]
        for entry in skipped { lines.append("Skipped '\(entry.key)': \(entry.reason).") }
        return lines.joined(separator: "\n")
    }
}

/// Why an override document could not be imported; nothing was changed.
public struct FlagOverridesImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in a sentence or two.
    public var message: String

    /// The error with `message`.
    public init(message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
