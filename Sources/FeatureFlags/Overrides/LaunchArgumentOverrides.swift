/// Reads overrides from launch arguments, so UI tests and Xcode schemes can set flags without
/// code: `-ff.chat_view_redesign YES -ff.page_size 20`.
///
/// ```swift
/// // In a UI test:
/// app.launchArguments += ["-ff.chat_view_redesign", "YES"]
/// ```
///
/// Booleans accept `YES`/`NO`, `true`/`false`, `1`/`0` and `on`/`off`; numbers and strings are
/// taken as written; `object` flags take JSON. Launch-argument overrides apply for this launch
/// only and are never written to the override store.
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
            guard argument.hasPrefix(prefix) else { continue }
            var key = String(argument.dropFirst(prefix.count))
            var text: String?
            if let equals = key.firstIndex(of: "=") {
                text = String(key[key.index(after: equals)...])
                key = String(key[..<equals])
            } else if position < arguments.endIndex, !arguments[position].hasPrefix(prefix) {
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
            guard let value = value(from: text, as: definition.type) else {
                problems.append(
                    "Launch argument '\(argument) \(text)' is not a valid \(definition.type) for '\(key)'; it was ignored.")
                continue
            }
            overrides[key] = value
        }
        return (overrides, problems)
    }

    /// Parses one argument value as a value of `type`, or `nil` when it is not one.
    public static func value(from text: String, as type: FlagValueType) -> FlagValue? {
        switch type {
        case .boolean:
            switch text.lowercased() {
            case "yes", "true", "1", "on": return .bool(true)
            case "no", "false", "0", "off": return .bool(false)
            default: return nil
            }
        case .integer:
            return Int(text).map(FlagValue.int)
        case .double:
            return Double(text).map(FlagValue.double)
        case .string:
            return .string(text)
        case .object:
            guard let value = try? FlagValue(json: text), value.valueType == .object else { return nil }
            return value
        }
    }
}
