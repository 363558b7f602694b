/// Whether a flag is in service.
public enum FlagState: String, Sendable, Hashable, CaseIterable {
    case enabled = "ENABLED"
    /// Evaluations return the caller's default with reason `DISABLED`.
    case disabled = "DISABLED"
}
