import FeatureFlags
import Foundation

/// Which wire format the loader speaks.
public enum RemoteSource: Sendable, Hashable {
    /// `GET {baseURL}/rpc/app_config`, the app's own backend (see <doc:RemoteConfiguration>).
    case appConfig
    /// OFREP bulk evaluation, `POST {baseURL}/ofrep/v1/evaluate/flags`, for `context`.
    case ofrep(context: RemoteEvaluationContext)

    /// The endpoint requested.
    public var endpoint: RemoteEndpoint {
        switch self {
        case .appConfig: .appConfig
        case .ofrep: .ofrepBulkEvaluation
        }
    }

    /// The payload format.
    public var format: RemotePayloadFormat {
        switch self {
        case .appConfig: .appConfig
        case .ofrep: .ofrep
        }
    }
}

/// An OpenFeature evaluation context: who flags are evaluated for.
///
/// Sent to OFREP servers only. It is never logged, and the on-disk cache stores only a hash of
/// it, to tell whether the cache was made for the same context.
public struct RemoteEvaluationContext: Sendable, Hashable {
    /// The stable identifier percentage rollouts hash (a user or installation id).
    public var targetingKey: String?
    /// Further attributes for targeting rules (`plan`, `country`, `appVersion`…).
    public var attributes: [String: FlagValue]

    public init(targetingKey: String? = nil, attributes: [String: FlagValue] = [:]) {
        self.targetingKey = targetingKey
        self.attributes = attributes
    }

    /// The context as OFREP's JSON object (`targetingKey` beside the attributes).
    public var jsonObject: FlagValue {
        var members = attributes
        if let targetingKey { members["targetingKey"] = .string(targetingKey) }
        return .object(members)
    }
}
