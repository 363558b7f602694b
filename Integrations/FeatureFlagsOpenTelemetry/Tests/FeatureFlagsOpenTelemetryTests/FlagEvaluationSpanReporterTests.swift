import FeatureFlags
import FeatureFlagsOpenTelemetry
import FlagEvaluation
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// Exposures and server evaluations arrive on the active span as `feature_flag.evaluation`
/// events with the semantic conventions' attributes.
struct FlagEvaluationSpanReporterTests {
    enum AppFlag: String, CaseIterable, FeatureFlagKey {
        case newCheckout = "new_checkout"
        case darkMode = "dark_mode"

        var metadata: FlagMetadata<AppFlag> { .init(rawValue) }

        static let typedFlags: [any FlagDefinitionConvertible] = [AppConfig.promoCode, AppConfig.pageSize]
    }

    enum AppConfig {
        static let promoCode = TypedFlag<String>("promo_code", default: "none", sensitive: true)
        static let pageSize = TypedFlag<Int>("page_size", default: 20)
    }

    static let source = FlagEventSource(appVersion: "4.2", buildConfiguration: .release, platform: "TestOS")
    static let readTime = Date(timeIntervalSince1970: 1_900_000_000.5)

    /// Flags recording exposures into a recorder whose only hook is `reporter`, served `values`
    /// for `unit` at revision 41.
    static func flags(
        reporter: FlagEvaluationSpanReporter, values: [String: RemoteFlagValue], unit: String?
    ) -> FeatureFlagManager<AppFlag> {
        let recorder = FlagEventRecorder(.init(source: source, hooks: [reporter], now: { readTime }))
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: recorder))
        flags.engine.receiveRemoteValues(RemoteFlagValues(values, source: "ofrep", unit: unit, revision: "41"))
        return flags
    }

    static func events(named name: String = FlagEvaluationEvent.name, in tracer: InMemoryTracer) -> [SpanEvent] {
        tracer.finishedSpans.flatMap(\.events).filter { $0.name == name }
    }

    @Test func anExposureInsideASpanIsAnEvaluationEventWithTheConventionsAttributes() throws {
        let tracer = InMemoryTracer()
        let reporter = FlagEvaluationSpanReporter(providerName: "acme-flags", setID: "production", tracer: tracer)
        let flags = Self.flags(
            reporter: reporter,
            values: ["new_checkout": RemoteFlagValue(true, variant: "treatment", reason: .split)], unit: "user-42")

        tracer.withSpan("GET /checkout") { _ in
            _ = flags.isEnabled(.newCheckout)
            _ = flags.isEnabled(.newCheckout)  // a repeat read is not a second exposure
            _ = flags.isEnabled(.darkMode)  // a code default is no exposure
        }

        let events = Self.events(in: tracer)
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(
            event.attributes
                == [
                    "feature_flag.key": "new_checkout",
                    "feature_flag.result.variant": "treatment",
                    "feature_flag.result.value": true,
                    "feature_flag.result.reason": "split",
                    "feature_flag.provider.name": "acme-flags",
                    "feature_flag.context.id": "user-42",
                    "feature_flag.set.id": "production",
                    "feature_flag.version": "41",
                ])
        #expect(event.nanosecondsSinceEpoch == 1_900_000_000_500_000_000)
    }

    @Test func aSensitiveFlagsEventNamesItsVariantAndNeverItsValue() throws {
        let tracer = InMemoryTracer()
        let reporter = FlagEvaluationSpanReporter(tracer: tracer)
        let flags = Self.flags(
            reporter: reporter,
            values: [
                "promo_code": RemoteFlagValue(.string("SECRET-2026"), variant: "spring", reason: .targetingMatch),
                "page_size": RemoteFlagValue(.int(50), variant: "large", reason: .targetingMatch),
            ], unit: "user-7")

        tracer.withSpan("GET /home") { _ in
            _ = flags.value(AppConfig.promoCode)
            _ = flags.value(AppConfig.pageSize)
        }

        let events = Self.events(in: tracer)
        let promo = try #require(events.first { $0.attributes.get("feature_flag.key") == "promo_code" })
        #expect(promo.attributes.get("feature_flag.result.variant") == "spring")
        #expect(promo.attributes.get("feature_flag.result.reason") == "targeting_match")
        #expect(promo.attributes.get("feature_flag.result.value") == nil)
        var everything = ""
        promo.attributes.forEach { name, value in everything += "\(name)=\(value.toSpanAttribute()) " }
        #expect(!everything.contains("SECRET"))
        // A non-sensitive integer keeps its type.
        let page = try #require(events.first { $0.attributes.get("feature_flag.key") == "page_size" })
        #expect(page.attributes.get("feature_flag.result.value") == .int64(50))
    }

    @Test func withoutAnActiveSpanNothingIsRecorded() {
        let tracer = InMemoryTracer()
        let reporter = FlagEvaluationSpanReporter(tracer: tracer)
        let flags = Self.flags(
            reporter: reporter, values: ["new_checkout": RemoteFlagValue(true, variant: "on", reason: .split)],
            unit: "user-1")
        _ = flags.isEnabled(.newCheckout)  // outside any span
        #expect(tracer.finishedSpans.isEmpty)
        #expect(tracer.activeSpans.isEmpty)
        #expect(!reporter.record(FlagEvaluationEvent(key: "new_checkout", reason: .static)))

        // A span that ended is no longer recording, even if its context is still current.
        let span = tracer.startSpan("ended")
        span.end()
        let recorded = ServiceContext.withValue(span.context) {
            reporter.record(FlagEvaluationEvent(key: "new_checkout", reason: .static))
        }
        #expect(!recorded)
        #expect(tracer.finishedSpans.flatMap(\.events).isEmpty)
    }

    @Test func theDefaultTracerIsTheInstrumentationSystemsAtTheTimeOfTheRead() throws {
        let tracer = InMemoryTracer()
        let reporter = FlagEvaluationSpanReporter()
        withTracer(tracer) {
            InstrumentationSystem.tracer.withSpan("job") { _ in
                #expect(reporter.record(FlagEvaluationEvent(key: "dark_mode", reason: .default)))
            }
        }
        let event = try #require(Self.events(in: tracer).first)
        #expect(event.attributes.get("feature_flag.result.reason") == "default")
        #expect(event.attributes.get("feature_flag.provider.name") == "swift-feature-flags")
    }

    // MARK: - Servers evaluating per request

    static let definitions = """
        {
          "metadata": {"flagSetId": "checkout-service"},
          "flags": {
            "new-checkout": {
              "state": "ENABLED",
              "variants": {"on": true, "off": false},
              "defaultVariant": "off",
              "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]},
              "metadata": {"version": 12}
            },
            "coupon": {
              "state": "ENABLED",
              "variants": {"spring": "SPRING-SECRET"},
              "defaultVariant": "spring",
              "metadata": {"sensitive": true}
            }
          }
        }
        """

    @Test func aServersEvaluationIsRecordedWithItsContextSetAndVersion() throws {
        let evaluator = FlagEvaluator(
            definitions: try FlagDefinitions.loadStrictly([FlagSource(name: "flags.json", json: Self.definitions)]))
        let tracer = InMemoryTracer()
        let reporter = FlagEvaluationSpanReporter(providerName: "flagd-in-process", tracer: tracer)
        let context = EvaluationContext(targetingKey: "user-9", attributes: ["plan": "pro"])

        let (result, missing, coupon) = tracer.withSpan("POST /orders") { _ in
            (
                evaluator.evaluate(
                    flag: "new-checkout", type: .boolean, default: false, context: context, now: Self.readTime,
                    reporter: reporter),
                evaluator.evaluate(
                    flag: "no-such-flag", type: .boolean, default: false, context: context, now: Self.readTime,
                    reporter: reporter),
                evaluator.evaluate(
                    flag: "coupon", type: .string, default: "", context: context, now: Self.readTime, reporter: reporter)
            )
        }
        #expect(result.value == true)
        #expect(missing.errorCode == .flagNotFound)
        #expect(coupon.value == "SPRING-SECRET")

        let events = Self.events(in: tracer)
        #expect(events.count == 3)
        #expect(
            events.first?.attributes
                == [
                    "feature_flag.key": "new-checkout",
                    "feature_flag.result.variant": "on",
                    "feature_flag.result.value": true,
                    "feature_flag.result.reason": "targeting_match",
                    "feature_flag.provider.name": "flagd-in-process",
                    "feature_flag.context.id": "user-9",
                    "feature_flag.set.id": "checkout-service",
                    "feature_flag.version": "12",
                ])
        let error = try #require(events.dropFirst().first)
        #expect(error.attributes.get("feature_flag.result.reason") == "error")
        #expect(error.attributes.get("error.type") == "flag_not_found")
        #expect(error.attributes.get("feature_flag.error.message") != nil)
        let secret = try #require(events.last)
        #expect(secret.attributes.get("feature_flag.result.variant") == "spring")
        #expect(secret.attributes.get("feature_flag.result.value") == nil)
    }

    @Test func detailsFromAPerRequestSnapshotAreRecordedForTheUnitGiven() throws {
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release))
        let snapshot = flags.snapshot(
            applying: RemoteFlagValues([
                "page_size": RemoteFlagValue(.int(80), variant: "huge", reason: .split),
                "promo_code": RemoteFlagValue(.string("VIP-ONLY"), variant: "vip", reason: .targetingMatch),
            ]))
        let tracer = InMemoryTracer()
        let reporter = FlagEvaluationSpanReporter(tracer: tracer)
        tracer.withSpan("GET /feed") { _ in
            reporter.record(flags.engine.details(forKey: "dark_mode"), contextID: "user-3")
            reporter.record(snapshot.details(.newCheckout), contextID: "user-3")
            let pageSize = FlagEvaluationEvent(
                FlagEvaluationDetails(
                    key: "page_size", value: .int(snapshot.value(AppConfig.pageSize)), variant: "huge", layer: .remote,
                    reason: .split), contextID: "user-3", version: "5")
            reporter.record(pageSize)
            reporter.record(
                FlagEvaluationDetails(
                    key: "promo_code", value: .string(snapshot.value(AppConfig.promoCode)), variant: "vip",
                    layer: .remote, reason: .targetingMatch, isSensitive: true), contextID: "user-3")
            reporter.record(
                FlagEvaluationDetails(
                    key: "layout", value: .object(["columns": 2]), layer: .override, reason: .static),
                contextID: nil)
        }
        let events = Self.events(in: tracer)
        #expect(events.map { $0.attributes.get("feature_flag.key") } == ["dark_mode", "new_checkout", "page_size", "promo_code", "layout"])
        #expect(events[0].attributes.get("feature_flag.result.value") == false)
        #expect(events[0].attributes.get("feature_flag.result.reason") == "default")
        #expect(events[0].attributes.get("feature_flag.context.id") == "user-3")
        #expect(events[2].attributes.get("feature_flag.result.value") == .int64(80))
        #expect(events[2].attributes.get("feature_flag.version") == "5")
        #expect(events[3].attributes.get("feature_flag.result.variant") == "vip")
        #expect(events[3].attributes.get("feature_flag.result.value") == nil)
        // Objects are written as JSON; no unit, no context id.
        #expect(events[4].attributes.get("feature_flag.result.value") == #"{"columns":2}"#)
        #expect(events[4].attributes.get("feature_flag.context.id") == nil)
    }
}
