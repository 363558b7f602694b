/// What a reader found in the shared file.
public enum SharedFlagsStatus: Sendable, Hashable, CustomStringConvertible {
    /// The app's publication, read.
    case published
    /// No file: the app has not published yet (or publishes elsewhere). Values are code defaults.
    case missing
    /// A file in a newer layout than this build reads (an app updated before its extension ran
    /// the new code). Values are code defaults.
    case newerFormat(found: Int, supported: Int)
    /// A file that could not be read, and why. Values are code defaults.
    case unreadable(String)

    /// The status in words, saying when values are code defaults and why.
    public var description: String {
        switch self {
        case .published: "published"
        case .missing: "missing: the app has not published its flags yet; using code defaults"
        case .newerFormat(let found, let supported):
            "newer format: the shared flags file has format \(found), this build reads \(supported); using code defaults"
        case .unreadable(let reason): "unreadable: the shared flags file was not used because \(reason); using code defaults"
        }
    }
}
