/// The most work one evaluation of a rule may do before it stops.
///
/// Rules come from outside (flag files, an admin API), and a short one can ask for a lot: a
/// 122-byte `reduce` that doubles an array with `merge` on each step wants gigabytes. Evaluation
/// counts its steps (one per rule node evaluated) and the elements it builds (array elements and
/// string bytes it creates); past either limit it stops, and ``FlagEvaluator`` serves the caller's
/// default with error code `GENERAL` and a message naming the limit.
///
/// The defaults leave ordinary rules (a few dozen steps) a thousandfold headroom and cap what a
/// hostile rule costs at a few milliseconds and about a megabyte:
///
/// ```swift
/// let evaluator = FlagEvaluator(definitions: definitions, limits: EvaluationLimits(maximumSteps: 1_000_000))
/// ```
public struct EvaluationLimits: Sendable, Hashable {
    /// Rule nodes one evaluation may evaluate. Default 100,000.
    public var maximumSteps: Int
    /// Array elements plus string bytes one evaluation may build. Default 100,000.
    public var maximumAllocatedElements: Int

    /// Limits of `maximumSteps` steps and `maximumAllocatedElements` built elements per evaluation.
    public init(maximumSteps: Int = 100_000, maximumAllocatedElements: Int = 100_000) {
        self.maximumSteps = maximumSteps
        self.maximumAllocatedElements = maximumAllocatedElements
    }

    /// 100,000 steps and 100,000 built elements.
    public static let `default` = EvaluationLimits()
}

/// An evaluation stopped because it reached one of its ``EvaluationLimits``.
public struct EvaluationLimitExceeded: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which limit was reached.
    public enum Limit: String, Sendable, Hashable {
        /// ``EvaluationLimits/maximumSteps``.
        case steps
        /// ``EvaluationLimits/maximumAllocatedElements``.
        case allocatedElements
    }

    /// Which limit was reached.
    public let limit: Limit
    /// The limit's value.
    public let maximum: Int

    /// The error for `limit`, whose value was `maximum`.
    public init(limit: Limit, maximum: Int) {
        self.limit = limit
        self.maximum = maximum
    }

    /// Which budget the rule exceeded, with its value and the setting that holds it.
    public var description: String {
        switch limit {
        case .steps:
            "evaluation budget exceeded: the rule took more than \(maximum) steps (EvaluationLimits.maximumSteps)"
        case .allocatedElements:
            "evaluation budget exceeded: the rule built more than \(maximum) array elements and string bytes (EvaluationLimits.maximumAllocatedElements)"
        }
    }
}
