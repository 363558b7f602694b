import FeatureFlags
import FlagManifest
import Foundation

/// Removes a Boolean flag for good: rewrites the sources as if it were always on (or off),
/// removes its case from the flag enum and the flag from the manifest.
///
/// ```swift
/// let plan = try FlagRemover(manifest: manifest, key: "chat_view_redesign", keep: true)
///     .plan(files: SwiftSourceFiles.find(in: ["Sources"]))
/// print(plan.summary(manifestPath: "flags.json"))
/// try plan.apply(manifestPath: "flags.json")
/// ```
public struct FlagRemover: Sendable {
    public let manifest: Manifest
    public let key: String
    /// Whether the flag stays on (`true`) or off.
    public let keep: Bool

    /// - Throws: ``ToolingError`` (failed) when the manifest has no such flag or it is not Boolean.
    public init(manifest: Manifest, key: String, keep: Bool) throws(ToolingError) {
        guard let flag = manifest.flag(forKey: key) else {
            throw ToolingError(.failed, "There is no flag '\(key)' in the manifest.")
        }
        guard flag.definition.type == .boolean else {
            throw ToolingError(
                .failed,
                "'\(key)' is \(flag.definition.type == .integer ? "an" : "a") \(flag.definition.type) value, not a Boolean flag; only Boolean flags can be kept on or off.")
        }
        self.manifest = manifest
        self.key = key
        self.keep = keep
    }

    /// Works out every change without writing anything.
    public func plan(files: [String]) throws(ToolingError) -> FlagRemovalPlan {
        let caseName = SwiftNames.bareIdentifier(forKey: key)
        var edits: [FlagRemovalPlan.FileEdit] = []
        var rewritten: [(path: String, text: String)] = []
        for path in files {
            let original = try SwiftSourceFiles.read(path)
            let rewriter = FlagRemovalRewriter(caseName: caseName, key: key, keep: keep)
            let text = rewriter.rewrite(source: original)
            rewritten.append((path, text))
            if text != original {
                edits.append(FlagRemovalPlan.FileEdit(path: path, before: original, after: text, notes: rewriter.notes))
            }
        }
        var notes: [String] = []
        var updated = manifest
        updated.flags.removeAll { $0.key == key }
        for index in updated.flags.indices {
            let other = updated.flags[index].definition
            if other.requires.contains(key) {
                updated.flags[index].definition.requires.removeAll { $0 == key }
                if !keep {
                    notes.append("'\(other.key)' required '\(key)', which is now always off: review whether '\(other.key)' should go too.")
                }
            }
            if other.conflicts.contains(key) {
                updated.flags[index].definition.conflicts.removeAll { $0 == key }
                if keep {
                    notes.append("'\(other.key)' conflicted with '\(key)', which is now always on: review whether '\(other.key)' should go too.")
                }
            }
        }
        let remaining = ReferenceFinder(manifest: manifest).scan(sources: rewritten).references(toKey: key)
        return FlagRemovalPlan(key: key, keep: keep, edits: edits, manifest: updated, remaining: remaining, notes: notes)
    }
}
