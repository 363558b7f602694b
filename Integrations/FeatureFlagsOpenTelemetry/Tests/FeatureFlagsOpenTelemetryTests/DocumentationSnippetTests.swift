import FeatureFlags
import FeatureFlagsOpenTelemetry
import FlagEvaluation
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// The snippets of this package's README and DocC catalogue (and of the library's "Forwarding
/// evaluations" article): every line of them is between the markers below, with the names they
/// assume (`evaluator`, `context`, `snapshot`, `user`) defined around them, run under a tracer
/// bound the way an app bootstrapped with swift-otel has one.
struct DocumentationSnippetTests {
    enum AppFlag: String, CaseIterable, FeatureFlagKey {
        case newCheckout = "new-checkout"
        var metadata: FlagMetadata<AppFlag> { .init(rawValue) }
    }

    struct User { var id: String }

    @Test func theSnippetsCompileAndRecordOnTheActiveSpan() throws {
        let evaluator = FlagEvaluator(
            definitions: try FlagDefinitions.loadStrictly([
                FlagSource(
                    name: "flags.json",
                    json: #"{"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#)
            ]))
        let context = EvaluationContext(targetingKey: "user-5")
        let user = User(id: "user-5")
        let tracer = InMemoryTracer()

        let (recorder, flags, result) = withTracer(tracer) {
            InstrumentationSystem.tracer.withSpan("request") { _ in
                let snapshot = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release)).snapshot
                // --- snippet: app
                let recorder = FlagEventRecorder(.init(
                    source: FlagEventSource(appVersion: "4.2", buildConfiguration: .release),
                    hooks: [FlagEvaluationSpanReporter(setID: "production")]))
                let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: recorder))
                // --- snippet: server
                let reporter = FlagEvaluationSpanReporter(setID: "production")
                let result = evaluator.evaluate(
                    flag: "new-checkout", type: .boolean, default: false, context: context, now: Date(), reporter: reporter)
                reporter.record(snapshot.details(.newCheckout), contextID: user.id)
                // --- end
                flags.engine.receiveRemoteValues(
                    RemoteFlagValues(["new-checkout": RemoteFlagValue(true, variant: "on", reason: .split)], unit: "user-5"))
                _ = flags.isEnabled(.newCheckout)
                return (recorder, flags, result)
            }
        }
        _ = (recorder, flags)
        #expect(result.value == true)

        let events = tracer.finishedSpans.flatMap(\.events)
        #expect(events.map(\.name) == Array(repeating: "feature_flag.evaluation", count: 3))
        #expect(events.map { $0.attributes.get("feature_flag.result.reason") } == ["static", "default", "split"])
        #expect(events.allSatisfy { $0.attributes.get("feature_flag.set.id") == "production" })
        #expect(events.allSatisfy { $0.attributes.get("feature_flag.context.id") == "user-5" })
    }
}
