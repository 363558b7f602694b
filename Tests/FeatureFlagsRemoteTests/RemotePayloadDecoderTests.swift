import FeatureFlags
import Foundation
import Logging
import Testing

@testable import FeatureFlagsRemote

struct RemotePayloadDecoderTests {
    private func decode(_ text: String, _ format: RemotePayloadFormat = .appConfig) throws -> DecodedRemotePayload {
        try RemotePayloadDecoder.decode(Data(text.utf8), format: format, registry: testRegistry)
    }

    @Test func appConfigReadsBothSectionsAndTheTTL() throws {
        let decoded = try decode(Payloads.appConfig(ttl: 90))
        #expect(decoded.ttl == 90)
        #expect(decoded.values.count == 3)
        #expect(decoded.ignored.isEmpty)
    }

    @Test func numbersAreNormalisedToTheFlagsType() throws {
        let decoded = try decode(#"{"schemaVersion": 1, "config": {"cues.page_size": 40.0, "analytics.flush_interval_seconds": 5}}"#)
        #expect(decoded.values["cues.page_size"]?.value == .int(40))
        #expect(decoded.values["analytics.flush_interval_seconds"]?.value == .double(5))
    }

    @Test(arguments: [
        ("[]", RemoteLoadError.Code.schemaMismatch),
        (#"{"flags": {}}"#, .schemaMismatch),
        (#"{"schemaVersion": 1}"#, .schemaMismatch),
        (#"{"schemaVersion": 1, "flags": []}"#, .schemaMismatch),
        (#"{"schemaVersion": 1, "flags": {}, "ttlSeconds": "soon"}"#, .schemaMismatch),
        (#"{"schemaVersion": 7, "flags": {}}"#, .unsupportedSchemaVersion),
        ("<html>", .invalidJSON),
        ("", .invalidJSON),
    ])
    func malformedAppConfigIsRejectedWhole(text: String, code: RemoteLoadError.Code) {
        let error = #expect(throws: RemoteLoadError.self) { try decode(text) }
        #expect(error?.code == code)
    }

    @Test func ofrepDefersValuelessEntriesToCodeDefaults() throws {
        let decoded = try decode(Payloads.ofrep, .ofrep)
        #expect(decoded.deferredToDefault == ["analytics.session_replay_enabled"])
        #expect(decoded.values.count == 2)
        let error = #expect(throws: RemoteLoadError.self) { try decode(#"{"errorCode": "INVALID_CONTEXT"}"#, .ofrep) }
        #expect(error?.code == .schemaMismatch)
    }

    @Test func errorMessagesNameNoValues() {
        let error = #expect(throws: RemoteLoadError.self) { try decode(#"{"schemaVersion": 1, "flags": "s3cr3t"}"#) }
        #expect(error.map { !$0.description.contains("s3cr3t") } == true)
    }
}

struct RetryTimingTests {
    @Test func backoffDoublesUpToTheCap() {
        let policy = RefreshRetryPolicy(initialDelay: 2, multiplier: 2, maximumDelay: 60, jitter: 0.2, random: { 0 })
        #expect((1...7).map(policy.delay(afterFailures:)) == [2, 4, 8, 16, 32, 60, 60])
        #expect(policy.delay(afterFailures: 1000) == 60)
    }

    @Test func jitterTakesOffAtMostItsShare() {
        let policy = RefreshRetryPolicy(initialDelay: 10, jitter: 0.2, random: { 0.999_999 })
        #expect(policy.delay(afterFailures: 1) > 8)
        #expect(policy.delay(afterFailures: 1) < 8.0001)
    }

    @Test func retryAfterReadsSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        #expect(RetryAfter.date(from: "120", now: now) == now.addingTimeInterval(120))
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == Date(timeIntervalSince1970: 1_445_412_480))
        #expect(RetryAfter.parse("2024-02-07T12:00:00Z", now: now) == Date(timeIntervalSince1970: 1_707_307_200))
        #expect(RetryAfter.parse(RetryAfter.httpDate(now), now: .distantPast) == now)
        #expect(RetryAfter.date(from: "later", now: now) == nil)
    }
}

struct AppEnvironmentTests {
    let environments = AppEnvironments(
        dev: URL(string: "https://dev.example.com")!, stage: URL(string: "https://stage.example.com/api/")!,
        prod: URL(string: "https://example.com")!, bundleIdentifier: "com.example", appVersion: "1.0", build: "7")

    @Test func endpointsResolveAgainstTheChosenEnvironment() {
        #expect(environments.prod.url(for: .appConfig).absoluteString == "https://example.com/rpc/app_config")
        #expect(
            environments.stage.url(for: .ofrepBulkEvaluation).absoluteString
                == "https://stage.example.com/api/ofrep/v1/evaluate/flags")
        #expect(RemoteEndpoint.appConfig.method == .get)
        #expect(RemoteEndpoint.ofrepBulkEvaluation.method == .post)
    }

    @Test func choosingAnEnvironmentIsAValueOperation() {
        #expect(environments.dev.defaultLogLevel == .debug)
        #expect(environments.prod.defaultLogLevel == .notice)
        #expect(environments.prod.userAgent == "com.example/1.0 (7)")
        #expect("\(environments.prod)" == "prod")
    }
}
