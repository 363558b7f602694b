import Logging
import Synchronization

/// Reads: what a check does besides loading its value (its read counted, the first read of a
/// remote value handed to ``recordExposure(at:)``, a read before configuration warned of), and the
/// harvest of the counted reads.
extension FlagEngine {
    /// The value word of the flag at `index` (a Boolean, integer or double flag), its read
    /// noted (see ``noteRead(_:)``): what a check reads. The value is loaded first, so that the
    /// slot's address serves both words.
    @inlinable
    @inline(__always)
    func readWord(at index: Int) -> UInt64 {
        let word = slots.word(at: index)
        noteRead(index)
        return word
    }

    /// What every check does besides reading its value, by the flag's read mark (see
    /// ``FlagReadMarks``): nothing but one load and a branch when no ``FlagEventRecorder`` is
    /// configured; with one, an increment of a counter of the thread's row; out of line, only
    /// the first read of a newly published remote value (its exposure) and reads before
    /// configuration (a warning).
    @inlinable
    @inline(__always)
    func noteRead(_ index: Int) {
        let mark = Int64(bitPattern: slots.mark(at: index))
        if mark != 0 {
            if mark > 0 {
                slots.countRead(atOffset: Int(truncatingIfNeeded: mark))
            } else {
                noteMarkedRead(index)
            }
        }
    }

    /// A read whose mark has ``FlagReadMarks/slow`` set: counts it if reads are counted, then
    /// warns of a read before configuration, or records the exposure of a newly published
    /// remote value.
    @usableFromInline
    func noteMarkedRead(_ index: Int) {
        let offset = slots.mark(at: index) & ~FlagReadMarks.slow
        if offset != 0 { slots.countRead(atOffset: Int(truncatingIfNeeded: offset)) }
        // Acquiring: configuration rewrote every mark before it said so, so a read that finds
        // the manager configured and the bit still set is the first read of a remote value.
        guard configured.load(ordering: .acquiring) else {
            noteUnconfiguredRead(index)
            return
        }
        recordExposure(at: index)
    }

    /// Hands the reads counted since the last harvest to `recorder`, attributed to the variant
    /// and reason of the values in effect.
    func harvestReadCounts(into recorder: FlagEventRecorder) {
        let counts = state.withLock { state in
            let table = state.table
            return harvestReadCounts(in: &state, table: table)
        }
        recorder.addCounts(counts)
    }

    func harvestReadCounts(
        in state: inout State, table: ResolvedFlagTable
    ) -> [(flag: String, variant: String?, reason: FlagReason, count: Int)] {
        if state.readBaselines.isEmpty {
            state.readBaselines = Array(repeating: 0, count: FlagReadMarks.rows * registry.count)
        }
        var counts = Array(repeating: 0, count: registry.count)
        slots.harvest(into: &counts, baselines: &state.readBaselines)
        var result: [(flag: String, variant: String?, reason: FlagReason, count: Int)] = []
        for index in counts.indices where counts[index] > 0 {
            result.append(
                (registry.definitions[index].key, table.variant(at: index), table.reason(at: index), counts[index]))
        }
        return result
    }

    /// Logs, once per flag, a read made before the manager was configured.
    func noteReadIfUnconfigured(_ index: Int) {
        guard !configured.load(ordering: .relaxed) else { return }
        noteUnconfiguredRead(index)
    }

    /// Logs, once per flag, a read of the values from before configuration (through the
    /// manager, or a snapshot taken then).
    @usableFromInline
    func noteUnconfiguredRead(_ index: Int) {
        let first = state.withLock { $0.warnedBeforeConfiguration.insert(index).inserted }
        guard first else { return }
        let definition = registry.definitions[index]
        let shown = definition.isSensitive ? "<REDACTED>" : definition.defaultValue.jsonString
        fallbackLogger.warning(
            "Feature flag '\(definition.key)' was read before the feature flags were configured; returning its code default \(shown). Configure them first thing at launch.",
            metadata: ["flag": "\(definition.key)"])
    }
}
