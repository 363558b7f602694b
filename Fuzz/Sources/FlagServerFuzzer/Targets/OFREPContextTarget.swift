@_spi(Fuzzing) import FlagServer
import FlagEvaluation
import Foundation

/// An OFREP evaluation request body, read as `POST /ofrep/v1/evaluate/flags` reads it.
///
/// Invariants:
/// - the verdict follows the protocol: an empty body is the empty context; a body that is not
///   JSON is `PARSE_ERROR`; a body that is not an object, a `context` that is not an object or a
///   `targetingKey` that is not a string is `INVALID_CONTEXT`, and each message names the body,
///   `context` or `context.targetingKey`;
/// - an accepted context is the body's `context` (or `{}`), and evaluating every flag of the
///   fixture's production environment with it twice gives the same results, each a variant of
///   the flag or an error with a code. (The bulk ETag is a hash of the body's bytes, computed
///   before anything is parsed: nothing of it depends on what this target decodes.)
enum OFREPContextTarget {
    static func run(_ bytes: [UInt8]) async {
        let outcome = await RequestDecoders.evaluationContext(body: bytes)
        // What the protocol says, from the library's own parser.
        let body: JSONValue? = bytes.isEmpty ? .object([:]) : try? JSONValue(parsing: bytes)
        switch outcome {
        case .failure(let refusal):
            Invariant.require(refusal.status == 400, "refused with \(refusal)")
            guard let body else {
                Invariant.require(
                    refusal.code == "PARSE_ERROR" && refusal.message.contains("body"), "a body that is not JSON: \(refusal)")
                return
            }
            guard case .object = body else {
                Invariant.require(
                    refusal.code == "INVALID_CONTEXT" && refusal.message.contains("body"), "a body that is not an object: \(refusal)")
                return
            }
            guard case .object(let members) = body["context"] ?? .object([:]) else {
                Invariant.require(
                    refusal.code == "INVALID_CONTEXT" && refusal.message.contains("\"context\""),
                    "a context that is not an object: \(refusal)")
                return
            }
            Invariant.require(members["targetingKey"].map { $0.stringValue == nil } == true, "a valid context was refused: \(refusal)")
            Invariant.require(
                refusal.code == "INVALID_CONTEXT" && refusal.message.contains("context.targetingKey"),
                "a targeting key that is not a string: \(refusal)")
        case .success(let context):
            guard let body else { Invariant.fail("a body that is not JSON was accepted") }
            Invariant.require(context == (body["context"] ?? .object([:])), "the context is not the body's \"context\"")
            guard case .object(let members) = context else { Invariant.fail("a context that is not an object was accepted") }
            Invariant.require(
                members["targetingKey"].map { $0.stringValue != nil } ?? true, "a targeting key that is not a string was accepted")
            evaluate(context)
        }
    }

    static func evaluate(_ context: JSONValue) {
        let environment = ServerFixture.production
        let evaluationContext = EvaluationContext(json: context)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for key in environment.sortedKeys {
            guard let type = environment.types[key], let evaluationType = EvaluationType(rawValue: type.rawValue) else {
                Invariant.fail("flag \"\(key)\" has no evaluation type")
            }
            let first = environment.evaluator.evaluate(flag: key, type: evaluationType, default: .null, context: evaluationContext, now: now)
            let second = environment.evaluator.evaluate(flag: key, type: evaluationType, default: .null, context: evaluationContext, now: now)
            Invariant.require(first == second, "evaluating \"\(key)\" twice gave \(first) and \(second)")
            if let variant = first.variant {
                Invariant.require(
                    ServerFixture.state.flags[key]?.variants[variant] == first.value,
                    "\"\(key)\" served variant \"\(variant)\" with value \(first.value)")
            } else {
                Invariant.require(first.value == .null, "\"\(key)\" served \(first.value) without a variant")
            }
        }
    }
}
