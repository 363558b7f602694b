/// Swift spellings of flag keys and values.
public enum SwiftNames {
    /// The lowerCamelCase identifier of a key: `chat_view_redesign` → `chatViewRedesign`,
    /// `chat.page_size` → `chatPageSize`. Keywords are escaped with backticks.
    public static func identifier(forKey key: String) -> String {
        let words = key.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
        guard let first = words.first else { return "_" }
        var name = lowercasedFirst(first) + words.dropFirst().map(uppercasedFirst).joined()
        if let initial = name.first, initial.isNumber { name = "_" + name }
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// The identifier without backticks, for comparing with names read from sources.
    public static func bareIdentifier(forKey key: String) -> String {
        identifier(forKey: key).filter { $0 != "`" }
    }

    /// Whether `name` is a plain Swift identifier (letters, digits and underscores, not
    /// starting with a digit).
    public static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.first, !first.isNumber else { return false }
        return name.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }

    /// A Swift string literal.
    public static func stringLiteral(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20: output += "\\u{\(String(scalar.value, radix: 16))}"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    private static func lowercasedFirst(_ word: String) -> String {
        // An all-uppercase word such as "URL" becomes "url".
        if word == word.uppercased() { return word.lowercased() }
        return word.prefix(1).lowercased() + word.dropFirst()
    }

    private static func uppercasedFirst(_ word: String) -> String {
        word.prefix(1).uppercased() + word.dropFirst()
    }

    /// Swift keywords, escaped with backticks when used as names.
    public static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "as", "false", "is", "nil", "self", "super", "throws", "true", "try", "Any", "Self",
    ]
}
