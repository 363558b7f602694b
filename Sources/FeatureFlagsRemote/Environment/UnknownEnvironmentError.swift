/// A name that is not one of the app's environments, such as `"staging"` for `stage`.
///
/// The message quotes the name (shortened if it is long) and lists the known names.
public struct UnknownEnvironmentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name asked for.
    public let name: String

    /// The names an environment can have.
    public var knownNames: [String] { AppEnvironment.Name.allCases.map(\.rawValue) }

    /// The error for `name`.
    public init(name: String) {
        self.name = name
    }

    /// The longest part of a name a message quotes, so an oversized setting can't flood a log.
    static let quotedLength = 64

    /// A sentence quoting the name (shortened past 64 characters) and listing the known ones.
    public var description: String {
        let quoted = name.count > Self.quotedLength ? String(name.prefix(Self.quotedLength)) + "…" : name
        return
            "There is no environment named '\(quoted)'. Known environments: \(knownNames.joined(separator: ", "))."
    }
}
