@testable import FlagServer
import Synchronization
import Testing

/// Freed memory is released once a burst of stream changes settles, once per burst.
struct FreedMemoryTriggerTests {
    /// The clock, the scheduled work and the releases the trigger sees.
    final class Box: Sendable {
        let start = ContinuousClock.now
        let offset = Mutex(Duration.zero)
        let pending = Mutex<[(Duration, @Sendable () -> Void)]>([])
        let releases = Atomic<Int>(0)
    }

    struct Harness {
        let box = Box()
        let trigger: FreedMemory.Trigger

        init(threshold: Int) {
            let box = box
            trigger = FreedMemory.Trigger(
                threshold: threshold, quiet: .seconds(2), longest: .seconds(30),
                clock: { box.start + box.offset.withLock { $0 } },
                schedule: { delay, work in box.pending.withLock { $0.append((delay, work)) } },
                release: { box.releases.add(1, ordering: .relaxed) })
        }

        func advance(by duration: Duration) { box.offset.withLock { $0 += duration } }

        /// Runs the scheduled work (as its delay passed); returns the delays it was scheduled with.
        @discardableResult
        func runScheduled() -> [Duration] {
            let due = box.pending.withLock { pending in
                defer { pending.removeAll() }
                return pending
            }
            for (_, work) in due { work() }
            return due.map(\.0)
        }

        var released: Int { box.releases.load(ordering: .relaxed) }
    }

    @Test
    func aBurstIsReleasedOnceItSettles() {
        let harness = Harness(threshold: 3)
        harness.trigger.note()
        harness.trigger.note()
        #expect(harness.runScheduled().isEmpty)  // under the threshold: nothing scheduled
        harness.trigger.note()
        harness.trigger.note()  // scheduled once, whatever comes after
        harness.advance(by: .seconds(1))
        harness.trigger.note()  // the burst goes on
        harness.advance(by: .seconds(1))
        #expect(harness.runScheduled() == [.seconds(2)])
        #expect(harness.released == 0)  // 1 s since the last change: looks again in 1 s
        harness.advance(by: .seconds(1))
        #expect(harness.runScheduled() == [.seconds(1)])
        #expect(harness.released == 1)
        #expect(harness.runScheduled().isEmpty)
        // The next burst is released again.
        for _ in 0..<3 { harness.trigger.note() }
        harness.advance(by: .seconds(2))
        harness.runScheduled()
        #expect(harness.released == 2)
    }

    @Test
    func aSteadyChurnIsReleasedAtItsLongest() {
        let harness = Harness(threshold: 1)
        harness.trigger.note()
        for _ in 0..<40 {
            harness.advance(by: .seconds(1))
            harness.trigger.note()
            harness.runScheduled()
            if harness.released > 0 { break }
        }
        #expect(harness.released == 1)
        #expect(harness.trigger.releases == 1)
    }
}
