import FlagStatistics

extension ExperimentMetric {
    /// What is wrong with the metric's ``percentile``, naming `percentile`, `cuped` or `cap`.
    ///
    /// A percentile metric compares each arm's p-quantile of its units' values
    /// (``FlagStatistics/QuantileDifference``), so it refuses what that method has no place for:
    /// a conversion metric (values of 0 and 1 are all ties, and a quantile of them says no more
    /// than the rate), CUPED (the quantile's interval has no covariate adjustment) and a cap (a
    /// quantile is already robust to the largest values; capping at a fixed value or a pooled
    /// percentile would only replace the quantiles above the cap by the cap).
    var percentileProblems: [ValidationError] {
        guard let percentile else { return [] }
        var problems: [ValidationError] = []
        if !(percentile > 0 && percentile < 1) {
            problems.append(ValidationError(
                key: key, field: "percentile", problem: "must be between 0 and 1 (exclusive), e.g. 0.9 for the 90th percentile; got \(percentile)"))
        }
        if kind == .conversion {
            problems.append(ValidationError(
                key: key, field: "percentile",
                problem: "a conversion metric's values are 0 or 1 and have no useful percentile; give it to a mean or count metric"))
        }
        if cuped {
            problems.append(ValidationError(
                key: key, field: "cuped", problem: "a percentile metric is compared without CUPED; set cuped to false or remove percentile"))
        }
        if cap != nil {
            problems.append(ValidationError(
                key: key, field: "cap", problem: "a percentile metric is not capped (a quantile is already robust to the largest values); remove cap or percentile"))
        }
        return problems
    }
}
