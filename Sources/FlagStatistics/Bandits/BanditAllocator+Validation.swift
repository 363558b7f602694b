extension BanditAllocator {
    /// The prior and the minimum weight, once every field of `data` is usable.
    static func validate(_ data: BanditData) throws(StatisticsError) -> (prior: BetaPrior, minimumWeight: Int) {
        guard data.arms.count >= 2, data.arms.count <= maximumArms else {
            throw StatisticsError("arms", "2 to \(maximumArms) arms, not \(data.arms.count)")
        }
        var names: Set<String> = []
        for (index, arm) in data.arms.enumerated() {
            let path = "arms[\(index)]"
            guard !arm.name.isEmpty else { throw StatisticsError("\(path).name", "an arm needs a name") }
            guard names.insert(arm.name).inserted else {
                throw StatisticsError("\(path).name", "\"\(arm.name)\" names two arms; each arm's name must be unique")
            }
            guard arm.units.isFinite, arm.units >= 0, arm.units <= maximumUnits else {
                throw StatisticsError("\(path).units", "must be a number from 0 to \(Int(maximumUnits)), not \(arm.units)")
            }
            guard arm.conversions.isFinite, arm.conversions >= 0 else {
                throw StatisticsError("\(path).conversions", "must be a number of at least 0, not \(arm.conversions)")
            }
            guard arm.conversions <= arm.units else {
                throw StatisticsError(
                    "\(path).conversions", "\(arm.conversions) conversions is more than the arm's \(arm.units) units")
            }
        }
        let prior = data.prior ?? .uniform
        for (name, value) in [("alpha", prior.alpha), ("beta", prior.beta)] where !priorRange.contains(value) {
            throw StatisticsError(
                "prior.\(name)", "must be a number from \(priorRange.lowerBound) to \(Int(priorRange.upperBound)), not \(value)")
        }
        let share = data.minimumShare ?? defaultMinimumShare
        let basisPoints = share * Double(weightTotal)
        guard share.isFinite, share >= 0, abs(basisPoints - basisPoints.rounded()) <= 1e-6 else {
            throw StatisticsError("minimumShare", "must be a share from 0 to 1 in whole basis points (0.0001), not \(share)")
        }
        let minimumWeight = Int(basisPoints.rounded())
        guard minimumWeight * data.arms.count <= weightTotal else {
            throw StatisticsError(
                "minimumShare",
                "\(share) for each of \(data.arms.count) arms is more than the whole; at most \(Double(weightTotal / data.arms.count) / Double(weightTotal))")
        }
        if let elapsed = data.elapsedSeconds, !(elapsed.isFinite && elapsed >= 0) {
            throw StatisticsError("elapsedSeconds", "must be a number of seconds of at least 0, not \(elapsed)")
        }
        if let stopping = data.stopping { try validate(stopping, elapsed: data.elapsedSeconds) }
        return (prior, minimumWeight)
    }

    private static func validate(_ rule: BanditStoppingRule, elapsed: Double?) throws(StatisticsError) {
        guard rule.expectedLossThreshold.isFinite, (0...1).contains(rule.expectedLossThreshold) else {
            throw StatisticsError(
                "stopping.expectedLossThreshold", "must be a conversion-rate difference from 0 to 1, not \(rule.expectedLossThreshold)")
        }
        if let probability = rule.probabilityToBeBest, !(0.5...1).contains(probability) {
            throw StatisticsError("stopping.probabilityToBeBest", "must be a probability from 0.5 to 1, not \(probability)")
        }
        if let units = rule.minimumUnitsPerArm, !(0...maximumUnits).contains(units) {
            throw StatisticsError("stopping.minimumUnitsPerArm", "must be a number from 0 to \(Int(maximumUnits)), not \(units)")
        }
        if let duration = rule.maximumDurationSeconds {
            guard duration.isFinite, duration > 0 else {
                throw StatisticsError("stopping.maximumDurationSeconds", "must be a positive number of seconds, not \(duration)")
            }
            guard elapsed != nil else {
                throw StatisticsError("elapsedSeconds", "is needed with stopping.maximumDurationSeconds: how long the bandit has run")
            }
        }
    }

    /// The stopping rule's decision for `data`, whose leading arm is `leader`.
    static func decide(_ data: BanditData, leader: BanditArmAllocation) -> BanditDecision {
        guard let rule = data.stopping else {
            return BanditDecision(outcome: .keepCollecting, arm: nil, reason: "no stopping rule was given")
        }
        let minimumUnits = rule.minimumUnitsPerArm ?? defaultMinimumUnitsPerArm
        let probability = rule.probabilityToBeBest ?? defaultProbabilityToBeBest
        let short = data.arms.first { $0.units < minimumUnits }
        if short == nil {
            if leader.probabilityToBeBest >= probability {
                return BanditDecision(
                    outcome: .winner, arm: leader.name,
                    reason: "\(leader.name)'s chance of being best, \(leader.probabilityToBeBest), reached \(probability)")
            }
            if leader.expectedLoss <= rule.expectedLossThreshold {
                return BanditDecision(
                    outcome: .negligibleLoss, arm: leader.name,
                    reason: "\(leader.name)'s expected loss, \(leader.expectedLoss), is at most \(rule.expectedLossThreshold)")
            }
        }
        if let maximum = rule.maximumDurationSeconds, let elapsed = data.elapsedSeconds, elapsed >= maximum {
            return BanditDecision(
                outcome: .maximumDuration, arm: leader.name, reason: "\(elapsed) s elapsed of at most \(maximum) s")
        }
        if let short {
            return BanditDecision(
                outcome: .keepCollecting, arm: nil,
                reason: "\(short.name) has \(short.units) of the \(minimumUnits) units every arm needs before stopping")
        }
        return BanditDecision(
            outcome: .keepCollecting, arm: nil,
            reason: "\(leader.name) leads with a chance of being best of \(leader.probabilityToBeBest) (below \(probability)) "
                + "and an expected loss of \(leader.expectedLoss) (above \(rule.expectedLossThreshold))")
    }
}
