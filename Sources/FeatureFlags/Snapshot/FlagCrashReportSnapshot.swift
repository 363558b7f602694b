/// The flags whose value is not their code default (or came from the server), as short text for
/// a crash reporter's custom keys: computed when values are published, so reading it is a copy
/// and nothing is worked out on the way to a crash.
///
/// Each flag shows the server's variant name when its value has one; otherwise its value as
/// JSON, cut to ``maximumTextLength``, or ``redacted`` for a sensitive flag. A sensitive
/// flag's value never appears.
///
/// Crash reporters keep custom keys until they are changed, so apply the changes as they come,
/// and clear a key when its flag goes back to its default:
///
/// ```swift
/// protocol CrashReporter: Sendable { func setCustomValue(_ value: String, forKey key: String) }
///
/// func reportFlags(of flags: FeatureFlagManager<AppFlag>, to crashReporter: some CrashReporter) async {
///     var reported = FlagCrashReportSnapshot.empty
///     for await report in flags.crashReportUpdates() {
///         for (key, text) in report.changes(since: reported) {
///             crashReporter.setCustomValue(text ?? "", forKey: "flag." + key)
///         }
///         reported = report
///     }
/// }
/// ```
public struct FlagCrashReportSnapshot: Sendable, Hashable {
    /// What a sensitive flag without a variant name shows.
    public static let redacted = "<REDACTED>"
    /// The longest text shown for a value, in UTF-8 bytes (crash reporters bound their custom
    /// values); a longer value is cut at a character boundary and ends with `…`.
    public static let maximumTextLength = 128
    /// No flag away from its default.
    public static let empty = FlagCrashReportSnapshot(texts: [:])

    /// The shown text of each flag away from its default, by key.
    public let texts: [String: String]

    /// A snapshot of `texts`, by flag key.
    public init(texts: [String: String]) {
        self.texts = texts
    }

    /// What changed since `previous`: the new text of each flag whose text differs, and `nil`
    /// for each flag that went back to its default (its custom key should be cleared).
    public func changes(since previous: FlagCrashReportSnapshot) -> [String: String?] {
        var changes: [String: String?] = [:]
        for (key, text) in texts where previous.texts[key] != text { changes[key] = .some(text) }
        for key in previous.texts.keys where texts[key] == nil { changes[key] = .some(nil) }
        return changes
    }

    /// The non-default flags of a resolved table; empty before configuration (every value is
    /// its code default then).
    init(table: ResolvedFlagTable) {
        guard table.inputs.configuration != nil else {
            self = .empty
            return
        }
        var texts: [String: String] = [:]
        for index in 0..<table.count {
            let definition = table.registry.definitions[index]
            guard table.layers[index] == .remote || table.values[index] != definition.defaultValue else { continue }
            if let variant = table.variant(at: index) {
                texts[definition.key] = Self.cut(variant)
            } else {
                texts[definition.key] = definition.isSensitive ? Self.redacted : Self.cut(table.values[index].jsonString)
            }
        }
        self.texts = texts
    }

    /// `text` cut to ``maximumTextLength`` UTF-8 bytes, `…` included, at a character boundary.
    static func cut(_ text: String) -> String {
        guard text.utf8.count > maximumTextLength else { return text }
        let ellipsis = "…"
        var kept = ""
        var length = ellipsis.utf8.count
        for character in text {
            let size = character.utf8.count
            guard length + size <= maximumTextLength else { break }
            kept.append(character)
            length += size
        }
        return kept + ellipsis
    }
}
