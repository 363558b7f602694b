import Dispatch
import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Testing

/// Many tasks read while others set overrides; `.ci/run` also runs this under
/// `swift test --sanitize=thread`.
struct ConcurrencyTests {
    @Test func readersAndWritersRunTogether() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let flagsToFlip: [AppFlag] = [.terminalRedesign, .ideasDrawer, .sheetSystem, .liveActivities]
        await withTaskGroup(of: Int.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for round in 0..<200 {
                        flags.setOverride(flagsToFlip[writer], to: round % 2 == 0)
                        flags.setOverride(AppConfig.onboardingVariant, to: "v\(round)")
                    }
                    flags.setOverride(flagsToFlip[writer], to: true)
                    return 0
                }
            }
            for _ in 0..<8 {
                group.addTask {
                    var inconsistent = 0
                    for _ in 0..<2_000 {
                        // Phase 0 flags never change in these tasks.
                        if !flags.isEnabled(.liquidGlassDesign) { inconsistent += 1 }
                        _ = flags.value(AppConfig.onboardingVariant)
                        _ = flags.value(AppConfig.pageSize)
                        let snapshot = flags.snapshot
                        if snapshot.isEnabled(.sidebarRedesign) != snapshot.isEnabled(.navigationSplitView) {
                            inconsistent += 1
                        }
                    }
                    return inconsistent
                }
            }
            var inconsistencies = 0
            for await count in group { inconsistencies += count }
            #expect(inconsistencies == 0)
        }
        for flag in flagsToFlip { #expect(flags.isEnabled(flag)) }
        #expect(flags.value(AppConfig.onboardingVariant) == "v199")
    }
}

/// A published object that counts its releases.
private final class CountedBox: Sendable {
    let value: Int
    let released: ChangeCounter

    init(_ value: Int, released: ChangeCounter) {
        self.value = value
        self.released = released
    }

    deinit { released.increment() }
}

struct PublishedReferenceTests {
    /// Readers borrow while a writer replaces: each reader sees values only grow (a freed and
    /// reused object would show garbage or crash), and every replaced object is released.
    @Test func readersSeeLiveObjectsAndReplacedOnesAreReleased() async {
        let released = ChangeCounter()
        let replacements = 2_000
        let published = PublishedReference(CountedBox(0, released: released))
        let backwards = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for value in 1...replacements { published.replace(with: CountedBox(value, released: released)) }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var last = 0
                    var backwards = 0
                    for _ in 0..<20_000 {
                        let value = published.withCurrent { $0.value }
                        if value < last || value > replacements { backwards += 1 }
                        last = value
                        let held = published.load()
                        if held.value < last { backwards += 1 }
                    }
                    return backwards
                }
            }
            var total = 0
            for await count in group { total += count }
            return total
        }
        #expect(backwards == 0)
        #expect(released.count == replacements)
        #expect(published.load().value == replacements)
    }

    /// Retained loads with a batch of two refill on every other load, while a writer replaces:
    /// each object a reader holds stays alive (its value is in range and never goes backwards),
    /// and every replaced object is released exactly once.
    @Test func retainedLoadsRefillWhileAWriterReplaces() async {
        let released = ChangeCounter()
        let replacements = 1_000
        let shared = PublishedReference(CountedBox(0, released: released), batch: 2)
        let problems = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for value in 1...replacements { shared.replace(with: CountedBox(value, released: released)) }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var problems = 0
                    var last = 0
                    var held: [CountedBox] = []
                    for round in 0..<10_000 {
                        let box = shared.load()
                        if box.value < last || box.value > replacements { problems += 1 }
                        last = box.value
                        // Keep a few across replacements, then check they were not freed.
                        if round % 97 == 0 { held.append(box) }
                    }
                    for (position, box) in held.enumerated() where position > 0 && box.value < held[position - 1].value {
                        problems += 1
                    }
                    return problems
                }
            }
            var total = 0
            for await count in group { total += count }
            return total
        }
        #expect(problems == 0)
        #expect(released.count == replacements)
        #expect(shared.load().value == replacements)
    }

    /// A loaded object outlives its replacement and is freed when its last holder lets go; the
    /// published reference frees the object it holds when it goes, whatever was claimed.
    @Test func heldObjectsOutliveReplacementAndNothingLeaks() {
        let released = ChangeCounter()
        do {
            let published = PublishedReference(CountedBox(1, released: released), batch: 3)
            var held = (0..<7).map { _ in published.load() }  // two refills
            published.replace(with: CountedBox(2, released: released))
            #expect(released.count == 0, "seven holders keep the first object")
            #expect(held.allSatisfy { $0.value == 1 })
            held.removeAll()
            #expect(released.count == 1)
            let second = published.load()
            #expect(second.value == 2)
        }
        #expect(released.count == 2)
    }
}

