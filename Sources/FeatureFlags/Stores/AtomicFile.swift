import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a file atomically through a temporary file of its own, beside the file, and removes
/// the temporaries a killed process left behind.
///
/// Foundation's `.atomic` option writes its temporary file where it chooses and, when the
/// process is killed mid-write, leaves it there for good. Here the temporary file is
/// `<name>.tmp-<random>` in the file's own directory, renamed over the file when complete, so
/// a reader sees the old file or the new one, never half of one; and
/// ``removeStaleTemporaryFiles(for:)``, called when a store starts, deletes any that remain.
/// Shared by the override store and the remote configuration cache.
package enum AtomicFile {
    /// The prefix of the temporary files written for `url`.
    package static func temporaryPrefix(for url: URL) -> String {
        url.lastPathComponent + ".tmp-"
    }

    /// Writes `data` to `url` atomically, creating the directory if needed.
    ///
    /// - Parameters:
    ///   - options: Extra options for the write, such as a file protection class; the
    ///     temporary file gets them and the rename keeps them.
    ///   - beforeRename: Called once the temporary file is complete, before it is renamed over
    ///     `url`: the point where a killed process leaves a temporary file behind (crash tests
    ///     stop there).
    package static func write(
        _ data: Data, to url: URL, options: Data.WritingOptions = [], beforeRename: () -> Void = {}
    ) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(
            temporaryPrefix(for: url) + UUID().uuidString.prefix(8).lowercased())
        do {
            try data.write(to: temporary, options: options.union(.withoutOverwriting))
            beforeRename()
            guard rename(temporary.path, url.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Deletes the temporary files an interrupted ``write(_:to:options:)`` left beside `url`;
    /// returns how many.
    @discardableResult
    package static func removeStaleTemporaryFiles(for url: URL) -> Int {
        let directory = url.deletingLastPathComponent()
        let prefix = temporaryPrefix(for: url)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            if (try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))) != nil {
                removed += 1
            }
        }
        return removed
    }
}
