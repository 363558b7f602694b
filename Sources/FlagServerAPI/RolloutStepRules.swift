/// The rules a rollout plan's steps follow, in one place for the server's admin API, its
/// console and the `flags rollout` command, so that each refuses what the others refuse and
/// says the same limits.
///
/// A plan has 1 to ``maximumSteps`` steps; each step's percent is above the previous one's, at
/// most 100 and has at most two decimals (the split is written in basis points); each step is
/// held 1 second to ``maximumDurationSeconds``; the last step is 100, which finishes the plan.
public enum RolloutStepRules {
    /// The most steps a plan has.
    public static let maximumSteps = 20
    /// The longest a step is held: 90 days, in seconds.
    public static let maximumDurationSeconds = 90 * 86_400
    /// The duration a 100 % step gets when none is written: one is required, but reaching
    /// 100 % finishes the plan, so it is never used.
    public static let finalStepSeconds = 1

    /// Whether `percent` has at most two decimals (0.01 % is the finest share).
    public static func hasAtMostTwoDecimals(_ percent: Double) -> Bool {
        abs(percent * 100 - (percent * 100).rounded()) <= 1e-6
    }

    /// Why `steps` break the rules, one `field: problem` text each, with the admin API's field
    /// names (`steps[2].percent`); empty when they follow them.
    public static func problems(steps: [(percent: Double, durationSeconds: Int)]) -> [String] {
        var problems: [String] = []
        if steps.isEmpty || steps.count > maximumSteps { problems.append("steps: 1 to \(maximumSteps) steps") }
        var previous = 0.0
        for (index, step) in steps.enumerated() {
            if !(step.percent > previous && step.percent <= 100) {
                problems.append("steps[\(index)].percent: must be above the previous step's (\(previous)) and at most 100")
            } else if !hasAtMostTwoDecimals(step.percent) {
                problems.append("steps[\(index)].percent: at most two decimals")
            }
            if step.durationSeconds < 1 || step.durationSeconds > maximumDurationSeconds {
                problems.append("steps[\(index)].durationSeconds: 1 to \(maximumDurationSeconds)")
            }
            previous = max(previous, step.percent)
        }
        if let last = steps.last, last.percent != 100 { problems.append("steps: the last step must be 100 (percent)") }
        return problems
    }
}
