import Foundation
import Testing

@testable import FeatureFlags

/// Atomic writes through a temporary file beside the target, and the cleanup of temporaries a
/// killed process left behind.
struct AtomicFileTests {
    private func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func names(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func aWriteReplacesTheFileAndLeavesNoTemporaryFile() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("values.json")
        try AtomicFile.write(Data("one".utf8), to: url)
        try AtomicFile.write(Data("two".utf8), to: url)
        #expect(try String(contentsOf: url, encoding: .utf8) == "two")
        #expect(try names(in: directory) == ["values.json"])
    }

    @Test func theOverrideStoreRemovesTemporaryFilesAKilledWriteLeft() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = JSONFileFlagStore(directory: directory)
        try store.save(["chat_view_redesign": true])
        // What kill -9 during two saves leaves, beside an unrelated file that must stay.
        for name in ["debug-feature-flags.json.tmp-1a2b3c4d", "debug-feature-flags.json.tmp-deadbeef", "notes.txt"] {
            try Data(repeating: 0x41, count: 1024).write(to: directory.appendingPathComponent(name))
        }
        #expect(try store.load() == ["chat_view_redesign": true])
        #expect(try names(in: directory) == ["debug-feature-flags.json", "notes.txt"])
    }
}
