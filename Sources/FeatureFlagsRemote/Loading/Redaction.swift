/// How secrets print: header values, evaluation contexts and request bodies show as this.
let redacted = "<REDACTED>"

extension Dictionary where Key == String {
    /// `[name: <REDACTED>, …]` in name order: the names show, the values never do.
    var redactedDescription: String {
        guard !isEmpty else { return "[:]" }
        return "[" + keys.sorted().map { "\($0): \(redacted)" }.joined(separator: ", ") + "]"
    }

    /// A mirror of the names, every value redacted.
    var redactedMirror: [String: String] {
        Dictionary<String, String>(uniqueKeysWithValues: keys.map { ($0, redacted) })
    }
}
