import Synchronization

/// What a check does besides reading its value while events are recorded: one word per flag
/// saying whether to count the read and whether the read is the first since the flag's remote
/// value was published (an exposure to record), and the read counters.
///
/// A check loads its flag's mark; `0` (not recording) costs that load and a branch. Counting
/// writes no memory another thread writes: counters are striped (16 rows of one counter per flag,
/// each row starting on its own cache line) and a read counts in the row picked by a hash of its
/// thread's stack address, so two threads almost always count in different rows. The increment is
/// a relaxed load and store, not a read-modify-write (an atomic add costs more than the whole
/// check): two threads that meet in one row may lose a count, which makes summaries an
/// undercount in that rare case and never an overcount (``harvest(into:)`` ignores a row that went
/// backwards).
///
/// `@unchecked Sendable`: the buffers are allocated once in `init`, freed only in `deinit`, and
/// every access to their elements goes through `Atomic` operations.
@usableFromInline
final class FlagReadMarks: @unchecked Sendable {  // safe: see the doc comment
    /// Count the read.
    @usableFromInline
    static let count: UInt64 = 2
    /// Record an exposure: the flag's value came from the server and this read may be the first.
    @usableFromInline
    static let exposure: UInt64 = 1

    @usableFromInline
    static let stripeBits = 4
    /// Rows of counters.
    static var stripes: Int { 1 << stripeBits }

    @usableFromInline
    let marks: UnsafeMutablePointer<Atomic<UInt64>>
    let counters: UnsafeMutablePointer<Atomic<UInt64>>
    /// The first counter of row 0, on a cache line of its own.
    @usableFromInline
    let rows: UnsafeMutablePointer<Atomic<UInt64>>
    /// Counters per row: the flag count rounded up to whole cache lines (8 words).
    @usableFromInline
    let stride: Int
    let count: Int

    init(count: Int) {
        self.count = count
        stride = (max(count, 1) + 7) & ~7
        marks = .allocate(capacity: max(count, 1))
        for index in 0..<max(count, 1) { (marks + index).initialize(to: Atomic<UInt64>(0)) }
        // One cache line more, so that the first row can start on a line of its own.
        let total = stride * Self.stripes + 8
        counters = .allocate(capacity: total)
        for index in 0..<total { (counters + index).initialize(to: Atomic<UInt64>(0)) }
        let address = UInt(bitPattern: counters)
        rows = counters + Int((((address + 63) & ~63) - address) / 8)
    }

    deinit {
        marks.deinitialize(count: max(count, 1))
        marks.deallocate()
        counters.deinitialize(count: stride * Self.stripes + 8)
        counters.deallocate()
    }

    @inlinable
    func mark(at index: Int) -> UInt64 {
        marks[index].load(ordering: .relaxed)
    }

    func setMark(_ mark: UInt64, at index: Int) {
        marks[index].store(mark, ordering: .relaxed)
    }

    /// Clears the exposure bit if it is set; `true` for the one caller that cleared it.
    func claimExposure(at index: Int) -> Bool {
        var current = marks[index].load(ordering: .relaxed)
        while current & Self.exposure != 0 {
            let (exchanged, original) = marks[index].weakCompareExchange(
                expected: current, desired: current & ~Self.exposure, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Counts one read of the flag at `index`, in the calling thread's row.
    @inlinable
    func countRead(at index: Int) {
        var probe: UInt8 = 0
        let address = withUnsafeMutablePointer(to: &probe) { UInt64(UInt(bitPattern: $0)) }
        // Stacks are at least 64 KiB apart; a multiplicative hash spreads their addresses over
        // the rows.
        let row = Int(truncatingIfNeeded: ((address >> 16) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - Self.stripeBits))
        let counter = rows + (row &* stride &+ index)
        counter[0].store(counter[0].load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// Adds every flag's reads since the previous harvest to `counts` (one entry per flag), and
    /// remembers where each row stood in `baselines` (``stripes`` × count entries).
    func harvest(into counts: inout [Int], baselines: inout [UInt64]) {
        let base = rows
        for row in 0..<Self.stripes {
            for index in 0..<count {
                let now = base[row * stride + index].load(ordering: .relaxed)
                let slot = row * count + index
                if now > baselines[slot] { counts[index] += Int(truncatingIfNeeded: now - baselines[slot]) }
                baselines[slot] = now
            }
        }
    }
}
