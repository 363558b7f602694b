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
