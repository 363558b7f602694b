/// Which replica acts on rollout plans, where several share one database and a lease alone
/// would leave a plan waiting for a killed replica's lease to expire.
///
/// A ``RolloutExecutor`` with a leadership acts only while ``confirm()`` says this replica leads;
/// it asks before it reads the plans and again before each write to a plan or its flag, so a
/// replica that lost the leadership (its database connection broke, a network partition) stops
/// before another takes over. Since only the leader acts, it takes over a plan whatever lease
/// the plan still names: that lease was left by a replica that no longer leads. The plan's
/// compare-and-set on its version stays the last guard against a write from a replica that lost
/// the leadership between its check and its write.
///
/// PostgreSQL replicas lead through a session advisory lock (``PostgresRolloutLeadership``).
public protocol RolloutLeadership: Sendable {
    /// Whether this replica leads now: takes the leadership if nobody holds it, or checks that the
    /// hold is still in place. `false` when another replica leads or the database cannot say.
    func confirm() async -> Bool

    /// Gives the leadership up (at shutdown), so another replica takes it at its next tick.
    func resign() async
}
