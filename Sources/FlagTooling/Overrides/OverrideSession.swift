import FeatureFlags
import FlagManifest
import FlagServerClient
import Foundation
import Logging

/// The command-line debug menu: a manifest's flags resolved for a build configuration, with
/// local overrides kept in a JSON file (the ``JSONFileFlagStore`` format).
///
/// Reading never changes the file. Overrides for keys the manifest does not know are kept in
/// the file untouched (another manifest may know them) and reported as ``warnings``.
public final class OverrideSession: Sendable {
    /// The manifest whose flags are resolved.
    public let manifest: Manifest
    /// The engine resolving them for the build configuration.
    public let engine: FlagEngine
    /// The override file.
    public let overridesURL: URL
    /// Problems worth telling the user that do not stop the command.
    public let warnings: [String]
    private let foreignOverrides: [String: FlagValue]

    /// Loads the override file (a missing file means no overrides) and resolves the manifest.
    ///
    /// - Throws: ``ToolingError`` (invalid input) when the override file is not a JSON object.
    public init(
        manifest: Manifest, registry: FlagRegistry, overridesPath: String, configuration: BuildConfiguration
    ) throws(ToolingError) {
        self.manifest = manifest
        self.overridesURL = URL(fileURLWithPath: overridesPath)
        let stored = try Self.readOverrides(at: overridesPath)
        var warnings: [String] = []
        var known: [String: FlagValue] = [:]
        var foreign: [String: FlagValue] = [:]
        for (key, value) in stored.sorted(by: { $0.key < $1.key }) {
            guard let definition = registry.definition(forKey: key) else {
                foreign[key] = value
                warnings.append("\(overridesPath): ignoring the override of '\(key)': the manifest has no such flag.")
                continue
            }
            guard value.conforms(to: definition.type) else {
                foreign[key] = value
                warnings.append(
                    "\(overridesPath): ignoring the override of '\(key)': \(value.jsonString) is not \(definition.type.nameWithArticle).")
                continue
            }
            known[key] = value
        }
        self.foreignOverrides = foreign
        self.warnings = warnings
        self.engine = FlagEngine(
            registry: registry,
            setup: FlagSetup(
                buildConfiguration: configuration, overrideStore: InMemoryFlagStore(known),
                logger: Logger(label: "flags", factory: { _ in SwiftLogNoOpLogHandler() })))
    }

    /// Reads the override file with the core's reader of the format (``FlagOverridesDocument``),
    /// the one the debug menu's import uses.
    private static func readOverrides(at path: String) throws(ToolingError) -> [String: FlagValue] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolingError(.invalidInput, "\(path): the override file cannot be read.")
        }
        do {
            return try FlagOverridesDocument.values(fromJSON: data)
        } catch {
            if error.isSyntax, let line = error.line {
                let column = error.column.map { " (column \($0))" } ?? ""
                throw ToolingError(
                    .invalidInput,
                    "\(path):\(line): the override file is not valid JSON: \(error.reason)\(column). Fix or delete it.")
            }
            throw ToolingError(.invalidInput, "\(path): the override file cannot be used: \(error.reason).")
        }
    }

    // MARK: - Reading

    /// The flags matching a search text (in key, display name, description or owner, any
    /// letter case) and a phase, in manifest order.
    public func rows(matching search: String? = nil, phase: Int? = nil) -> [FlagRow] {
        let overrides = engine.overrides
        return zip(engine.registry.definitions, engine.allDetails()).compactMap { definition, details in
            if let phase, definition.phase != phase { return nil }
            if let search, !search.isEmpty {
                let haystack = [definition.key, definition.displayName, definition.description, definition.owner ?? ""]
                guard haystack.contains(where: { $0.localizedCaseInsensitiveContains(search) }) else { return nil }
            }
            return FlagRow(definition: definition, details: details, isOverridden: overrides[definition.key] != nil)
        }
    }

    /// One flag's row.
    ///
    /// - Throws: ``ToolingError`` (failed) when the manifest has no such flag.
    public func row(forKey key: String) throws(ToolingError) -> FlagRow {
        guard let definition = engine.registry.definition(forKey: key) else { throw unknownFlag(key) }
        return FlagRow(
            definition: definition, details: engine.details(forKey: key),
            isOverridden: engine.overrides[key] != nil)
    }

    // MARK: - Writing

    /// Sets an override from command-line text, read as launch arguments are
    /// (``LaunchArgumentOverrides/value(from:as:)``): `YES`/`NO`, `true`/`false`, `1`/`0`,
    /// `on`/`off` for Boolean flags, numbers and text as written, JSON for objects. Writes the file.
    public func setOverride(key: String, text: String) throws(ToolingError) -> FlagRow {
        guard let definition = engine.registry.definition(forKey: key) else { throw unknownFlag(key) }
        guard let value = LaunchArgumentOverrides.value(from: text, as: definition.type) else {
            throw ToolingError(
                .failed,
                "'\(text)' is not a valid \(definition.type) for flag '\(key)'. \(Self.example(for: definition.type))")
        }
        do {
            try engine.setOverride(value, forKey: key)
        } catch {
            throw ToolingError(.failed, error.description)
        }
        try save()
        return try row(forKey: key)
    }

    /// Clears one override and writes the file.
    public func clearOverride(key: String) throws(ToolingError) -> FlagRow {
        guard engine.registry.definition(forKey: key) != nil else { throw unknownFlag(key) }
        let wasSet = engine.storedOverrides[key] != nil
        if wasSet {
            do {
                try engine.setOverride(nil, forKey: key)
            } catch {
                throw ToolingError(.failed, error.description)
            }
            try save()
        }
        return try row(forKey: key)
    }

    /// Clears every override of the manifest's flags and writes the file; returns how many
    /// there were. Overrides of flags the manifest does not know are kept.
    public func removeAllOverrides() throws(ToolingError) -> Int {
        let count = engine.storedOverrides.count
        engine.removeAllOverrides()
        try save()
        return count
    }

    private func save() throws(ToolingError) {
        let values = engine.storedOverrides.merging(foreignOverrides) { known, _ in known }
        do {
            if values.isEmpty, !FileManager.default.fileExists(atPath: overridesURL.path) { return }
            try JSONFileFlagStore(url: overridesURL).save(values)
        } catch {
            throw ToolingError(.invalidInput, error.description)
        }
    }

    private func unknownFlag(_ key: String) -> ToolingError {
        let suggestions = engine.registry.definitions.map(\.key).filter {
            $0.contains(key) || key.contains($0) || Self.editDistance($0, key) <= 2
        }
        var message = "There is no flag '\(key)' in the manifest."
        if !suggestions.isEmpty { message += " Did you mean \(suggestions.prefix(3).map { "'\($0)'" }.joined(separator: ", "))?" }
        return ToolingError(.failed, message)
    }

    private static func example(for type: FlagValueType) -> String {
        switch type {
        case .boolean: "Use true or false (also YES/NO, 1/0, on/off)."
        case .integer: "Use a whole number such as 20."
        case .double: "Use a number such as 0.5."
        case .string: "Use any text."
        case .object: "Use JSON such as '{\"attempts\":3}'."
        }
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
