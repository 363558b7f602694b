import FeatureFlags
import Foundation

/// The JSON override file (`JSONFileFlagStore`), in a temporary folder of this process.
///
/// Invariants:
/// - values written read back identical (the input's own JSON object when it is one, otherwise
///   values decoded from its bytes), and the file holds exactly their JSON text;
/// - the input's bytes as the file: a load either returns what the JSON parser reads from them,
///   leaving the file untouched, or throws, having moved the file aside byte for byte; the next
///   load starts empty, and saving afterwards leaves the moved-aside file intact.
enum OverrideStoreTarget {
    /// A folder of this process, in memory (`/dev/shm`) where there is one: atomic writes to a
    /// disk wait for it, which would slow the target down to a few inputs per second.
    static let directory: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        let url = base
            .appendingPathComponent("feature-flags-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: url)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            Invariant.fail("cannot create the fuzz folder \(url.path): \(error)")
        }
        atexit { try? FileManager.default.removeItem(at: OverrideStoreTarget.directory) }
        return url
    }()

    static func run(_ data: Data) {
        defer { clear() }
        let store = JSONFileFlagStore(directory: directory, fileName: "overrides.json")
        checkWriteThenRead(data, store: store)
        clear()
        checkRawFile(data, store: store)
    }

    static func checkWriteThenRead(_ data: Data, store: JSONFileFlagStore) {
        let parsed = try? FlagValue.objectMembers(fromJSON: data)
        var values = parsed ?? [:]
        if parsed == nil {
            var reader = FuzzedDataReader(data)
            for _ in 0..<reader.choice(5) { values[reader.string(maxLength: 8)] = reader.flagValue(depth: 2) }
        }
        do {
            try store.save(values)
        } catch {
            Invariant.fail("saving \(values.count) values failed: \(error)")
        }
        let expectedText = FlagValue.object(values).jsonString + "\n"
        Invariant.require(
            (try? Data(contentsOf: store.url)) == Data(expectedText.utf8), "the saved file is not the values' JSON text")
        let loaded: [String: FlagValue]
        do {
            loaded = try store.load()
        } catch {
            Invariant.fail("values just saved do not load: \(error)")
        }
        if parsed != nil {
            Invariant.require(loaded == values, "values parsed from JSON, saved and loaded, changed")
        } else {
            Invariant.require(
                FlagValue.object(loaded).isSameJSON(as: .object(values)), "values saved and loaded changed")
        }
    }

    static func checkRawFile(_ data: Data, store: JSONFileFlagStore) {
        do {
            try data.write(to: store.url)
        } catch {
            Invariant.fail("cannot write the fuzz input to \(store.url.path): \(error)")
        }
        do {
            let loaded = try store.load()
            let parsed = try? FlagValue.objectMembers(fromJSON: data)
            Invariant.require(loaded == parsed, "the store loaded values the JSON parser does not read from the same bytes")
            Invariant.require(
                (try? Data(contentsOf: store.url)) == data, "loading the override file changed it")
        } catch {
            Invariant.require(
                (try? FlagValue.objectMembers(fromJSON: data)) == nil,
                "the store refused a file that is a JSON object of flag values: \(error)")
            guard let movedTo = error.movedAsideTo else {
                Invariant.fail("an unreadable override file was not moved aside: \(error)")
            }
            Invariant.require(
                (try? Data(contentsOf: URL(fileURLWithPath: movedTo))) == data,
                "the moved-aside file does not hold the unreadable file's bytes")
            Invariant.require(
                !FileManager.default.fileExists(atPath: store.url.path), "the unreadable file is still in place after being moved")
            let next = try? store.load()
            Invariant.require(next == [:], "the load after a moved-aside file did not start empty")
            do {
                try store.save(["after_corruption": true])
            } catch {
                Invariant.fail("saving after a moved-aside file failed: \(error)")
            }
            Invariant.require(
                (try? Data(contentsOf: URL(fileURLWithPath: movedTo))) == data,
                "saving new values changed the moved-aside file")
        }
    }

    /// Removes every file the last input left.
    static func clear() {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files { try? FileManager.default.removeItem(at: directory.appendingPathComponent(file)) }
    }
}
