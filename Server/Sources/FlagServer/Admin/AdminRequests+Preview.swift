import FlagEvaluation
import FlagServerModel

extension AdminRequests {
    /// `POST …/flags/{key}/preview`: settings to try (each field defaults to the current one),
    /// optionally a percentage rollout instead of `targeting`, and the targeting keys to evaluate.
    struct Preview: Decodable {
        var enabled: Bool?
        var defaultVariant: String?
        var targeting: JSONValue?
        /// Percentages by variant, adding up to 100: replaces `targeting` with a rollout.
        var percentages: [String: Int]?
        /// At most 1000; by default `user-1` … `user-100`.
        var targetingKeys: [String]?
    }
}

extension AdminRequests {
    /// `POST /environments/{env}/evaluate`: the evaluation context (targeting key and attributes).
    struct Evaluate: Decodable {
        var context: JSONValue?
    }
}

extension AdminRequests {
    /// `POST /environments/{env}/flags/{key}/copy`: the environment to copy the settings from.
    struct Copy: Decodable {
        var from: String
        var reason: String?
    }
}

extension AdminResponses {
    /// `POST /environments/{env}/evaluate`: every flag's result, with the steps that led to it.
    struct Evaluation: Encodable {
        var environment: String
        var revision: Int
        var flags: [FlagExplainer.Explanation]
    }

    /// `POST …/flags/{key}/validate`: the problems saving the settings would have.
    struct Validation: Encodable {
        var problems: [ValidationError]
    }
}
