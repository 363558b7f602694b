public import FeatureFlags
public import FlagEvaluation
import Foundation
public import Tracing

/// Records flag evaluations as OpenTelemetry `feature_flag.evaluation` events on the span that
/// is active where the flag was read.
///
/// As a hook of a ``FlagEventRecorder`` it records every exposure (the first read of a flag's
/// remote value by a unit, on the thread and in the task that read it):
///
/// ```swift
/// let reporter = FlagEvaluationSpanReporter(setID: "production")
/// let recorder = FlagEventRecorder(.init(source: source, hooks: [reporter]))
/// ```
///
/// A server that evaluates per request, outside the recorder, records what it served itself:
///
/// ```swift
/// let result = evaluator.evaluate(
///     flag: "new-checkout", type: .boolean, default: false, context: context, now: Date(), reporter: reporter)
/// // or, for values read from a per-request snapshot:
/// reporter.record(snapshot.details(.newCheckout), contextID: user.id)
/// ```
///
/// The span is the one the tracer says is active for the task-local `ServiceContext.current`
/// (`Tracer.activeSpan(identifiedBy:)`; swift-otel's tracer and `InMemoryTracer` answer it).
/// With no current context, no active span or a span that is not recording, nothing is
/// recorded and the `record` methods return `false`: an evaluation outside a traced operation
/// costs a task-local read.
public struct FlagEvaluationSpanReporter: FlagEventHook {
    /// Written as `feature_flag.provider.name` on every event.
    public var providerName: String
    /// Written as `feature_flag.set.id` on events that do not carry their own.
    public var setID: String?
    /// The tracer to ask for the active span; `nil` for the one `InstrumentationSystem` has
    /// (bootstrapped, or bound with `withTracer`) at the time of each evaluation.
    private let tracer: (any Tracer)?

    /// - Parameters:
    ///   - providerName: The `feature_flag.provider.name` of every event.
    ///   - setID: The `feature_flag.set.id` of events without one (an environment's name).
    ///   - tracer: The tracer whose active span receives the events; by default the
    ///     `InstrumentationSystem`'s.
    public init(providerName: String = "swift-feature-flags", setID: String? = nil, tracer: (any Tracer)? = nil) {
        self.providerName = providerName
        self.setID = setID
        self.tracer = tracer
    }

    // MARK: - FlagEventHook

    public func didExpose(_ exposure: FlagExposure) {
        record(FlagEvaluationEvent(exposure))
    }

    // MARK: - Recording

    /// Adds `event` to the active span, with this reporter's provider name and, when the event
    /// has none, its set. Returns whether a recording span took it.
    @discardableResult
    public func record(_ event: FlagEvaluationEvent) -> Bool {
        guard let context = ServiceContext.current else { return false }
        guard let span = (tracer ?? InstrumentationSystem.tracer).activeSpan(identifiedBy: context), span.isRecording
        else { return false }
        span.addFlagEvaluation(completed(event))
        return true
    }

    /// Records a flag's explanation (from a manager or a per-request snapshot) served to the unit
    /// `contextID`. A sensitive flag's value is left out.
    @discardableResult
    public func record(_ details: FlagEvaluationDetails, contextID: String?, version: String? = nil) -> Bool {
        record(FlagEvaluationEvent(details, contextID: contextID, version: version))
    }

    /// Records an evaluator's result for `context`.
    @discardableResult
    public func record(_ result: EvaluationResult, context: EvaluationContext) -> Bool {
        record(FlagEvaluationEvent(result, context: context))
    }

    /// The event with this reporter's provider name and default set.
    func completed(_ event: FlagEvaluationEvent) -> FlagEvaluationEvent {
        var event = event
        event.providerName = providerName
        if event.setID == nil { event.setID = setID }
        return event
    }
}

extension Span {
    /// Adds a `feature_flag.evaluation` event to this span.
    ///
    /// ```swift
    /// try await withSpan("checkout") { span in
    ///     let details = snapshot.details(.newCheckout)
    ///     span.addFlagEvaluation(FlagEvaluationEvent(details, contextID: user.id))
    /// }
    /// ```
    public func addFlagEvaluation(_ event: FlagEvaluationEvent) {
        addEvent(event.spanEvent)
    }
}

extension FlagEvaluator {
    /// Evaluates `flag` for `context` and records the result on the active span through
    /// `reporter`: ``evaluate(flag:type:default:context:now:)`` for a server that wants each
    /// evaluation it served in its traces.
    public func evaluate(
        flag key: String, type: EvaluationType, default defaultValue: JSONValue,
        context: EvaluationContext = EvaluationContext(), now: Date, reporter: FlagEvaluationSpanReporter
    ) -> EvaluationResult {
        let result = evaluate(flag: key, type: type, default: defaultValue, context: context, now: now)
        reporter.record(FlagEvaluationEvent(result, context: context, time: now))
        return result
    }
}
