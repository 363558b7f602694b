import FlagServerClient
import Foundation

/// Finds the Swift files under the paths given to `--sources`.
public enum SwiftSourceFiles {
    /// Every `.swift` file under `paths` (files are taken as they are), skipping hidden folders
    /// and `.build`; sorted, so reports are deterministic.
    ///
    /// - Throws: ``ToolingError`` (invalid input) for a path that does not exist.
    public static func find(in paths: [String]) throws(ToolingError) -> [String] {
        var files: [String] = []
        let fileManager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ToolingError(.invalidInput, "\(path): no such file or folder (given to --sources).")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            guard let enumerator = fileManager.enumerator(atPath: path) else { continue }
            var found: [String] = []
            while let relative = enumerator.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                if name.hasPrefix(".") || name == ".build" {
                    enumerator.skipDescendants()
                    continue
                }
                if relative.hasSuffix(".swift") {
                    found.append(path.hasSuffix("/") ? path + relative : path + "/" + relative)
                }
            }
            files += found.sorted()
        }
        var seen: Set<String> = []
        return files.filter { seen.insert($0).inserted }
    }

    /// The largest Swift file the tools read (8 MiB): far above hand-written sources, so a
    /// stray generated or binary file cannot exhaust memory.
    public static let maximumFileSize = 8 << 20

    /// Reads a file as UTF-8 text.
    ///
    /// - Throws: ``ToolingError`` (invalid input) when the file cannot be read, is larger than
    ///   ``maximumFileSize`` or is not UTF-8.
    public static func read(_ path: String) throws(ToolingError) -> String {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumFileSize else {
            throw ToolingError(
                .invalidInput,
                "\(path): \(size) bytes, more than the \(maximumFileSize) a Swift source may have here; leave it out of --sources.")
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ToolingError(.invalidInput, "\(path): cannot be read as UTF-8 text.")
        }
        return text
    }
}
