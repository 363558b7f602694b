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
}
