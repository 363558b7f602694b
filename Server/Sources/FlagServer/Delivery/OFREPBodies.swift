import FlagEvaluation
import Foundation

/// The JSON OFREP answers with: one evaluation entry, and the bulk document. `package` so that the
/// benchmark server can pre-encode the same bytes for its fixed-body baseline route.
package enum OFREPBodies {
    /// One OFREP evaluation entry: a value with reason and variant, a code-default entry (no
    /// value) for a flag that is off or has nothing to serve, or an error entry.
    static func entry(
        _ key: String, type: FlagType, context: JSONValue, in environment: CompiledEnvironment, now: Date
    ) -> JSONValue {
        let result = environment.evaluator.evaluate(
            flag: key, type: type.evaluationType, default: .null, context: EvaluationContext(json: context), now: now)
        var entry: [String: JSONValue] = ["key": .string(key)]
        if let code = result.errorCode {
            entry["errorCode"] = .string(code.rawValue)
            entry["errorDetails"] = .string(result.errorMessage ?? code.rawValue)
        } else {
            entry["reason"] = .string(result.reason.rawValue)
            if result.variant != nil, !result.value.isNull {
                entry["value"] = result.value
                entry["variant"] = result.variant.map(JSONValue.string)
            }
        }
        if !result.metadata.isEmpty { entry["metadata"] = .object(result.metadata) }
        return .object(entry)
    }

    /// The body of a single evaluation of `key` (`nil` if the environment has no such flag).
    package static func single(_ key: String, context: JSONValue, in environment: CompiledEnvironment, now: Date) -> Data? {
        guard let type = environment.types[key] else { return nil }
        return Data(entry(key, type: type, context: context, in: environment, now: now).serialized().utf8)
    }

    /// The bulk-evaluation body: every flag, the revision, and where to listen for changes.
    package static func bulk(context: JSONValue, in environment: CompiledEnvironment, now: Date) -> Data {
        let flags = environment.sortedKeys.compactMap { key in
            environment.types[key].map { entry(key, type: $0, context: context, in: environment, now: now) }
        }
        let body: JSONValue = [
            "flags": .array(flags),
            "metadata": ["version": .string(String(environment.revision)), "environment": .string(environment.key)],
            "eventStreams": [
                ["type": "sse", "endpoint": ["requestUri": "/ofrep/v1/events"], "inactivityDelaySec": 120]
            ],
        ]
        return Data(body.serialized().utf8)
    }
}
