import FlagEvaluation
import FlagServerModel
import Foundation
import NIOCore

/// The JSON OFREP answers with: one evaluation entry, and the bulk document. `package` so that the
/// benchmark server can pre-encode the same bytes for its fixed-body baseline route.
package enum OFREPBodies {
    /// One OFREP evaluation entry: a value with reason and variant, a code-default entry (no
    /// value) for a flag that is off or has nothing to serve, or an error entry.
    static func entry(
        _ key: String, type: FlagType, context: JSONValue, evaluator: FlagEvaluator, now: Date
    ) -> JSONValue {
        entry(key, type: type, context: EvaluationContext(json: context), evaluator: evaluator, now: now)
    }

    static func entry(
        _ key: String, type: FlagType, context: EvaluationContext, evaluator: FlagEvaluator, now: Date
    ) -> JSONValue {
        let result = evaluator.evaluate(flag: key, type: type.evaluationType, default: .null, context: context, now: now)
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

    /// The body of a single evaluation of `key` (`nil` if the environment has no such flag), and
    /// whether it is an error entry: the entry encoded at compile time, or the targeted flag
    /// evaluated for `context`.
    package static func single(
        _ key: String, context: @autoclosure () -> JSONValue, in environment: CompiledEnvironment, now: Date
    ) -> (body: ByteBuffer, isError: Bool)? {
        if let encoded = environment.encodedEntry(key) {
            return (ByteBuffer(bytes: environment.bulkBytes[encoded.range]), encoded.isError)
        }
        guard let type = environment.types[key] else { return nil }
        let entry = entry(key, type: type, context: context(), evaluator: environment.evaluator, now: now)
        return (ByteBuffer(string: entry.serialized()), entry["errorCode"] != nil)
    }

    /// The bulk-evaluation body: every flag, the revision, and where to listen for changes. The
    /// entries of untargeted flags are copied as encoded at compile time; only targeted flags
    /// are evaluated.
    package static func bulk(context: JSONValue, in environment: CompiledEnvironment, now: Date) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(environment.bulkBytes.count + 256)
        var evaluationContext: EvaluationContext?
        for piece in environment.bulkPieces {
            switch piece {
            case .bytes(let range):
                buffer.writeBytes(environment.bulkBytes[range])
            case .evaluate(let key, let type):
                let shared = evaluationContext ?? EvaluationContext(json: context)
                evaluationContext = shared
                let result = entry(key, type: type, context: shared, evaluator: environment.evaluator, now: now)
                buffer.writeString(result.serialized())
            }
        }
        return buffer
    }
}
