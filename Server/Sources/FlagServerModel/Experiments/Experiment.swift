public import FlagStatistics
public import Foundation

/// An experiment on a flag in one environment: which of the flag's variants are arms (one the
/// control), what it hopes to show, which metrics judge it, and its lifecycle
/// draft → running → stopped / shipped (`Server/Docs/Experiments.md`).
///
/// On start it records the flag's ``ExperimentAllocation`` in the environment; while it runs,
/// writes that would change that allocation are refused (``ExperimentGuard``).
public struct Experiment: Sendable, Hashable, Codable {
    /// Where the experiment is in its lifecycle.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Draft (not started), running, stopped, or shipped (one arm made the flag's default).
        case draft, running, stopped, shipped
    }

    /// One step of the experiment's own history (created, updated, started, stopped, shipped).
    public struct HistoryEntry: Sendable, Hashable, Codable {
        /// When the step was taken.
        public var time: Date
        /// Who took it: a token's or console user's name.
        public var actor: String
        /// What was done: `created`, `updated`, `started`, `stopped` or `shipped`.
        public var action: String
        /// The note given with the step, if any.
        public var note: String?

        /// A history entry of `action` by `actor` at `time`.
        public init(time: Date, actor: String, action: String, note: String? = nil) {
            self.time = time
            self.actor = actor
            self.action = action
            self.note = note
        }
    }

    /// Letters, digits, `.`, `_` and `-`, at most 128 characters; unique on the server.
    public var id: String
    /// The environment the experiment runs in.
    public var environment: String
    /// The key of the flag whose variants are the arms.
    public var flag: String
    /// The arm the others are compared with; one of ``arms``.
    public var control: String
    /// The flag's variants taking part, the control included (2–10, no repeats).
    public var arms: [String]
    /// At most 2000 characters.
    public var hypothesis: String
    /// The keys of the metrics that judge it (1–20); a metric marked as guardrail guards.
    public var metrics: [String]
    /// The significance level, 0.001–0.2.
    public var alpha: Double
    /// How the decision adjusts for the number of comparisons (metrics × arms besides the
    /// control): Benjamini–Hochberg when `nil`, or Holm. Dunnett is refused: it holds for a
    /// fixed-horizon test, and the server decides with the always-valid sequential test.
    public var correction: MultipleComparisonCorrection?
    /// When the team plans to stop it; informative only, nothing stops the experiment then.
    public var plannedEnd: Date?
    /// Where the experiment is in its lifecycle.
    public var status: Status
    /// When it last started; `nil` for a draft.
    public var startedAt: Date?
    /// When it stopped or shipped; `nil` while it is a draft or running.
    public var endedAt: Date?
    /// The allocation recorded on start.
    public var allocation: ExperimentAllocation?
    /// The arm made the flag's default by shipping.
    public var shippedArm: String?
    /// Oldest first.
    public var history: [HistoryEntry]
    /// Raised by one on every update (compare-and-set in the store).
    public var version: Int
    /// When the draft was created.
    public var createdAt: Date

    /// A draft at version 1, with one `created` history entry by `createdBy`; not validated here.
    public init(
        id: String, environment: String, flag: String, control: String, arms: [String], hypothesis: String = "",
        metrics: [String], alpha: Double = 0.05, plannedEnd: Date? = nil, status: Status = .draft, createdAt: Date,
        createdBy: String
    ) {
        self.id = id
        self.environment = environment
        self.flag = flag
        self.control = control
        self.arms = arms
        self.hypothesis = hypothesis
        self.metrics = metrics
        self.alpha = alpha
        self.plannedEnd = plannedEnd
        self.status = status
        self.history = [HistoryEntry(time: createdAt, actor: createdBy, action: "created")]
        self.version = 1
        self.createdAt = createdAt
    }

    /// The most arms an experiment may have, the control included.
    public static let maximumArms = 10
    /// The most metrics that may judge one experiment.
    public static let maximumMetrics = 20
    /// The longest hypothesis, in characters.
    public static let maximumHypothesisLength = 2000
    /// The significance levels an experiment may use.
    public static let alphaRange = 0.001...0.2

    /// Whether `key` is a valid experiment or metric key (``KeyRule``: as flag keys).
    package static func isKey(_ key: String) -> Bool { KeyRule.isValid(key) }

    /// The arms' planned shares: each arm's weight in the recorded allocation over the arms'
    /// total; empty before the start.
    public var armShares: [String: Double] { allocation?.shares(of: arms) ?? [:] }

    /// What is wrong with the experiment's definition against `state` (the flag and its variants)
    /// and the known `metrics`, each naming its field; empty when it is valid.
    public func problems(in state: ServerState, metrics known: [String: ExperimentMetric]) -> [ValidationError] {
        var problems: [ValidationError] = []
        func report(_ field: String, _ problem: String) { problems.append(ValidationError(environment: environment, key: id, field: field, problem: problem)) }
        if !Self.isKey(id) { report("id", "letters, digits, \".\", \"_\" and \"-\", 1–128 characters") }
        if state.environments[environment] == nil { report("environment", "environment \"\(environment)\" does not exist") }
        if let record = state.flags[flag] {
            if record.archived { report("flag", "flag \"\(flag)\" is archived") }
            for arm in arms where record.variants[arm] == nil { report("arms", "\"\(arm)\" is not a variant of flag \"\(flag)\"") }
        } else {
            report("flag", "flag \"\(flag)\" does not exist")
        }
        if !(2...Self.maximumArms).contains(arms.count) { report("arms", "2–\(Self.maximumArms) arms, the control included") }
        if Set(arms).count != arms.count { report("arms", "an arm is named twice") }
        if !arms.contains(control) { report("control", "\"\(control)\" is not one of the arms") }
        if hypothesis.count > Self.maximumHypothesisLength { report("hypothesis", "at most \(Self.maximumHypothesisLength) characters") }
        if !(1...Self.maximumMetrics).contains(metrics.count) { report("metrics", "1–\(Self.maximumMetrics) metric keys") }
        if Set(metrics).count != metrics.count { report("metrics", "a metric is named twice") }
        for key in metrics where known[key] == nil { report("metrics", "metric \"\(key)\" does not exist") }
        for key in metrics where known[key]?.archived == true {
            report("metrics", "metric \"\(key)\" is archived; restore it to name it in an experiment")
        }
        if !Self.alphaRange.contains(alpha) || !alpha.isFinite { report("alpha", "must be 0.001–0.2, got \(alpha)") }
        if let correction, !correction.appliesToSequentialTest {
            report(
                "correction",
                "\"\(correction.rawValue)\" adjusts a fixed-horizon test read once; experiments are decided by the always-valid sequential test, which it does not hold for: choose \"holm\" (family-wise error) or \"bh\" (false discovery rate)")
        }
        return problems
    }

    /// Starts a draft: records `allocation` (the flag's current one in the environment), which must
    /// split units over every arm (each with a positive weight).
    ///
    /// - Throws: ``AdminError/conflict(_:)`` unless the experiment is a draft;
    ///   ``AdminError/invalid(_:)`` naming `allocation` when the flag's rule is no fractional split
    ///   over the arms.
    public mutating func start(allocation: ExperimentAllocation?, at time: Date, by actor: String) throws(AdminError) {
        guard status == .draft else { throw .conflict("experiment \"\(id)\" is \(status.rawValue); only a draft starts") }
        guard let allocation else {
            throw .invalid([
                ValidationError(
                    environment: environment, key: id, field: "allocation",
                    problem: "flag \"\(flag)\" in \"\(environment)\" does not serve a fractional split (a \"fractional\" rule, alone or as the first branch of an \"if\"); set one over the arms first")
            ])
        }
        let missing = arms.filter { allocation.weight(of: $0) <= 0 }
        guard missing.isEmpty else {
            throw .invalid([
                ValidationError(
                    environment: environment, key: id, field: "allocation",
                    problem: "the fractional split of flag \"\(flag)\" gives no weight to \(missing.map { "\"\($0)\"" }.joined(separator: ", ")); every arm needs a positive weight")
            ])
        }
        self.allocation = allocation
        status = .running
        startedAt = time
        endedAt = nil
        record(time, actor, "started", "shares " + arms.map { "\($0) \(allocation.weight(of: $0))" }.joined(separator: ", "))
    }

    /// Stops a running experiment: its results stop counting at `time`.
    public mutating func stop(at time: Date, by actor: String, note: String?) throws(AdminError) {
        guard status == .running else { throw .conflict("experiment \"\(id)\" is \(status.rawValue); only a running one stops") }
        status = .stopped
        endedAt = time
        record(time, actor, "stopped", note)
    }

    /// Ends a running or stopped experiment as shipped with `arm` (the caller makes it the flag's
    /// default).
    public mutating func ship(arm: String, at time: Date, by actor: String, note: String?) throws(AdminError) {
        guard status == .running || status == .stopped else {
            throw .conflict("experiment \"\(id)\" is \(status.rawValue); only a running or stopped one ships")
        }
        guard arms.contains(arm) else {
            throw .invalid([ValidationError(environment: environment, key: id, field: "arm", problem: "\"\(arm)\" is not one of the arms")])
        }
        status = .shipped
        if endedAt == nil { endedAt = time }
        shippedArm = arm
        record(time, actor, "shipped", "arm \"\(arm)\"" + (note.map { ": " + $0 } ?? ""))
    }

    /// Appends to the history and raises the version.
    package mutating func record(_ time: Date, _ actor: String, _ action: String, _ note: String? = nil) {
        history.append(HistoryEntry(time: time, actor: actor, action: action, note: note))
        version += 1
    }
}
