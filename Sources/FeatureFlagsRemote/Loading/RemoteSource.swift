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
/// Sent to OFREP servers only, with the app context's fields (`appVersion`, `appBuild`,
/// `osName`, `osVersion`, `deviceClass`, `locale`) beside the attributes, so that rules can
/// target them (`{"sem_ver": [{"var": "appVersion"}, ">=", "4.2.0"]}`) without any code. An
/// attribute of the same name wins over the app context's value. It is never logged, and the
/// on-disk cache stores only a hash of the targeting key and attributes, to tell whether the
/// cache was made for the same context: the app context is left out of it, so the values cached
/// before an app or OS update still serve until the first refresh after it.
public struct RemoteEvaluationContext: Sendable, Hashable {
    /// The stable identifier percentage rollouts hash (a user or installation id).
    public var targetingKey: String?
    /// Further attributes for targeting rules (`plan`, `country`…); they win over the app
    /// context's fields of the same name.
    public var attributes: [String: FlagValue]
    /// The app and device facts sent beside the attributes; `nil` sends none. Exclude fields
    /// with `.current.excluding(.locale)`.
    public var appContext: AppContext?

    /// A context for `targetingKey` (anonymous when `nil`) with `attributes`, sending the process's app context unless told otherwise.
    public init(targetingKey: String? = nil, attributes: [String: FlagValue] = [:], appContext: AppContext? = .current) {
        self.targetingKey = targetingKey
        self.attributes = attributes
        self.appContext = appContext
    }

    /// The context as OFREP's JSON object: the app context's fields, the attributes over them,
    /// and `targetingKey`.
    public var jsonObject: FlagValue {
        var members = appContext?.attributes ?? [:]
        members.merge(attributes) { _, explicit in explicit }
        if let targetingKey { members["targetingKey"] = .string(targetingKey) }
        return .object(members)
    }

    /// The part of the context that says who flags are evaluated for (targeting key and
    /// attributes, without the app context): what the cache is keyed by.
    var identity: FlagValue {
        RemoteEvaluationContext(targetingKey: targetingKey, attributes: attributes, appContext: nil).jsonObject
    }
}
