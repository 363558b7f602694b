/// What went wrong in an evaluation, in OpenFeature's vocabulary.
public enum EvaluationErrorCode: String, Sendable, Hashable, CaseIterable {
    /// No flag has the requested key.
    case flagNotFound = "FLAG_NOT_FOUND"
    /// The flag's values are not of the requested type.
    case typeMismatch = "TYPE_MISMATCH"
    /// The flag's targeting rule could not be compiled (for example a `$ref` to a missing
    /// evaluator), or a request could not be read.
    case parseError = "PARSE_ERROR"
    /// Any other problem, such as a rule choosing a variant the flag does not have.
    case general = "GENERAL"
}
