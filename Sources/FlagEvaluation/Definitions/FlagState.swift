/// Whether a flag is in service.
public enum FlagState: String, Sendable, Hashable, CaseIterable {
    /// Evaluations follow the flag's targeting and default variant.
    case enabled = "ENABLED"
    /// Evaluations return the caller's default with reason `DISABLED`.
    case disabled = "DISABLED"
}
