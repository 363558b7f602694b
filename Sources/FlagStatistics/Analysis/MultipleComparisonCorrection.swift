/// How an analysis adjusts its p-values for the number of comparisons it makes (every metric
/// times every arm besides the control). The DocC article "Many arms and percentile metrics"
/// gives each method with its source and assumptions.
public enum MultipleComparisonCorrection: String, Sendable, Hashable, Codable, CaseIterable {
    /// Benjamini–Hochberg: controls the false discovery rate (the expected share of wrong
    /// findings among those reported) for independent or positively dependent p-values. The
    /// default: it asks least as comparisons grow.
    case bh
    /// Holm's step-down procedure: controls the family-wise error rate (the chance of any wrong
    /// finding) under any dependence, so it applies to the always-valid sequential p-values too.
    case holm
    /// Dunnett's many-to-one procedure: controls the family-wise error rate of several arms
    /// against one shared control using the correlation the shared control creates, so it asks
    /// less than Holm. It holds for the fixed-horizon t statistics read at one planned look; the
    /// always-valid sequential p-values have no such joint distribution, so an analysis with
    /// Dunnett adjusts its sequential p-values by Holm (``ExperimentAnalysis/sequentialCorrection``).
    case dunnett

    /// The method's name as reports print it.
    public var name: String {
        switch self {
        case .bh: "Benjamini–Hochberg"
        case .holm: "Holm"
        case .dunnett: "Dunnett"
        }
    }

    /// Whether the correction applies to the always-valid sequential p-values (Dunnett does not).
    public var appliesToSequentialTest: Bool { self != .dunnett }
}
