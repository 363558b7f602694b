/// CUPED (Deng, Xu, Kohavi & Walker 2013): y′ = y − θ(x − x̄) with θ = Cov(x, y)/Var(x) over all
/// units, computed from the arms' sufficient statistics.
enum CUPED {
    struct AdjustedArm {
        var mean: Double
        var variance: Double
    }

    /// The adjusted mean and within-arm variance of each arm (all carry their covariate, each
    /// checked to come from one set of units).
    static func adjust(
        _ arms: [ArmStatistics], conversion: Bool, at path: String
    ) throws(StatisticsError) -> (adjustment: CUPEDAdjustment, arms: [AdjustedArm]) {
        let n = arms.map(\.units).reduce(0, +)
        let sumX = arms.map { $0.covariateSum! }.reduce(0, +)
        let sumY = arms.map(\.sum).reduce(0, +)
        let sumXX = arms.map { $0.covariateSumOfSquares! }.reduce(0, +)
        let sumXY = arms.map { $0.sumOfProducts! }.reduce(0, +)
        let covariance = (sumXY - sumX * sumY / n) / (n - 1)
        let varianceX = ArmStatistics.centeredSquares(squares: sumXX, sum: sumX, units: n).value / (n - 1)
        let theta = varianceX > 0 ? covariance / varianceX : 0
        guard theta.isFinite else {
            throw StatisticsError("\(path).arms", "the covariate's variance is too small to adjust by (θ is not finite)")
        }
        let meanX = sumX / n
        var raw = 0.0
        var adjustedTotal = 0.0
        let adjusted = arms.map { arm in
            let units = arm.units
            let armMeanX = arm.covariateSum! / units
            let varianceY = arm.variance(conversion: conversion)
            let armVarianceX = max(
                0, ArmStatistics.centeredSquares(squares: arm.covariateSumOfSquares!, sum: arm.covariateSum!, units: units).value / (units - 1))
            let armCovariance = (arm.sumOfProducts! - arm.covariateSum! * arm.sum / units) / (units - 1)
            let variance = max(0, varianceY - 2 * theta * armCovariance + theta * theta * armVarianceX)
            raw += varianceY / units
            adjustedTotal += variance / units
            return AdjustedArm(mean: arm.mean - theta * (armMeanX - meanX), variance: variance)
        }
        return (
            CUPEDAdjustment(theta: theta, covariateMean: meanX, varianceReduction: raw > 0 ? 1 - adjustedTotal / raw : 0),
            adjusted
        )
    }
}
