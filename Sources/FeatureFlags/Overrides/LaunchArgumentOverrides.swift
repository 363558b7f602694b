internal import JSONSyntax

/// Reads overrides from launch arguments, so UI tests and Xcode schemes can set flags without
/// code: `-ff.chat_view_redesign YES -ff.page_size 20`.
///
/// ```swift
/// // In a UI test:
/// app.launchArguments += ["-ff.chat_view_redesign", "YES"]
/// ```
///
/// Booleans accept `YES`/`NO`, `true`/`false`, `1`/`0` and `on`/`off`; numbers are read as JSON
/// numbers (so `nan`, `inf`, `1e400` and integers beyond 64 bits are refused); strings are taken
/// as written; `object` flags take JSON. A value must also pass the flag's range and validation.
/// Launch-argument overrides apply for this launch only and are never written to the override
/// store. Messages about a sensitive flag show its value as `<REDACTED>`.
public enum LaunchArgumentOverrides {
    /// The prefix that marks a flag argument.
    public static let prefix = "-ff."

    /// The overrides found in `arguments`, checked against `registry`, and a message for every
    /// argument that could not be used (unknown flag, missing or malformed value).
    public static func parse(
        _ arguments: [String], registry: FlagRegistry, prefix: String = LaunchArgumentOverrides.prefix
    ) -> (overrides: [String: FlagValue], problems: [String]) {
        var overrides: [String: FlagValue] = [:]
        var problems: [String] = []
        var position = arguments.startIndex
        while position < arguments.endIndex {
            let argument = arguments[position]
            position += 1
            // Split by Unicode scalars, not Characters: a value starting with a combining mark
            // would otherwise merge with the `=` (or a key with the prefix's `.`) and be lost.
            let scalars = argument.unicodeScalars
            guard scalars.starts(with: prefix.unicodeScalars) else { continue }
            let afterPrefix = scalars.dropFirst(prefix.unicodeScalars.count)
            var key = String(String.UnicodeScalarView(afterPrefix))
            var text: String?
            if let equals = afterPrefix.firstIndex(of: "=") {
                text = String(String.UnicodeScalarView(afterPrefix[afterPrefix.index(after: equals)...]))
                key = String(String.UnicodeScalarView(afterPrefix[..<equals]))
            } else if position < arguments.endIndex, !arguments[position].unicodeScalars.starts(with: prefix.unicodeScalars) {
                text = arguments[position]
                position += 1
            }
            guard let definition = registry.definition(forKey: key) else {
                problems.append("Launch argument '\(argument)' names no known flag; it was ignored.")
                continue
            }
            guard let text else {
                problems.append("Launch argument '\(argument)' has no value; it was ignored.")
                continue
            }
            let written = argument.unicodeScalars.contains("=") ? argument : "\(argument) \(text)"
            let shownArgument = definition.isSensitive ? "\(prefix)\(key) <REDACTED>" : written
            let value: FlagValue
            switch parsedValue(from: text, as: definition.type) {
            case .success(let parsed):
                value = parsed
            case .failure(let problem):
                let detail = problem.map { " (\(definition.isSensitive ? "<REDACTED>" : $0))" } ?? ""
                problems.append(
                    "Launch argument '\(shownArgument)' is not a valid \(definition.type) for '\(key)'\(detail); it was ignored.")
                continue
            }
            switch definition.accepting(value) {
            case .success(let accepted):
                overrides[key] = accepted
            case .failure(let rejection):
                problems.append("Launch argument '\(shownArgument)' does not fit '\(key)': \(rejection); it was ignored.")
            }
            continue
        }
        return (overrides, problems)
    }

    /// Parses one argument value as a value of `type`, or `nil` when it is not one.
    public static func value(from text: String, as type: FlagValueType) -> FlagValue? {
        try? parsedValue(from: text, as: type).get()
    }

    /// One argument value as a value of `type`, or what is wrong with it (`nil` when there is
    /// nothing to add to "not a valid …").
    static func parsedValue(from text: String, as type: FlagValueType) -> Result<FlagValue, ArgumentProblem> {
        switch type {
        case .boolean:
            switch text.lowercased() {
            case "yes", "true", "1", "on": return .success(.bool(true))
            case "no", "false", "0", "off": return .success(.bool(false))
            default: return .failure(ArgumentProblem(nil))
            }
        case .integer, .double:
            // The JSON number grammar, with its limits: no `nan` or `inf`, integers within 64
            // bits, doubles finite and not rounded to zero.
            do {
                let value = try FlagValue(json: text)
                guard let number = value.normalized(to: type) else { return .failure(ArgumentProblem(nil)) }
                return .success(number)
            } catch {
                // Say why a number was refused (out of range); other text is simply no number.
                let reason = (error as? JSONSyntaxError)?.reason
                let isNumber = reason.map { $0.hasPrefix("integer ") || $0.hasPrefix("number ") } ?? false
                return .failure(ArgumentProblem(isNumber ? reason : nil))
            }
        case .string:
            return .success(.string(text))
        case .object:
            do {
                let value = try FlagValue(json: text)
                guard value.valueType == .object else { return .failure(ArgumentProblem(nil)) }
                return .success(value)
            } catch {
                return .failure(ArgumentProblem("\(error)"))
            }
        }
    }

    /// Why an argument value could not be read, when there is more to say than its type.
    struct ArgumentProblem: Error {
        let detail: String?
        init(_ detail: String?) { self.detail = detail }
        func map(_ transform: (String) -> String) -> String? { detail.map(transform) }
    }
}
