/// Why an evaluation produced its value, in OpenFeature's vocabulary.
public enum EvaluationReason: String, Sendable, Hashable, CaseIterable {
    /// The flag has no targeting; its default variant was served.
    case `static` = "STATIC"
    /// The targeting rule chose the variant.
    case targetingMatch = "TARGETING_MATCH"
    /// The targeting rule returned `null`, or there is no default variant: the flag's default
    /// variant or, without one, the caller's default was served.
    case `default` = "DEFAULT"
    /// The flag is disabled; the caller's default was served.
    case disabled = "DISABLED"
    /// Something went wrong (see the error code); the caller's default was served.
    case error = "ERROR"
}
