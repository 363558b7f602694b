/// What one evaluation of a rule carries along, passed `inout` down the tree: the budget left
/// (see ``EvaluationLimits``) and the results of `$ref` evaluators already computed.
struct EvaluationState {
    private var remainingSteps: Int
    private var remainingElements: Int
    private let limits: EvaluationLimits
    /// Set once a limit is reached; from then on every node returns `null` at once.
    private(set) var exceeded: EvaluationLimitExceeded?
    /// How many `map`/`filter`/`reduce`/`all`/`none`/`some` bodies enclose the current node.
    /// Evaluator results are remembered only outside them, where the data is the same.
    var iterationDepth = 0
    var memo: ReferenceMemo = .none

    init(limits: EvaluationLimits) {
        self.limits = limits
        self.remainingSteps = limits.maximumSteps
        self.remainingElements = limits.maximumAllocatedElements
    }

    /// Whether a limit has been reached.
    var isExhausted: Bool { exceeded != nil }

    /// Counts one step; `false` once the step budget is spent.
    @inline(__always)
    mutating func step() -> Bool {
        remainingSteps -= 1
        if remainingSteps >= 0 { return true }
        if exceeded == nil { exceeded = EvaluationLimitExceeded(limit: .steps, maximum: limits.maximumSteps) }
        return false
    }

    /// Counts `count` elements about to be built; `false` (build nothing) once over budget.
    @inline(__always)
    mutating func allocate(_ count: Int) -> Bool {
        remainingElements -= count
        if remainingElements >= 0, exceeded == nil { return true }
        if exceeded == nil {
            exceeded = EvaluationLimitExceeded(limit: .allocatedElements, maximum: limits.maximumAllocatedElements)
        }
        return false
    }

    /// A small open-addressed table from evaluator slot to result, in memory that lives for one
    /// evaluation (on the stack when small).
    struct ReferenceMemo {
        struct Entry {
            var slot: Int
            var value: JSONValue
        }

        private var entries: UnsafeMutableBufferPointer<Entry>?

        static var none: ReferenceMemo { ReferenceMemo(entries: nil) }

        /// Runs `body` with a table for up to `slots` evaluators.
        static func withMemo<R>(slots: Int, _ body: (ReferenceMemo) -> R) -> R {
            var capacity = 4
            while capacity < slots * 2 { capacity *= 2 }
            return withUnsafeTemporaryAllocation(of: Entry.self, capacity: capacity) { buffer in
                buffer.initialize(repeating: Entry(slot: -1, value: .null))
                defer { _ = buffer.deinitialize() }
                return body(ReferenceMemo(entries: buffer))
            }
        }

        private func index(of slot: Int) -> Int? {
            guard let entries else { return nil }
            let mask = entries.count - 1
            var index = (slot &* 0x9E37_79B1) & mask
            for _ in 0..<entries.count {
                let found = entries[index].slot
                if found == slot || found == -1 { return index }
                index = (index + 1) & mask
            }
            return nil
        }

        func value(for slot: Int) -> JSONValue? {
            guard let entries, let index = index(of: slot), entries[index].slot == slot else { return nil }
            return entries[index].value
        }

        /// Remembers `value`; does nothing when the table is full (evaluation then recomputes,
        /// within its budget). The table is sized at least twice the evaluators a rule can reach.
        func remember(_ value: JSONValue, for slot: Int) {
            guard let entries, let index = index(of: slot) else { return }
            entries[index] = Entry(slot: slot, value: value)
        }
    }
}
