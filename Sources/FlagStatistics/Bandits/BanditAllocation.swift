/// What the bandit allocator gives for its data: each arm's posterior, its chance of being best,
/// its expected loss and its next share of units, and the stopping rule's decision.
public struct BanditAllocation: Sendable, Hashable, Codable {
    /// The data this allocation was computed from, as given.
    public var inputs: BanditData
    /// The arms, in the order of ``BanditData/arms``.
    public var arms: [BanditArmAllocation]
    /// What the weights add up to: ``BanditAllocator/weightTotal`` (10,000, basis points).
    public var weightTotal: Int
    /// The arm with the highest chance of being best (the first in order on a tie).
    public var leader: String
    /// Whether to keep collecting, and if not why.
    public var decision: BanditDecision
}

/// One arm's posterior and next share.
public struct BanditArmAllocation: Sendable, Hashable, Codable {
    /// The arm's name.
    public var name: String
    /// The posterior Beta(α, β) of the arm's conversion rate: the prior's α plus conversions,
    /// β plus units that did not convert.
    public var posterior: BetaPrior
    /// The posterior mean α/(α + β).
    public var posteriorMean: Double
    /// P(this arm's rate is the highest): ∫ f(x) Π F_other(x) dx, by quadrature.
    public var probabilityToBeBest: Double
    /// E[max over arms of the rate − this arm's rate]: what choosing this arm costs on average,
    /// in conversion-rate units.
    public var expectedLoss: Double
    /// The next share of units, the minimum share plus its part of the rest by
    /// ``probabilityToBeBest``: weight / weightTotal.
    public var share: Double
    /// The next share in basis points (of ``BanditAllocation/weightTotal``): the weight of the
    /// arm's bucket in a `fractional` rule. The weights add up to exactly the total.
    public var weight: Int
}

/// What the stopping rule says.
public struct BanditDecision: Sendable, Hashable, Codable {
    /// Keep collecting, or stop and why.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// No condition to stop holds: keep re-weighting.
        case keepCollecting
        /// The leading arm's chance of being best reached ``BanditStoppingRule/probabilityToBeBest``.
        case winner
        /// The leading arm's expected loss fell to ``BanditStoppingRule/expectedLossThreshold``
        /// while no arm is a winner: the arms left differ by too little to matter, and the
        /// leading arm is the cheap choice.
        case negligibleLoss
        /// ``BanditStoppingRule/maximumDurationSeconds`` have passed.
        case maximumDuration
    }

    /// The outcome.
    public var outcome: Outcome
    /// The arm to serve when stopping (the leader); `nil` while collecting.
    public var arm: String?
    /// Why, in words (which condition held, or which one is still missing).
    public var reason: String
}
