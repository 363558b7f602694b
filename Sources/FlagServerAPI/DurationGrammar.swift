/// The one way durations are written to the flag server's tools: the `flags` command
/// (`--steps 5:1h`, `--evaluation-interval 5m`, `--at +2h`) and the console's forms
/// (`5 1h, 25 30m, 100`).
///
/// A duration is one or more `<number><unit>` groups, added up: `90s`, `30m`, `30min`, `2h`,
/// `1d12h`, `1h30m`. The units are `s`, `m` or `min`, `h` and `d`, in any letter case; a number
/// has at most 9 digits. Where a caller allows it (the console, whose forms have always taken
/// plain seconds), a number alone is seconds: `90`.
///
/// ```swift
/// let seconds = try DurationGrammar.seconds("1h30m")                    // 5400
/// let plain = try DurationGrammar.seconds("90", allowingPlainSeconds: true) // 90
/// DurationGrammar.text(seconds: 5400)                                   // "1h30m"
/// ```
public enum DurationGrammar {
    /// Why text is not a duration a caller accepts.
    public enum Failure: Error, Sendable, Hashable {
        /// The text is not written in the grammar.
        case notADuration
        /// The text is a duration, longer than the caller's `maximum` seconds.
        case tooLong
    }

    /// The most seconds any duration may be: 10 years, beyond any the server accepts. It bounds
    /// the arithmetic, whatever a caller asks for.
    public static let maximumSeconds = 10 * 366 * 86_400

    /// The most digits one number of a duration may have.
    public static let maximumDigits = 9

    /// The units and their seconds, longest name first where one name starts another.
    static let units: [(name: String, seconds: Int)] = [("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]

    /// The seconds `text` stands for; zero is a duration (`0s`), which callers that need a
    /// positive one refuse themselves.
    ///
    /// - Parameters:
    ///   - allowingPlainSeconds: whether a number alone (`90`) is read as seconds.
    ///   - maximum: the most seconds accepted (at most ``maximumSeconds``).
    /// - Throws: ``Failure/notADuration`` for text outside the grammar (empty, a sign, an
    ///   unknown unit, a number without a unit, more than 9 digits); ``Failure/tooLong`` when the
    ///   sum passes `maximum`.
    public static func seconds(
        _ text: some StringProtocol, allowingPlainSeconds: Bool = false, maximum: Int = maximumSeconds
    ) throws(Failure) -> Int {
        let limit = min(maximum, maximumSeconds)
        let scalars = Array(text.unicodeScalars)
        if allowingPlainSeconds, !scalars.isEmpty, scalars.allSatisfy(isDigit) {
            guard scalars.count <= maximumDigits, let value = Int(String(text)) else { throw .notADuration }
            guard value <= limit else { throw .tooLong }
            return value
        }
        var total = 0
        var index = 0
        guard !scalars.isEmpty else { throw .notADuration }
        while index < scalars.count {
            let digitsStart = index
            while index < scalars.count, isDigit(scalars[index]) { index += 1 }
            let digitCount = index - digitsStart
            guard digitCount > 0, digitCount <= maximumDigits else { throw .notADuration }
            let unitStart = index
            while index < scalars.count, scalars[index].properties.isAlphabetic, scalars[index].isASCII { index += 1 }
            let number = Int(String(String.UnicodeScalarView(scalars[digitsStart..<unitStart])))!
            let name = String(String.UnicodeScalarView(scalars[unitStart..<index])).lowercased()
            guard let unit = units.first(where: { $0.name == name }) else { throw .notADuration }
            total += number * unit.seconds
            guard total <= limit else { throw .tooLong }
        }
        return total
    }

    /// `seconds` as the shortest text ``seconds(_:allowingPlainSeconds:maximum:)`` reads back:
    /// `1h30m`, `2d`, `45s`; `0s` for zero or less.
    public static func text(seconds: Int) -> String {
        guard seconds > 0 else { return "0s" }
        var rest = seconds
        var text = ""
        for (unit, name) in [(86_400, "d"), (3600, "h"), (60, "m"), (1, "s")] where rest >= unit {
            text += "\(rest / unit)\(name)"
            rest %= unit
        }
        return text
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar >= "0" && scalar <= "9"
    }
}
