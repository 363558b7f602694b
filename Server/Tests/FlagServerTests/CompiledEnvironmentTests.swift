import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOCore
import Testing

/// What an environment compiles once per revision: untargeted flags' entries encoded once, only
/// targeted flags evaluated per request, and the bulk ETag from the body's bytes.
struct CompiledEnvironmentTests {
    /// Every kind of flag: targeted (with a segment), on without a rule, off (with a rule),
    /// without a default variant, with flagd metadata, an object flag.
    static let state: ServerState = {
        let flags = [
            FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false]),
            FlagRecord(
                key: "banner", type: .string, variants: ["a": "hello", "b": "bye"],
                metadata: FlagRecordMetadata(owner: "growth", custom: ["team": "growth", "weight": 2])),
            FlagRecord(key: "limit", type: .integer, variants: ["small": 10, "large": 1000]),
            FlagRecord(key: "fallback", type: .float, variants: ["x": 0.5]),
            FlagRecord(key: "layout", type: .object, variants: ["grid": ["columns": 3], "list": ["columns": 1]]),
        ]
        var production = EnvironmentState(key: "production", revision: 7, segments: ["beta": ["ends_with": [["var": "email"], "@beta.example"]]])
        production.settings = [
            "checkout": FlagSettings(
                enabled: true, defaultVariant: "off",
                targeting: ["if": [["$ref": "beta"], "on", ["fractional": [["var": "targetingKey"], ["on", 50], ["off", 50]]]]]),
            "banner": FlagSettings(enabled: true, defaultVariant: "b"),
            "limit": FlagSettings(enabled: false, defaultVariant: "large", targeting: ["if": [true, "small", .null]]),
            "fallback": FlagSettings(enabled: true, defaultVariant: nil),
            "layout": FlagSettings(enabled: true, defaultVariant: "grid", targeting: ["if": [["==", [["var": "plan"], "pro"]], "list", .null]]),
        ]
        return ServerState(flags: Dictionary(uniqueKeysWithValues: flags.map { ($0.key, $0) }), environments: ["production": production])
    }()

    /// The bulk body as every flag evaluated for `context` by an evaluator of every flag gives it.
    static func expectedBulk(_ context: JSONValue, now: Date) throws -> JSONValue {
        let evaluator = try #require(CompiledEnvironment.evaluatorOfEveryFlag(state: state, environment: "production", bucketing: .current))
        let flags = state.flags.keys.sorted().map { key in
            OFREPBodies.entry(key, type: state.flags[key]!.type, context: context, evaluator: evaluator, now: now)
        }
        return [
            "flags": .array(flags),
            "metadata": ["version": "7", "environment": "production"],
            "eventStreams": [["type": "sse", "endpoint": ["requestUri": "/ofrep/v1/events"], "inactivityDelaySec": 120]],
        ]
    }

    @Test(arguments: [
        JSONValue.object([:]),
        ["targetingKey": "user-1", "email": "ann@beta.example"],
        ["targetingKey": "user-2", "plan": "pro"],
    ])
    func theBulkBodyIsWhatEvaluatingEveryFlagGives(context: JSONValue) throws {
        let compiled = try #require(CompiledEnvironment(state: Self.state, environment: "production", ttlSeconds: 60))
        let now = Date()
        let body = OFREPBodies.bulk(context: context, in: compiled, now: now)
        let expectedBulk = try Self.expectedBulk(context, now: now)
        #expect(String(buffer: body) == expectedBulk.serialized())
        for key in Self.state.flags.keys {
            let single = try #require(OFREPBodies.single(key, context: context, in: compiled, now: now))
            let expected = try #require(expectedBulk["flags"]?.arrayValue?.first { $0["key"] == .string(key) })
            #expect(String(buffer: single.body) == expected.serialized(), "\(key)")
            #expect(single.isError == false)
        }
    }

    /// Only the flags that are on with a rule are compiled for evaluation; the rest are bytes.
    @Test
    func onlyTargetedFlagsAreCompiled() throws {
        let compiled = try #require(CompiledEnvironment(state: Self.state, environment: "production", ttlSeconds: 60))
        #expect(Set(compiled.encodedEntries.keys) == ["banner", "limit", "fallback"])
        let targeted = compiled.bulkPieces.compactMap { piece -> String? in
            if case .evaluate(let key, _) = piece { key } else { nil }
        }
        #expect(targeted == ["checkout", "layout"])
        let unknown = compiled.evaluator.evaluate(flag: "banner", type: .string, default: .null, context: EvaluationContext(), now: Date())
        #expect(unknown.errorCode == .flagNotFound)
    }

    /// The ETag is the revision and the SHA-256 of the context's canonical form: keys sorted, no
    /// whitespace, integral numbers as integers, so the same context written otherwise matches.
    @Test
    func theBulkETagIsTheRevisionAndADigestOfTheCanonicalContext() throws {
        let compiled = try #require(CompiledEnvironment(state: Self.state, environment: "production", ttlSeconds: 60))
        let context = try JSONValue(parsing: #"{"targetingKey": "u1", "age": 36, "tags": ["a", {"x": 2.5}]}"#)
        // python3 -c 'import hashlib; print(hashlib.sha256(b"<canonical text>").hexdigest()[:24])'
        #expect(compiled.bulkETag(context: context) == #""production-7-0d5f3e9b871eb6d9987c53bc""#)
        let respelled = try JSONValue(parsing: #"{ "tags" : [ "a", { "x": 25e-1 } ], "age": 36.0,"targetingKey":"u1" }"#)
        #expect(compiled.bulkETag(context: respelled) == compiled.bulkETag(context: context))
        let other = try JSONValue(parsing: #"{"targetingKey": "u1", "age": 36.5, "tags": ["a", {"x": 2.5}]}"#)
        #expect(compiled.bulkETag(context: other) != compiled.bulkETag(context: context))
    }
}
