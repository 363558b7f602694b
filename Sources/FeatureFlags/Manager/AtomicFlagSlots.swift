import Synchronization

/// One slot per flag, read by every check without locking or allocating: the flag's value word
/// (the resolved value of every Boolean, integer and double flag) and, beside it, its read mark
/// (what a check records besides reading: see ``FlagReadMarks``); after the slots, the read
/// counters of event recording.
///
/// A check finds both words of its slot from one pointer, which the engine holds directly (this
/// type is a non-copyable value stored in the engine, not an object of its own), so a check loads
/// the pointer, the mark and the value: no chain of objects to follow.
///
/// Writers (who hold the engine's lock) store new words after each resolution; readers load
/// them with relaxed ordering. Each word is independent: a reader that needs several flags to be
/// mutually consistent takes a ``FlagSnapshot`` instead.
///
/// Layout, from one allocation aligned to a cache line: slot `i` is words `2i` (value) and
/// `2i + 1` (mark); the counters start on the first cache line after the slots, in groups of 8
/// flags: a group holds ``FlagReadMarks/rows`` rows of one cache line each (8 counters), so row
/// `r` of flag `i` is at byte `countersOffset + (i / 8) × 1024 + r × 64 + (i % 8) × 8`. A row
/// is one cache line, so two threads counting in different rows never write the same line, and
/// moving from one row to another is a fixed 64 bytes, whatever the number of flags.
///
/// `@unchecked Sendable`: the buffer is allocated once in `init`, never reallocated, freed only
/// in `deinit` (the value cannot be copied, so nothing else frees it), and every access to its
/// words goes through `Atomic` operations.
@usableFromInline
struct AtomicFlagSlots: ~Copyable, @unchecked Sendable {  // safe: see the doc comment
    /// The first word of slot 0, on a cache line of its own.
    @usableFromInline
    let words: UnsafeMutablePointer<Atomic<UInt64>>
    let count: Int
    /// Where the counters start, in bytes from ``words``: a whole number of cache lines.
    let countersOffset: Int
    let wordCount: Int

    init(count: Int) {
        self.count = count
        let flags = max(count, 1)
        countersOffset = (flags * 16 + 63) & ~63
        let groups = (flags + 7) / 8
        wordCount = (countersOffset + groups * FlagReadMarks.groupBytes) / 8
        let raw = UnsafeMutableRawPointer.allocate(byteCount: wordCount * 8, alignment: 64)
        words = raw.bindMemory(to: Atomic<UInt64>.self, capacity: wordCount)
        for index in 0..<wordCount { (words + index).initialize(to: Atomic<UInt64>(0)) }
    }

    deinit {
        words.deinitialize(count: wordCount)
        UnsafeMutableRawPointer(words).deallocate()
    }

    // MARK: - Values

    @inlinable
    func word(at index: Int) -> UInt64 {
        words[index &* 2].load(ordering: .relaxed)
    }

    func store(_ word: UInt64, at index: Int) {
        words[index * 2].store(word, ordering: .relaxed)
    }

    /// The word for a scalar value: 0 or 1 for Booleans, the bit pattern for numbers, 0 otherwise.
    static func word(for value: FlagValue) -> UInt64 {
        switch value {
        case .bool(let value): value ? 1 : 0
        case .int(let value): UInt64(bitPattern: Int64(value))
        case .double(let value): value.bitPattern
        default: 0
        }
    }

    // MARK: - Read marks and counters

    @inlinable
    func mark(at index: Int) -> UInt64 {
        words[index &* 2 &+ 1].load(ordering: .relaxed)
    }

    func setMark(_ mark: UInt64, at index: Int) {
        words[index * 2 + 1].store(mark, ordering: .relaxed)
    }

    /// Clears the mark's ``FlagReadMarks/slow`` bit if it is set; `true` for the one caller that
    /// cleared it.
    func claimSlowMark(at index: Int) -> Bool {
        let mark = words + (index * 2 + 1)
        var current = mark[0].load(ordering: .relaxed)
        while current & FlagReadMarks.slow != 0 {
            let (exchanged, original) = mark[0].weakCompareExchange(
                expected: current, desired: current & ~FlagReadMarks.slow, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Where row 0 of the flag at `index` counts, in bytes from ``words``: what its mark holds
    /// while reads are counted.
    func counterOffset(of index: Int) -> Int {
        countersOffset + (index >> 3) * FlagReadMarks.groupBytes + (index & 7) * 8
    }

    /// Counts one read in the calling thread's row, for the flag whose row 0 is `offset` bytes
    /// from ``words``.
    ///
    /// A relaxed load and store, not a read-modify-write (an atomic add costs more than the
    /// whole check): two threads that meet in one row may lose a count, so summaries may
    /// undercount, never overcount.
    @inlinable
    func countRead(atOffset offset: Int) {
        let counter = (UnsafeMutableRawPointer(words) + (offset &+ FlagReadMarks.rowOffset()))
            .assumingMemoryBound(to: Atomic<UInt64>.self)
        counter[0].store(counter[0].load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// Adds every flag's reads since the previous harvest to `counts` (one entry per flag), and
    /// remembers the highest each row has stood in `baselines` (``FlagReadMarks/rows`` × count
    /// entries).
    ///
    /// A row can go backwards: a thread that loaded a counter, was preempted, and stored later
    /// overwrites the counts made meanwhile. Such a row adds nothing until it passes its highest
    /// harvested value again: lowering the baseline instead would count the climb back a second
    /// time (an overcount). Every value a row holds is at most the reads made in it (each store
    /// is one read's), so the highest one harvested never exceeds them.
    func harvest(into counts: inout [Int], baselines: inout [UInt64]) {
        let base = UnsafeMutableRawPointer(words)
        for row in 0..<FlagReadMarks.rows {
            for index in 0..<count {
                let counter = (base + counterOffset(of: index) + row * FlagReadMarks.rowBytes)
                    .assumingMemoryBound(to: Atomic<UInt64>.self)
                let now = counter[0].load(ordering: .relaxed)
                let slot = row * count + index
                if now > baselines[slot] {
                    counts[index] += Int(truncatingIfNeeded: now - baselines[slot])
                    baselines[slot] = now
                }
            }
        }
    }
}
