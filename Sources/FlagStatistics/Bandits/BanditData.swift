/// What the bandit allocator reads: each arm's units and conversions on one conversion metric,
/// the prior, the minimum share every arm keeps and the stopping rule. Its JSON form is what
/// `flags stats bandit` takes.
///
/// ```swift
/// let data = BanditData(
///     arms: [BanditArm(name: "off", units: 5000, conversions: 410), BanditArm(name: "on", units: 5021, conversions: 468)],
///     minimumShare: 0.05, stopping: BanditStoppingRule(expectedLossThreshold: 0.0005))
/// let allocation = try BanditAllocator.allocate(data)
/// allocation.arms.map(\.weight)  // [713, 9287]: basis points adding up to 10,000
/// ```
public struct BanditData: Sendable, Hashable, Codable {
    /// The arms, in the order their weights are written (the order of a `fractional` rule's buckets).
    public var arms: [BanditArm]
    /// The prior every arm's conversion rate starts from; Beta(1, 1) (uniform) when absent.
    public var prior: BetaPrior?
    /// The share of units every arm keeps whatever its chance of being best, from 0 to 1/arms,
    /// in whole basis points (0.0001); ``BanditAllocator/defaultMinimumShare`` (1 %) when absent.
    public var minimumShare: Double?
    /// When to stop; without it the decision is always to keep collecting.
    public var stopping: BanditStoppingRule?
    /// How long the bandit has run, in seconds, for the stopping rule's maximum duration.
    public var elapsedSeconds: Double?

    /// Data of `arms`; each setting left `nil` takes the default its member documents.
    public init(
        arms: [BanditArm], prior: BetaPrior? = nil, minimumShare: Double? = nil, stopping: BanditStoppingRule? = nil,
        elapsedSeconds: Double? = nil
    ) {
        self.arms = arms
        self.prior = prior
        self.minimumShare = minimumShare
        self.stopping = stopping
        self.elapsedSeconds = elapsedSeconds
    }
}

/// One arm of a bandit: the units assigned to it and how many of them converted.
public struct BanditArm: Sendable, Hashable, Codable {
    /// The arm's name (its variant), unique among the arms.
    public var name: String
    /// The units the arm was served to, from 0 to ``BanditAllocator/maximumUnits``.
    public var units: Double
    /// The units that converted, from 0 to `units` (fractional counts are taken as they are,
    /// for callers that discount old data).
    public var conversions: Double

    /// An arm `name` with `conversions` of its `units` converted.
    public init(name: String, units: Double, conversions: Double) {
        self.name = name
        self.units = units
        self.conversions = conversions
    }
}

/// A Beta(α, β) prior on a conversion rate: α − 1 conversions and β − 1 non-conversions seen
/// before the data, roughly.
public struct BetaPrior: Sendable, Hashable, Codable {
    /// α, from ``BanditAllocator/priorRange``.
    public var alpha: Double
    /// β, from ``BanditAllocator/priorRange``.
    public var beta: Double

    /// Beta(`alpha`, `beta`).
    public init(alpha: Double, beta: Double) {
        self.alpha = alpha
        self.beta = beta
    }

    /// Beta(1, 1): every rate equally likely, the prior of Chapelle & Li (2011).
    public static let uniform = BetaPrior(alpha: 1, beta: 1)
}

/// When a bandit stops: the rule of Scott (2015) with expected loss for the value remaining.
/// Once every arm has ``minimumUnitsPerArm`` units, it stops with a winner when the leading
/// arm's chance of being best reaches ``probabilityToBeBest``, or with the leading arm as a
/// choice that costs little when its expected loss falls to ``expectedLossThreshold``; and in
/// any case once ``maximumDurationSeconds`` have passed.
public struct BanditStoppingRule: Sendable, Hashable, Codable {
    /// The expected loss (in conversion-rate units: 0.001 is 0.1 percentage point) below which
    /// choosing the leading arm costs too little to keep exploring; from 0 to 1.
    public var expectedLossThreshold: Double
    /// The leading arm's chance of being best that declares it the winner; 0.95 when absent,
    /// from 0.5 to 1 (1 leaves winners to the expected loss alone).
    public var probabilityToBeBest: Double?
    /// The units every arm needs before the rule may stop on the data;
    /// ``BanditAllocator/defaultMinimumUnitsPerArm`` (100) when absent.
    public var minimumUnitsPerArm: Double?
    /// The longest the bandit runs, in seconds; no limit when absent.
    public var maximumDurationSeconds: Double?

    /// A rule stopping at `expectedLossThreshold`; each setting left `nil` takes the default its member documents.
    public init(
        expectedLossThreshold: Double, probabilityToBeBest: Double? = nil, minimumUnitsPerArm: Double? = nil,
        maximumDurationSeconds: Double? = nil
    ) {
        self.expectedLossThreshold = expectedLossThreshold
        self.probabilityToBeBest = probabilityToBeBest
        self.minimumUnitsPerArm = minimumUnitsPerArm
        self.maximumDurationSeconds = maximumDurationSeconds
    }
}
