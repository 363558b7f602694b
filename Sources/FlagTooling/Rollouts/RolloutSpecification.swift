import FeatureFlags
import FlagServerAPI
import FlagServerClient
import Foundation

/// A rollout's steps and guardrails as `flags rollout` options give them, checked before any
/// request with the server's rules (`Server/Docs/Rollouts.md`).
public enum RolloutSpecification {
    /// One step: the share of units on the new variant and how long it is held.
    public struct Step: Sendable, Hashable {
        /// The share of units on the new variant, in percent (0 < percent ≤ 100).
        public var percent: Double
        /// Seconds the step is held before the next.
        public var durationSeconds: Int

        /// A step serving `percent` % of units for `durationSeconds` seconds.
        public init(percent: Double, durationSeconds: Int) {
            self.percent = percent
            self.durationSeconds = durationSeconds
        }

        /// The step as the admin API takes it: `{"percent", "durationSeconds"}`, a whole percent as an integer.
        public var json: FlagValue {
            let percent: FlagValue = percent == percent.rounded() ? .int(Int(percent)) : .double(percent)
            return .object(["percent": percent, "durationSeconds": .int(durationSeconds)])
        }
    }

    /// The duration sent for the 100 % step when none is written: the server requires one but
    /// never uses it (reaching 100 % finishes the plan).
    public static let finalStepSeconds = RolloutStepRules.finalStepSeconds

    /// The steps of `--steps 1:1h,5:1h,25:2h,50:2h,100`: `percent:duration`, separated by
    /// commas; the last step is 100 and its duration may be left out.
    ///
    /// - Throws: ``ToolingError`` (invalid input) naming `--steps` and the step: not a number,
    ///   more than two decimals, not rising, not ending at 100, a duration outside 1s–90d, more
    ///   than 20 steps.
    public static func steps(_ text: String, option: String = "--steps") throws(ToolingError) -> [Step] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count <= RolloutStepRules.maximumSteps else {
            throw ToolingError(.invalidInput, "\(option): \(parts.count) steps; a plan has at most \(RolloutStepRules.maximumSteps).")
        }
        var steps: [Step] = []
        for (index, part) in parts.enumerated() {
            let fields = part.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let place = "\(option): step \(index + 1) \"\(part)\""
            guard let percent = Double(fields[0]), percent.isFinite,
                fields[0].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
            else {
                throw ToolingError(.invalidInput, "\(place): write each step as percent:duration, such as 5:1h (the last may be just 100).")
            }
            guard percent > 0, percent <= 100 else {
                throw ToolingError(.invalidInput, "\(place): the percent must be above 0 and at most 100.")
            }
            guard RolloutStepRules.hasAtMostTwoDecimals(percent) else {
                throw ToolingError(.invalidInput, "\(place): at most two decimals (0.01 % is the finest share).")
            }
            if let previous = steps.last, percent <= previous.percent {
                throw ToolingError(.invalidInput, "\(place): each step's percent must be above the previous one's (\(format(previous.percent))).")
            }
            let seconds: Int
            if fields.count == 2 {
                seconds = try DurationText.seconds(fields[1], option: place)
                guard seconds <= RolloutStepRules.maximumDurationSeconds else {
                    throw ToolingError(.invalidInput, "\(place): a step is held at most 90 days.")
                }
            } else if percent == 100 {
                seconds = finalStepSeconds
            } else {
                throw ToolingError(.invalidInput, "\(place): give how long the step is held, such as \(fields[0]):1h.")
            }
            steps.append(Step(percent: percent, durationSeconds: seconds))
        }
        guard steps.last?.percent == 100 else {
            throw ToolingError(.invalidInput, "\(option): the last step must be 100, which finishes the plan, such as …,50:2h,100.")
        }
        return steps
    }

    /// The guardrail of `--guardrail metric[:event]:tolerance[:direction]`: `crash_rate:0.005`,
    /// `error_rate:0.01:increase`, `event_rate:checkout_done:0.02:decrease`. The direction that
    /// is harmful defaults to `increase`.
    ///
    /// - Throws: ``ToolingError`` (invalid input) naming `--guardrail` when it is not one.
    public static func guardrail(_ text: String, option: String = "--guardrail") throws(ToolingError) -> FlagValue {
        var fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let usage = "write metric[:event]:tolerance[:direction], such as crash_rate:0.005 or event_rate:checkout_done:0.02:decrease"
        let metric = fields.removeFirst()
        guard ["crash_rate", "error_rate", "event_rate"].contains(metric) else {
            throw ToolingError(.invalidInput, "\(option) \"\(text)\": the metric is crash_rate, error_rate or event_rate; \(usage).")
        }
        var object: [String: FlagValue] = ["metric": .string(metric)]
        if metric == "event_rate" {
            guard let event = fields.first, !event.isEmpty, event.count <= 128, Double(event) == nil else {
                throw ToolingError(.invalidInput, "\(option) \"\(text)\": event_rate needs the tracked event's name; \(usage).")
            }
            object["event"] = .string(fields.removeFirst())
        }
        guard let first = fields.first, let tolerance = Double(first), tolerance >= 0, tolerance <= 1 else {
            throw ToolingError(.invalidInput, "\(option) \"\(text)\": the tolerance is a number from 0 to 1 (0.005 is half a percentage point); \(usage).")
        }
        object["tolerance"] = .double(tolerance)
        fields.removeFirst()
        let direction = fields.first ?? "increase"
        guard fields.count <= 1, ["increase", "decrease"].contains(direction) else {
            throw ToolingError(.invalidInput, "\(option) \"\(text)\": the harmful direction is increase or decrease; \(usage).")
        }
        object["direction"] = .string(direction)
        return .object(object)
    }

    /// `25`, `0.5`, `12.25`.
    public static func format(_ percent: Double) -> String {
        percent == percent.rounded() ? String(Int(percent)) : String(format: "%.2f", percent).replacingOccurrences(of: #"0$"#, with: "", options: .regularExpression)
    }
}
