/// The sufficient statistics of one metric in one arm: everything the analysis needs, and what an
/// export carries so that every number can be recomputed.
///
/// For a conversion metric `sum` is the number of converted units and `sumOfSquares` may be left
/// out (each unit's value is 0 or 1, so it equals `sum`). The covariate fields are the metric's
/// own value before exposure, for CUPED; give all three or none.
public struct ArmStatistics: Sendable, Hashable, Codable {
    /// Units (distinct targeting keys) in the arm.
    public var units: Double
    /// Σ y over the arm's units.
    public var sum: Double
    /// Σ y²; `nil` for a conversion metric.
    public var sumOfSquares: Double?
    /// Σ x, the pre-exposure covariate (CUPED).
    public var covariateSum: Double?
    /// Σ x².
    public var covariateSumOfSquares: Double?
    /// Σ x·y.
    public var sumOfProducts: Double?

    public init(
        units: Double, sum: Double, sumOfSquares: Double? = nil, covariateSum: Double? = nil,
        covariateSumOfSquares: Double? = nil, sumOfProducts: Double? = nil
    ) {
        self.units = units
        self.sum = sum
        self.sumOfSquares = sumOfSquares
        self.covariateSum = covariateSum
        self.covariateSumOfSquares = covariateSumOfSquares
        self.sumOfProducts = sumOfProducts
    }

    /// The mean ȳ = Σy / n.
    var mean: Double { sum / units }

    /// The sample variance with n − 1 in the denominator: (Σy² − (Σy)²/n) / (n − 1).
    func variance(conversion: Bool) -> Double {
        let squares = conversion ? (sumOfSquares ?? sum) : (sumOfSquares ?? 0)
        return max(0, (squares - sum * sum / units) / (units - 1))
    }

    /// Whether all three CUPED fields are present.
    var hasCovariate: Bool {
        covariateSum != nil && covariateSumOfSquares != nil && sumOfProducts != nil
    }
}
