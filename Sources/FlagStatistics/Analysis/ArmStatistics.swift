/// The sufficient statistics of one metric in one arm: everything the analysis needs, and what an
/// export carries so that every number can be recomputed.
///
/// For a conversion metric `sum` is the number of converted units and `sumOfSquares` may be left
/// out (each unit's value is 0 or 1, so it equals `sum`). The covariate fields are the metric's
/// own value before exposure, for CUPED; give all three or none.
///
/// Values far from zero (timestamps, prices in small units) lose their variance to rounding in Σy²
/// once the spread is below about 10⁻⁸ of the values: sum y − ``offset`` instead, any value near
/// the others (the first one seen), and give it as `offset`. The analysis refuses a variance that
/// rounding has swallowed rather than report it as certainty.
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
    /// Σ x·y (for a ratio metric, Σ numerator·denominator).
    public var sumOfProducts: Double?
    /// For a ratio metric: Σ of the units' denominators (sessions, orders).
    public var denominatorSum: Double?
    /// For a ratio metric: Σ of the squares of the units' denominators.
    public var denominatorSumOfSquares: Double?
    /// The value subtracted from every y before `sum`, `sumOfSquares` and `sumOfProducts` were
    /// taken (0 when absent): the mean is `offset + sum/units`, the variance does not change.
    public var offset: Double?

    /// An arm's statistics; leave out the fields the metric's kind does not use.
    public init(
        units: Double, sum: Double, sumOfSquares: Double? = nil, covariateSum: Double? = nil,
        covariateSumOfSquares: Double? = nil, sumOfProducts: Double? = nil, offset: Double? = nil,
        denominatorSum: Double? = nil, denominatorSumOfSquares: Double? = nil
    ) {
        self.units = units
        self.sum = sum
        self.sumOfSquares = sumOfSquares
        self.covariateSum = covariateSum
        self.covariateSumOfSquares = covariateSumOfSquares
        self.sumOfProducts = sumOfProducts
        self.offset = offset
        self.denominatorSum = denominatorSum
        self.denominatorSumOfSquares = denominatorSumOfSquares
    }

    /// The mean ȳ = offset + Σy / n.
    var mean: Double { (offset ?? 0) + sum / units }

    /// The sample variance with n − 1 in the denominator: (Σy² − (Σy)²/n) / (n − 1), the square
    /// and the quotient taken with their rounding errors (``centeredSquares(squares:sum:units:)``).
    func variance(conversion: Bool) -> Double {
        let squares = conversion ? (sumOfSquares ?? sum) : (sumOfSquares ?? 0)
        return max(0, Self.centeredSquares(squares: squares, sum: sum, units: units).value / (units - 1))
    }

    /// Whether Σy² − (Σy)²/n is below what the rounding of Σy² itself can hide: the values' spread
    /// is lost and the variance cannot be told from zero.
    func varianceLostToRounding(conversion: Bool) -> Bool {
        let squares = conversion ? (sumOfSquares ?? sum) : (sumOfSquares ?? 0)
        let centered = Self.centeredSquares(squares: squares, sum: sum, units: units)
        // Exactly zero is values that do not vary (sums of equal values are exact), not rounding.
        return centered.value != 0 && centered.value <= centered.noise
    }

    /// S = Σy² − (Σy)²/n with the error of (Σy)² recovered by a fused multiply-add and the error
    /// of the division by a second one (Dekker 1971; Ogita, Rump & Oishi 2005), so that S loses
    /// nothing beyond the rounding already in Σy²; `noise` bounds that rounding: 64 ulps of Σy²
    /// times √n, the error a sum of n rounded squares typically carries (a random walk of n
    /// half-ulp roundings; n capped at 10¹², beyond what anyone sums), with room to spare.
    static func centeredSquares(squares: Double, sum: Double, units: Double) -> (value: Double, noise: Double) {
        let product = sum * sum
        let productError = (sum).multipliedAdding(sum, minus: product)
        let quotient = product / units
        let quotientError = (-quotient).multipliedAdding(units, minus: -product)
        let value = (squares - quotient) - (quotientError + productError) / units
        return (value, 64 * squares.ulp * min(max(1, units), 1e12).squareRoot())
    }

    /// Whether all three CUPED fields are present.
    var hasCovariate: Bool {
        covariateSum != nil && covariateSumOfSquares != nil && sumOfProducts != nil
    }
}

extension Double {
    /// self × factor − subtrahend with one rounding (a fused multiply-add).
    fileprivate func multipliedAdding(_ factor: Double, minus subtrahend: Double) -> Double {
        (-subtrahend).addingProduct(self, factor)
    }
}
