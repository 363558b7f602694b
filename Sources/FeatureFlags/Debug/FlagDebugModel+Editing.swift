extension FlagDebugModel {
    /// The longest text a value field takes, in UTF-8 bytes.
    public static let maximumInputLength = 64 * 1024

    /// The longest part of typed text an error message quotes.
    static let quotedLength = 64

    /// Parses what was typed into a flag's value field, by the flag's type: `true`/`false` (or
    /// `on`/`off`), a whole number, a number, text, one of the declared choices, or a JSON object
    /// its Swift type can decode.
    ///
    /// ```swift
    /// let value = try menu.value(parsing: "25", forKey: "page_size")   // .int(25)
    /// ```
    ///
    /// - Throws: ``FlagDebugInputError`` quoting the key and the text (`<REDACTED>` for sensitive
    ///   flags) and saying what the field takes.
    public func value(parsing text: String, forKey key: String) throws(FlagDebugInputError) -> FlagValue {
        guard let definition = engine.registry.definition(forKey: key) else {
            throw FlagDebugInputError(key: key, message: "There is no flag '\(key)'.")
        }
        guard text.utf8.count <= Self.maximumInputLength else {
            throw FlagDebugInputError(
                key: key,
                message:
                    "The value for '\(key)' is \(text.utf8.count) bytes long; a field takes at most \(Self.maximumInputLength)."
            )
        }
        let shown = definition.isSensitive ? "<REDACTED>" : "'\(Self.quoted(text))'"
        let trimmed = text.trimmingWhitespace()

        if let choices = choices[key] {
            if let match = choices.first(where: { Self.editText($0) == text || Self.editText($0) == trimmed }) {
                return match
            }
            let listed = definition.isSensitive ? "the declared choices" : choices.map(Self.editText).joined(separator: ", ")
            throw FlagDebugInputError(key: key, message: "'\(key)' takes one of \(listed); \(shown) is not one of them.")
        }

        switch definition.type {
        case .boolean:
            switch trimmed.lowercased() {
            case "true", "on", "yes", "1": return .bool(true)
            case "false", "off", "no", "0": return .bool(false)
            default:
                throw FlagDebugInputError(key: key, message: "'\(key)' takes true or false; \(shown) is neither.")
            }
        case .integer:
            guard let number = Int(trimmed) else {
                throw FlagDebugInputError(
                    key: key, message: "'\(key)' takes a whole number, such as 42; \(shown) is not one.")
            }
            return .int(number)
        case .double:
            // A decimal keypad in a comma locale types "0,5": one comma and no point is a
            // decimal separator.
            let decimal =
                trimmed.contains(".") || trimmed.filter({ $0 == "," }).count != 1
                ? trimmed : String(trimmed.map { $0 == "," ? "." : $0 })
            guard let number = Double(decimal), number.isFinite else {
                throw FlagDebugInputError(
                    key: key, message: "'\(key)' takes a finite number, such as 0.5; \(shown) is not one.")
            }
            return .double(number)
        case .string:
            return .string(text)
        case .object:
            let parsed: FlagValue
            do {
                parsed = try FlagValue(json: text)
            } catch {
                throw FlagDebugInputError(key: key, message: "'\(key)' takes a JSON object: \(error)")
            }
            guard let value = parsed.normalized(to: .object) else {
                throw FlagDebugInputError(key: key, message: "'\(key)' takes a JSON object; \(shown) is not one.")
            }
            if let decoder = definition.decoder, decoder.decode(value) == nil {
                throw FlagDebugInputError(
                    key: key,
                    message:
                        "'\(key)' takes a JSON object with the members of its Swift type, like \(Self.editText(definition.defaultValue)); \(shown) does not decode."
                )
            }
            return value
        }
    }

    /// Parses what was typed (see ``value(parsing:forKey:)``) and sets it as the flag's override.
    ///
    /// - Throws: ``FlagDebugInputError`` when the text does not fit the flag, or the override
    ///   cannot be set (overrides not permitted in this build, for example).
    public func setOverride(parsing text: String, forKey key: String) throws(FlagDebugInputError) {
        let value = try value(parsing: text, forKey: key)
        do throws(FlagOverrideError) {
            try engine.setOverride(value, forKey: key)
        } catch {
            throw FlagDebugInputError(key: key, message: error.description)
        }
    }

    /// Sets (or, with `nil`, clears) the user's preference of a user-togglable flag, as the
    /// app's own settings screen would.
    public func setUserPreference(_ value: FlagValue?, forKey key: String) throws(FlagOverrideError) {
        try engine.setUserPreference(value, forKey: key)
    }

    /// How the menu edits a flag.
    func editor(for definition: FlagDefinition) -> FlagDebugEditor {
        if definition.type == .boolean { return .toggle }
        if let values = choices[definition.key] { return .choice(values) }
        switch definition.type {
        case .boolean: return .toggle
        case .integer: return .integer
        case .double: return .decimal
        case .string: return .text
        case .object: return .json
        }
    }

    /// A value as an editor field shows it, and as ``value(parsing:forKey:)`` reads it back.
    public static func editText(_ value: FlagValue) -> String {
        switch value {
        case .bool(let on): on ? "true" : "false"
        case .string(let text): text
        default: value.jsonString
        }
    }

    /// Keeps the choices that fit the registry; warns about the rest.
    static func checked(_ choices: [FlagChoices], in engine: FlagEngine) -> [String: [FlagValue]] {
        var checked: [String: [FlagValue]] = [:]
        for declared in choices {
            guard let definition = engine.registry.definition(forKey: declared.key) else {
                engine.warn(
                    "Debug menu choices for '\(declared.key)' were left out: there is no such flag.", key: declared.key)
                continue
            }
            var values: [FlagValue] = []
            for value in declared.values {
                if let normalized = value.normalized(to: definition.type) {
                    if !values.contains(normalized) { values.append(normalized) }
                } else {
                    let shown = definition.isSensitive ? "<REDACTED>" : value.jsonString
                    engine.warn(
                        "Debug menu choice \(shown) for '\(declared.key)' was left out: the flag is \(definition.type).",
                        key: declared.key)
                }
            }
            if !values.isEmpty { checked[declared.key] = values }
        }
        return checked
    }

    static func quoted(_ text: String) -> String {
        let line = text.filter { !$0.isNewline }
        return line.count > quotedLength ? String(line.prefix(quotedLength)) + "…" : line
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
