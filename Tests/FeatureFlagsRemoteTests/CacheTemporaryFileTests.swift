import FeatureFlags
import Foundation
import Testing

@testable import FeatureFlagsRemote

struct CacheTemporaryFileTests {
    @Test func theCacheRemovesTemporaryFilesAKilledWriteLeftAndWritesNoneItself() async throws {
        try await Fixture.run(.json(Payloads.appConfig())) { fixture in
            let loader = fixture.loader()
            let cacheName = loader.cacheFile!.url.lastPathComponent
            let stale = fixture.directory.appendingPathComponent(cacheName + ".tmp-0badc0de")
            try Data(repeating: 0x41, count: 4096).write(to: stale)

            _ = loader.cachedFlags()
            #expect(!FileManager.default.fileExists(atPath: stale.path))

            _ = try await loader.loadFlags()
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
            #expect(names == [cacheName])
        }
    }
}
