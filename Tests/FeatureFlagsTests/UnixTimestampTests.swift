import Foundation
import Testing

@testable import FeatureFlags

/// Stamps in the names of files moved aside are 64-bit: `Int(date.timeIntervalSince1970)`
/// traps on Apple Watch's 32-bit `Int` from January 2038.
struct UnixTimestampTests {
    /// 2040-01-01T00:00:00Z, past `Int32.max` (2038-01-19T03:14:07Z).
    static let after2038 = Date(timeIntervalSince1970: 2_208_988_800.75)

    @Test func aDateAfter2038RoundTripsThroughA64BitStamp() {
        let stamp: Int64 = UnixTimestamp.seconds(Self.after2038)
        #expect(stamp == 2_208_988_800)
        #expect(stamp > Int64(Int32.max))
        #expect(Date(timeIntervalSince1970: TimeInterval(stamp)) == Date(timeIntervalSince1970: 2_208_988_800))
    }

    /// What a 32-bit `Int` holds: the old conversion trapped here; this one says it does not fit.
    @Test func aDateAfter2038DoesNotFitA32BitIntegerAndDoesNotTrap() {
        #expect(UnixTimestamp.seconds(Self.after2038, as: Int32.self) == nil)
        #expect(UnixTimestamp.seconds(Date(timeIntervalSince1970: 2_147_483_647), as: Int32.self) == Int32.max)
        #expect(UnixTimestamp.seconds(Self.after2038, as: Int64.self) == 2_208_988_800)
    }

    /// Beyond `Int64` the old conversion trapped on every platform.
    @Test func datesBeyondSixtyFourBitsClampInsteadOfTrapping() {
        #expect(UnixTimestamp.seconds(Date(timeIntervalSince1970: 1e19)) == .max)
        #expect(UnixTimestamp.seconds(Date(timeIntervalSince1970: -1e19)) == .min)
        #expect(UnixTimestamp.seconds(Date(timeIntervalSince1970: .nan)) == 0)
        #expect(UnixTimestamp.seconds(Date(timeIntervalSince1970: -0.5)) == -1)
    }

    @Test func theOverrideFileStoreStampsAnUnreadableFileMovedAsideAfter2038() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-stamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var store = JSONFileFlagStore(directory: directory)
        store.now = { Self.after2038 }
        try Data("not json".utf8).write(to: store.url)

        #expect(throws: FlagStoreError.self) { try store.load() }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["debug-feature-flags.corrupt-2208988800.json"])
    }

    @Test func theUserDefaultsStoreStampsAnUnreadableEntryMovedAsideAfter2038() throws {
        let suite = "ff-stamp-\(UUID().uuidString)"
        var store = UserDefaultsFlagStore(suiteName: suite)
        store.now = { Self.after2038 }
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        defaults.set(42, forKey: store.key)

        let error = try #require(throws: FlagStoreError.self) { try store.load() }
        #expect(error.movedAsideTo == "UserDefaults(\(suite))[debug-feature-flags.corrupt-2208988800]")
        #expect(defaults.integer(forKey: "debug-feature-flags.corrupt-2208988800") == 42)
    }
}
