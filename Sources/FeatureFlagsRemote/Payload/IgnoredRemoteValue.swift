import FeatureFlags

/// A value in a payload that was left out, and why. Carries the key, never the value.
public struct IgnoredRemoteValue: Sendable, Hashable, CustomStringConvertible {
    /// Why a value was left out.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The registry has no flag with this key.
        case unknownKey
        /// The value does not have the flag's type.
        case typeMismatch(expected: FlagValueType)
        /// The server reported an evaluation error for the flag (OFREP `errorCode`).
        case evaluationFailed(errorCode: String)
        /// An entry that is not a flag evaluation (no key, or not an object).
        case malformedEntry

        /// Why, in a few words.
        public var description: String {
            switch self {
            case .unknownKey: "unknown key"
            case .typeMismatch(let expected): "expected \(expected)"
            case .evaluationFailed(let code): "evaluation failed (\(code))"
            case .malformedEntry: "malformed entry"
            }
        }
    }

    /// The flag's key (empty for a malformed entry without one).
    public var key: String
    /// Why it was left out.
    public var reason: Reason

    /// A value of `key` left out for `reason`.
    public init(key: String, reason: Reason) {
        self.key = key
        self.reason = reason
    }

    /// `'key': reason`.
    public var description: String { "'\(key)': \(reason)" }
}
