public import FlagEvaluation

/// What a flag does in one environment.
public struct FlagSettings: Sendable, Hashable, Codable {
    /// Off is the kill switch: the flag serves the caller's default (OFREP reason `DISABLED`).
    public var enabled: Bool
    /// The variant served when targeting is absent or matches nothing; `nil` (as flagd allows)
    /// serves the caller's code default then (OFREP reason `DEFAULT` without a value).
    public var defaultVariant: String?
    /// A flagd JSON Logic rule returning a variant name, or `nil`.
    public var targeting: JSONValue?

    /// Settings with `targeting` when given.
    public init(enabled: Bool, defaultVariant: String?, targeting: JSONValue? = nil) {
        self.enabled = enabled
        self.defaultVariant = defaultVariant
        self.targeting = targeting
    }
}
