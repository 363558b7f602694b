import FlagServerAPI
import FlagServerClient
import Foundation

/// Durations and times as people type them on the command line: `90s`, `30m`, `2h`, `1d12h`
/// (``DurationGrammar``, the grammar the server's console reads too); a time as ISO 8601
/// (`2026-12-01T09:00:00Z`, `2026-12-01T10:00:00+01:00`) or relative to now (`+2h`, `+1d`).
public enum DurationText {
    /// The most seconds a duration may be: 10 years, beyond any the server accepts.
    static let maximumSeconds = DurationGrammar.maximumSeconds

    /// The seconds of `text`: one or more `<number><unit>` with the units `s`, `m` (or `min`),
    /// `h`, `d` (`1h30m` is 5400).
    ///
    /// - Throws: ``ToolingError`` (invalid input) naming `option` when `text` is not such a
    ///   duration or is zero.
    public static func seconds(_ text: String, option: String) throws(ToolingError) -> Int {
        let seconds: Int
        do {
            seconds = try DurationGrammar.seconds(text, maximum: maximumSeconds)
        } catch .tooLong {
            throw ToolingError(.invalidInput, "\(option): \"\(text)\" is longer than 10 years.")
        } catch {
            throw ToolingError(
                .invalidInput, "\(option): \"\(text)\" is not a duration; write it as a number with a unit s, m, h or d, such as 90s, 30m, 2h or 1d12h.")
        }
        guard seconds > 0 else {
            throw ToolingError(.invalidInput, "\(option): \"\(text)\" is zero; a duration is at least 1s.")
        }
        return seconds
    }

    /// `seconds` as the shortest text ``seconds(_:option:)`` reads back: `1h30m`, `2d`, `45s`.
    public static func text(seconds: Int) -> String {
        DurationGrammar.text(seconds: seconds)
    }

    /// The time `text` names: ISO 8601 with a time zone, or `+<duration>` from `now`.
    ///
    /// - Throws: ``ToolingError`` (invalid input) naming `option` when `text` is neither.
    public static func time(_ text: String, now: Date, option: String) throws(ToolingError) -> Date {
        if text.hasPrefix("+") {
            return now.addingTimeInterval(TimeInterval(try seconds(String(text.dropFirst()), option: option)))
        }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        throw ToolingError(
            .invalidInput,
            "\(option): \"\(text)\" is not a time; give ISO 8601 with a time zone, such as 2026-12-01T09:00:00Z, or a time from now, such as +2h or +1d.")
    }

    /// `date` as the server writes times: ISO 8601 in UTC, to the second.
    public static func text(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
