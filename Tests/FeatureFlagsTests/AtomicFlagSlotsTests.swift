import Synchronization
import Testing

@testable import FeatureFlags

/// The slots' layout (a value and a read mark per flag, then rows of counters) and the harvest
/// of read counts.
struct AtomicFlagSlotsTests {
    /// Sets the counter of `row` for the flag at `index` (what reads in that row would leave).
    func setCounter(_ slots: borrowing AtomicFlagSlots, index: Int, row: Int, to value: UInt64) {
        let counter = (UnsafeMutableRawPointer(slots.words) + slots.counterOffset(of: index) + row * FlagReadMarks.rowBytes)
            .assumingMemoryBound(to: Atomic<UInt64>.self)
        counter[0].store(value, ordering: .relaxed)
    }

    func harvest(_ slots: borrowing AtomicFlagSlots, baselines: inout [UInt64]) -> [Int] {
        var counts = Array(repeating: 0, count: slots.count)
        slots.harvest(into: &counts, baselines: &baselines)
        return counts
    }

    @Test(arguments: [1, 7, 8, 9, 20, 64])
    func everyFlagAndRowHasACounterOfItsOwnAndEveryRowACacheLineOfItsOwn(count: Int) {
        let slots = AtomicFlagSlots(count: count)
        var offsets = Set<Int>()
        var lines: [Int: Set<Int>] = [:]  // cache line → rows that count in it
        let end = slots.wordCount * 8
        for index in 0..<count {
            #expect(slots.counterOffset(of: index) >= count * 16, "counters come after the slots")
            for row in 0..<FlagReadMarks.rows {
                let offset = slots.counterOffset(of: index) + row * FlagReadMarks.rowBytes
                #expect(offset % 8 == 0 && offset + 8 <= end)
                offsets.insert(offset)
                lines[offset / 64, default: []].insert(row)
            }
        }
        #expect(offsets.count == count * FlagReadMarks.rows)
        #expect(lines.values.allSatisfy { $0.count == 1 }, "two rows never share a cache line")
        #expect(Int(bitPattern: UnsafeRawPointer(slots.words)) % 64 == 0)
    }

    @Test func valuesAndMarksSitSideBySideAndDoNotDisturbEachOther() {
        let slots = AtomicFlagSlots(count: 3)
        for index in 0..<3 {
            slots.store(UInt64(100 + index), at: index)
            slots.setMark(UInt64(slots.counterOffset(of: index)), at: index)
        }
        #expect((0..<3).map { slots.word(at: $0) } == [100, 101, 102])
        #expect((0..<3).map { slots.mark(at: $0) } == (0..<3).map { UInt64(slots.counterOffset(of: $0)) })
    }

    @Test func readsCountedInTheThreadsRowAreHarvestedOncePerFlag() {
        let slots = AtomicFlagSlots(count: 20)
        for index in 0..<20 {
            for _ in 0...index { slots.countRead(atOffset: slots.counterOffset(of: index)) }
        }
        var baselines = Array(repeating: UInt64(0), count: FlagReadMarks.rows * 20)
        #expect(harvest(slots, baselines: &baselines) == Array(1...20))
        #expect(harvest(slots, baselines: &baselines) == Array(repeating: 0, count: 20))
    }

    /// A thread that loaded a counter and stored it late sets the row back. The climb back to
    /// where the row stood was counted before: counting it again would overcount.
    @Test func aRowThatWentBackwardsIsNotCountedTwice() {
        let slots = AtomicFlagSlots(count: 2)
        var baselines = Array(repeating: UInt64(0), count: FlagReadMarks.rows * 2)
        setCounter(slots, index: 1, row: 3, to: 8)
        #expect(harvest(slots, baselines: &baselines) == [0, 8])
        setCounter(slots, index: 1, row: 3, to: 1)  // a stale store: the row went back
        #expect(harvest(slots, baselines: &baselines) == [0, 0])
        setCounter(slots, index: 1, row: 3, to: 9)  // one read past the highest harvested
        #expect(harvest(slots, baselines: &baselines) == [0, 1])
    }

    @Test func theSlowBitIsClaimedOnceAndKeepsTheCounterOffset() {
        let slots = AtomicFlagSlots(count: 1)
        let offset = UInt64(slots.counterOffset(of: 0))
        slots.setMark(offset | FlagReadMarks.slow, at: 0)
        let first = slots.claimSlowMark(at: 0)
        let second = slots.claimSlowMark(at: 0)
        let mark = slots.mark(at: 0)
        #expect(first && !second)
        #expect(mark == offset)
    }

    @Test func rowOffsetsAreWholeRowsWithinTheGroup() {
        let offset = FlagReadMarks.rowOffset()
        #expect(offset % FlagReadMarks.rowBytes == 0)
        #expect((0..<FlagReadMarks.groupBytes).contains(offset))
    }
}
