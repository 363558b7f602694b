/// One arm's values of a percentile metric, as an event store read them: every unit's value when
/// the arm has at most ``maximumValues`` units, else the values of a uniform sample of that many.
///
/// The sample is the units with the lowest *sample key*, a fixed 63-bit hash of the unit's key
/// (``ExperimentResultsCounter/sampleKey(of:)``): it does not depend on the unit's arm, value or
/// time, so the units read are a simple random sample of the arm's units, and the same units stay
/// in it from one count to the next unless a unit with a lower key arrives. The quantile's interval
/// is computed from the sample's size, so it covers the sampling as well: a sampled arm has a
/// wider interval than all its units would give, not a biased one.
public struct PercentileSample: Sendable, Hashable, Codable {
    /// The arm's units, all of them (each counts, a unit without events with the value 0).
    public var units: Int
    /// The values read: one per unit, `units` of them or ``maximumValues``.
    public var values: [Double]

    /// The most values read per arm and percentile metric: reading, decoding and sorting this many
    /// takes tens of milliseconds, and the quantile's standard error at this size is already
    /// about a two-hundredth of the spread of the values around it.
    public static let maximumValues = 50_000

    /// - Parameters:
    ///   - units: The arm's units.
    ///   - values: The values read (at most ``maximumValues``).
    public init(units: Int, values: [Double]) {
        self.units = units
        self.values = values
    }

    /// Whether the values are a sample of the arm's units rather than all of them.
    public var isSampled: Bool { values.count < units }
}
