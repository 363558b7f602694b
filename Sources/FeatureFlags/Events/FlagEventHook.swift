/// Receives what a ``FlagEventRecorder`` records, so an app can forward evaluations and events
/// elsewhere: an analytics SDK, OpenTelemetry, a crash reporter's breadcrumbs.
///
/// ```swift
/// struct Breadcrumbs: FlagEventHook {
///     func didExpose(_ exposure: FlagExposure) {
///         crashReporter.leaveBreadcrumb("\(exposure.flag)=\(exposure.variant ?? "?")")
///     }
/// }
/// let recorder = FlagEventRecorder(.init(source: source, hooks: [Breadcrumbs()]))
/// ```
///
/// Why not a hook per check (OpenFeature's before/after on every evaluation): a check is an
/// atomic read that must not turn into a call. Exposures are the evaluations that carry
/// information (the first read of each flag, variant and unit in a session); the counts of the
/// other reads arrive as summaries.
///
/// Every method has an empty default. Hooks run synchronously on the thread that recorded, outside
/// the recorder's lock: ``didExpose(_:)`` on the thread whose read was the first, once per flag,
/// variant and unit; ``didTrack(_:)`` on the caller of `track`; ``didSummarize(_:)`` on the thread
/// that drains the recorder (delivery's). Keep them short and hand slow work off.
public protocol FlagEventHook: Sendable {
    /// A unit was served a flag's remote value, read for the first time in this session.
    func didExpose(_ exposure: FlagExposure)
    /// The app tracked an event.
    func didTrack(_ event: TrackedFlagEvent)
    /// The reads counted since the previous drain, one summary per flag, variant and reason.
    func didSummarize(_ summaries: [FlagEvaluationSummary])
}

extension FlagEventHook {
    /// Does nothing: a hook implements only what it needs.
    public func didExpose(_ exposure: FlagExposure) {}
    /// Does nothing: a hook implements only what it needs.
    public func didTrack(_ event: TrackedFlagEvent) {}
    /// Does nothing: a hook implements only what it needs.
    public func didSummarize(_ summaries: [FlagEvaluationSummary]) {}
}