extension PublishedReferenceTests {
    /// With hardware memory tagging the top byte of a pointer holds its allocation's tag, so the
    /// published word must not carry an address at all: it is a generation and a claim count,
    /// the same for any object (the previous design kept the address in the word's low 48 bits
    /// and claims above them, and trapped on a tagged address).
    @Test func thePublishedWordHoldsNoAddress() {
        let released = ChangeCounter()
        let objects = (0..<3).map { CountedBox($0, released: released) }
        let published = PublishedReference(objects[0], batch: 4)
        #expect(published.wordForTesting == 0, "generation 0, no claims")
        _ = published.load()
        #expect(published.wordForTesting == 1, "one claim")
        published.replace(with: objects[1])
        #expect(published.wordForTesting == 1 << 32, "generation 1, no claims")
        published.replace(with: objects[2])
        #expect(published.wordForTesting == 2 << 32)
        #expect(published.load() === objects[2], "the object itself, its pointer untouched")
    }

    /// The writer never waits for readers: it returns while a reader is still inside
    /// `withCurrent` (a reader preempted there must not hold up a higher-priority writer), and
    /// the object that reader borrows stays alive until it leaves; the reader leaving frees it.
    /// The previous writer spun until every reader had left: here the reader waits for the
    /// writer to return, so it never returned and the guard below failed the test.
    /// (Readers block, so they run on threads of their own, never on Swift's cooperative pool.)
    @Test func aWriterReturnsWhileAReaderIsInsideAndTheReaderFreesTheOldObject() {
        let released = ChangeCounter()
        let published = PublishedReference(CountedBox(1, released: released))
        let readerInside = DispatchSemaphore(value: 0)
        let writerReturned = DispatchSemaphore(value: 0)
        let seen = Locked<(value: Int, writerReturned: Bool, releasedInside: Int)?>(nil)
        let reader = DispatchGroup()
        DispatchQueue.global().async(group: reader) {
            let result = published.withCurrent { box in
                readerInside.signal()
                // A liveness guard, not a timing measure: a writer that waits for this reader
                // would never signal, and the test fails after the guard instead of hanging.
                let returned = writerReturned.wait(timeout: .now() + 60) == .success
                return (box.value, returned, released.count)
            }
            seen.withLock { $0 = result }
        }
        readerInside.wait()
        published.replace(with: CountedBox(2, released: released))
        writerReturned.signal()
        reader.wait()
        let result = seen.withLock { $0 }
        #expect(result?.writerReturned == true, "the writer returned while the reader was inside")
        #expect(result?.value == 1)
        #expect(result?.releasedInside == 0, "the borrowed object stayed alive while borrowed")
        #expect(released.count == 1, "the last reader out freed the replaced object")
        #expect(published.load().value == 2)
    }

    /// Writers replacing while readers hold borrowed objects neither wait nor free early, and
    /// whatever was retired meanwhile is freed once the readers are gone, without another write.
    /// (The previous writer waited for the readers, who wait for the writes: the guards fail.)
    @Test func retiredObjectsAreFreedWhenTheirReadersLeave() {
        let released = ChangeCounter()
        let published = PublishedReference(CountedBox(0, released: released))
        let readersInside = DispatchSemaphore(value: 0)
        let writesDone = DispatchSemaphore(value: 0)
        let borrowed = Locked<[Int]>([])
        let readers = DispatchGroup()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: readers) {
                let value = published.withCurrent { box -> Int in
                    readersInside.signal()
                    _ = writesDone.wait(timeout: .now() + 60)  // a liveness guard, as above
                    return box.value
                }
                borrowed.withLock { $0.append(value) }
            }
        }
        for _ in 0..<3 { readersInside.wait() }
        for value in 1...5 { published.replace(with: CountedBox(value, released: released)) }
        let releasedWhileInside = released.count
        for _ in 0..<3 { writesDone.signal() }
        readers.wait()
        #expect(borrowed.withLock { $0 } == [0, 0, 0])
        // Nothing retired while a reader was inside is freed before it leaves (the epoch cannot
        // pass it), and everything is freed as the last one leaves.
        #expect(releasedWhileInside == 0)
        #expect(released.count == 5)
    }
}

struct RuntimeReferenceCountsTests {
    /// Added references keep an object alive until the same number is removed.
    @Test func batchesAddAndRemoveReferences() {
        let released = ChangeCounter()
        var box: CountedBox? = CountedBox(1, released: released)
        let address = Unmanaged.passUnretained(box!).toOpaque()
        RuntimeReferenceCounts.retain(address, count: 1_000)
        box = nil
        #expect(released.count == 0)
        RuntimeReferenceCounts.release(address, count: 999)
        #expect(released.count == 0)
        RuntimeReferenceCounts.release(address, count: 1)
        #expect(released.count == 1)
        #expect(RuntimeReferenceCounts.isBatched, "Linux and Apple runtimes export swift_retain_n")
    }
}
