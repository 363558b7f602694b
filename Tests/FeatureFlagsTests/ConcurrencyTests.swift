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
