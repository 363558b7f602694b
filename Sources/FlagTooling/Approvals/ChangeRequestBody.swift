import FeatureFlags
import Foundation

/// The body of `POST` and `PUT …/change-requests`, built from `flags change-request` options.
public enum ChangeRequestBody {
    /// `{"flag": flag, "patch"|"settings": …}`: `change` is `{"patch": …}` or `{"settings": …}`,
    /// as ``ScheduledChangeRequest/change(enabled:defaultVariant:settingsJSON:)`` gives it.
    public static func flagProposal(_ flag: String, change: FlagValue) -> FlagValue {
        var proposal: [String: FlagValue] = ["flag": .string(flag)]
        if case .object(let fields) = change { proposal.merge(fields) { _, new in new } }
        return .object(proposal)
    }

    /// `{"change": proposal, "reason": …, "applyAt"?: …}`.
    public static func body(proposal: FlagValue, reason: String, applyAt: Date?) -> FlagValue {
        var object: [String: FlagValue] = ["change": proposal, "reason": .string(reason)]
        if let applyAt { object["applyAt"] = .string(DurationText.text(applyAt)) }
        return .object(object)
    }
}
