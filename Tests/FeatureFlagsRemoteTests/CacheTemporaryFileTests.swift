import FeatureFlags
import Foundation
import RemoteTestSupport
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

/// The stamp in the name of a cache file moved aside is 64-bit: after 2038 (past a 32-bit
/// `Int`) it is the whole date, and a clock beyond `Int64`'s range does not trap.
struct CacheMoveAsideStampTests {
    @Test(arguments: [
        (2_208_988_800.75, "flags.json.corrupt-2208988800"),
        (1e19, "flags.json.corrupt-\(Int64.max)"),
    ])
    func aCorruptCacheFileIsMovedAsideUnderA64BitStamp(seconds: Double, expected: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-cache-stamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = RemoteCacheFile(url: directory.appendingPathComponent("flags.json"))
        try Data("no header".utf8).write(to: file.url)

        guard case .corrupt(_, let movedTo) = file.read(now: Date(timeIntervalSince1970: seconds)) else {
            Issue.record("a file without a header read as something other than corrupt")
            return
        }
        #expect(movedTo?.lastPathComponent == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [expected])
    }
}
