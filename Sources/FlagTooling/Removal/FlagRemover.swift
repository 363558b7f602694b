import FeatureFlags
import FlagManifest
import FlagServerClient
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
    /// The manifest declaring the flag.
    public let manifest: Manifest
    /// The key of the flag to remove.
    public let key: String
    /// Whether the flag stays on (`true`) or off.
    public let keep: Bool

    /// - Throws: ``ToolingError`` (failed) when the manifest has no such flag, it is not Boolean,
    ///   or removing it would change what another flag does (see ``affectedFlags(manifest:key:keep:)``).
    public init(manifest: Manifest, key: String, keep: Bool) throws(ToolingError) {
        guard let flag = manifest.flag(forKey: key) else {
            throw ToolingError(.failed, "There is no flag '\(key)' in the manifest.")
        }
        guard flag.definition.type == .boolean else {
            throw ToolingError(
                .failed,
                "'\(key)' is \(flag.definition.type.nameWithArticle) value, not a Boolean flag; only Boolean flags can be kept on or off.")
        }
        let affected = Self.affectedFlags(manifest: manifest, key: key, keep: keep)
        guard affected.isEmpty else {
            let reasons = affected.map { "'\($0.key)' \($0.reason), so it would always be off" }
            let commands = affected.map { "flags remove \($0.key) --keep off" }
            throw ToolingError(
                .failed,
                "Removing '\(key)' kept \(keep ? "on" : "off") would change other flags: \(reasons.joined(separator: "; ")). Remove \(affected.count == 1 ? "it" : "them") first, in this order: \(commands.joined(separator: ", then ")); or keep '\(key)' \(keep ? "off" : "on").")
        }
        self.manifest = manifest
        self.key = key
        self.keep = keep
    }

    /// The flags that removing `key` would force off, in the order to remove them (each before
    /// the flags it requires): with `keep` off, the flags that require it, and the flags that
    /// require those; with `keep` on, the flags that conflict with it, and the flags that
    /// require those. Removing `key` alone would make them switchable where they never were.
    public static func affectedFlags(manifest: Manifest, key: String, keep: Bool) -> [(key: String, reason: String)] {
        var forcedOff: [(key: String, reason: String)] = []
        var off: Set<String> = []
        if keep {
            for flag in manifest.flags where flag.key != key {
                let definition = flag.definition
                if definition.conflicts.contains(key) || manifest.flag(forKey: key)?.definition.conflicts.contains(flag.key) == true {
                    forcedOff.append((flag.key, "conflicts with '\(key)'"))
                    off.insert(flag.key)
                }
            }
        } else {
            off.insert(key)
        }
        // Flags requiring a flag that is always off are always off.
        var changed = true
        while changed {
            changed = false
            for flag in manifest.flags where flag.key != key && !off.contains(flag.key) {
                if let required = flag.definition.requires.first(where: off.contains) {
                    forcedOff.append((flag.key, "requires '\(required)'"))
                    off.insert(flag.key)
                    changed = true
                }
            }
        }
        // Dependents first: a flag can be removed once nothing left requires it.
        var ordered: [(key: String, reason: String)] = []
        var remaining = forcedOff
        while !remaining.isEmpty {
            let index = remaining.firstIndex { candidate in
                !remaining.contains { other in
                    other.key != candidate.key && manifest.flag(forKey: other.key)?.definition.requires.contains(candidate.key) == true
                }
            } ?? 0
            ordered.append(remaining.remove(at: index))
        }
        return ordered
    }

    /// Works out every change without writing anything.
    public func plan(files: [String]) throws(ToolingError) -> FlagRemovalPlan {
        let caseName = manifest.flag(forKey: key)?.bareSwiftIdentifier ?? SwiftNames.bareIdentifier(forKey: key)
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
        // What is left of the dependencies holds for every remaining flag: with the flag kept on
        // its dependents' requirement is always met; with it kept off no conflict with it can
        // happen (`init` refused the other cases).
        for index in updated.flags.indices {
            updated.flags[index].definition.requires.removeAll { $0 == key }
            updated.flags[index].definition.conflicts.removeAll { $0 == key }
        }
        if keep, let removed = manifest.flag(forKey: key), !removed.definition.requires.isEmpty {
            let required = removed.definition.requires.map { "'\($0)'" }.joined(separator: ", ")
            notes.append("'\(key)' required \(required); its code now runs whether or not \(removed.definition.requires.count == 1 ? "that flag is" : "those flags are") on.")
        }
        let remaining = ReferenceFinder(manifest: manifest).scan(sources: rewritten).references(toKey: key)
        return FlagRemovalPlan(key: key, keep: keep, edits: edits, manifest: updated, remaining: remaining, notes: notes)
    }
}
