/// A publication whose flags differed from the one before: what a widget's timeline reload
/// waits for.
public struct SharedFlagsChange: Sendable, Hashable, CustomStringConvertible {
    /// The new publication's revision.
    public let revision: UInt64
    /// The keys whose published value, layer or variant changed, appeared or went, sorted.
    public let changedKeys: [String]

    /// A change to `revision` of `changedKeys`.
    public init(revision: UInt64, changedKeys: [String]) {
        self.revision = revision
        self.changedKeys = changedKeys
    }

    /// `revision 5: dark_mode, page_size`: keys only, never values.
    public var description: String {
        "revision \(revision): \(changedKeys.isEmpty ? "(none)" : changedKeys.joined(separator: ", "))"
    }
}
