@testable import FlagServer
@testable import FlagServerModel

extension RolloutGuardrail {
    /// The guardrail on counts of independent sessions (`trials` sessions, each its own unit,
    /// `events` of them with one event): how the tests that model sessions rather than users
    /// state their evidence.
    func evaluate(
        old: (trials: Int, events: Int), new: (trials: Int, events: Int), oldVariant: String, newVariant: String, alpha: Double
    ) -> GuardrailFinding? {
        evaluate(
            old: .independentSessions(sessions: old.trials, events: old.events),
            new: .independentSessions(sessions: new.trials, events: new.events), oldVariant: oldVariant, newVariant: newVariant,
            alpha: alpha)
    }
}
