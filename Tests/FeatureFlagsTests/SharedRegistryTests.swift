import ExampleFlags
@testable import FeatureFlags
import Testing

/// A registry built once at launch is shared by the manager and whoever else validates against
/// it (a remote loader), instead of being built twice.
struct SharedRegistryTests {
    @Test func theManagerResolvesOverTheRegistryItIsGiven() throws {
        let registry = try FlagRegistry(AppFlag.self)
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug), registry: registry)

        #expect(flags.engine.registry.identity == registry.identity)
        // A typed value's position is remembered per registry: one lookup serves both users.
        #expect(registry.index(of: AppConfig.pageSize) == flags.engine.registry.index(of: AppConfig.pageSize))
    }

    @Test func aSharedRegistryResolvesWhatAManagerOfItsOwnResolves() throws {
        let shared = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .debug), registry: try FlagRegistry(AppFlag.self))
        let own = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug))

        #expect(shared.snapshot.values == own.snapshot.values)
        #expect(shared.engine.registry.identity != own.engine.registry.identity)
    }

    @Test func aRegistryIsItsEnumsOnlyWithEveryCaseAndTypedValueInOrder() throws {
        let registry = try FlagRegistry(AppFlag.self)
        #expect(registry.isRegistry(of: AppFlag.self))
        #expect(!registry.isRegistry(of: TestFlag.self))

        let casesOnly = try FlagRegistry(AppFlag.allCases.map { $0.definition })
        #expect(!casesOnly.isRegistry(of: AppFlag.self), "the typed values are missing")

        var swapped = registry.definitions
        swapped.swapAt(0, 1)
        #expect(!(try FlagRegistry(swapped)).isRegistry(of: AppFlag.self), "two cases out of order")
    }

    @Test func requirementsAndConflictsKeepTheirKeys() throws {
        let registry = try FlagRegistry(TestFlag.self)
        for key in TestFlag.allCases {
            let definition = try #require(registry.definition(forKey: key.rawValue))
            #expect(definition.requires == key.metadata.requires.map { $0.rawValue })
            #expect(definition.conflicts == key.metadata.conflicts.map { $0.rawValue })
        }
    }
}
