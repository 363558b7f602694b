import Foundation
import FlagEvaluation

/// A readable before/after diff of two audit views: one line per changed leaf, by path
/// (`settings.enabled: true → false`).
struct AuditDiff: Sendable, Hashable {
    struct Line: Sendable, Hashable {
        var path: String
        var before: String?
        var after: String?
    }

    var lines: [Line]

    init(before: JSONValue?, after: JSONValue?) {
        var old: [String: JSONValue] = [:]
        var new: [String: JSONValue] = [:]
        Self.flatten(before, into: &old, path: "")
        Self.flatten(after, into: &new, path: "")
        lines = Set(old.keys).union(new.keys).sorted().compactMap { path in
            guard old[path] != new[path] else { return nil }
            return Line(path: path, before: old[path].map { $0.serialized() }, after: new[path].map { $0.serialized() })
        }
    }

    /// The objects of a flag view that become paths; everything else (a rule, a segment, a
    /// value) is a leaf, because a rule reads better whole.
    static let expanded: Set<String> = ["flag", "settings", "metadata", "variants"]

    static func flatten(_ value: JSONValue?, into result: inout [String: JSONValue], path: String) {
        guard let value else { return }
        let name = path.split(separator: ".").last.map(String.init) ?? ""
        let isFlagView = path.isEmpty && (value["flag"] != nil || value["settings"] != nil || value["key"] != nil)
        if case .object(let members) = value, !members.isEmpty, isFlagView || expanded.contains(name) {
            for (key, member) in members {
                flatten(member, into: &result, path: path.isEmpty ? key : path + "." + key)
            }
        } else {
            result[path.isEmpty ? "(value)" : path] = value
        }
    }
}

/// Comparing app versions for "due for removal": numeric dot-separated components, a missing
/// component counts as 0, anything after the first non-digit of a component is ignored.
enum AppVersion {
    static func components(_ text: String) -> [Int]? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 8 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            let digits = part.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let number = Int(digits) else { return nil }
            numbers.append(number)
        }
        return numbers
    }

    /// Whether `target` is at or below `version` (the flag should be gone in `version`).
    static func isDue(removalTarget target: String?, at version: String) -> Bool {
        guard let target, let lhs = components(target), let rhs = components(version) else { return false }
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            if left != right { return left < right }
        }
        return true
    }
}
