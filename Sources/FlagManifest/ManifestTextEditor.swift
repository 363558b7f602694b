import FeatureFlags

/// Edits manifest text in place, keeping everything it does not change as it was written
/// (formatting, order, custom fields).
public enum ManifestTextEditor {
    /// The text without the flag `key`, and with `key` removed from the other flags'
    /// `requires` and `conflicts`; `nil` when the text is not a manifest that has the flag.
    public static func removingFlag(_ key: String, from text: String) -> String? {
        guard let root = try? JSONNodeParser.parse(text), let rootMembers = root.members,
            let flags = rootMembers.last(where: { $0.key == "flags" })?.value.members,
            let index = flags.firstIndex(where: { $0.key == key })
        else { return nil }
        var edits: [(range: Range<Int>, replacement: String)] = [(removal(of: index, in: flags), "")]
        for (flagIndex, flag) in flags.enumerated() where flagIndex != index {
            guard let fields = flag.value.members, let metadata = fields.last(where: { $0.key == "metadata" })?.value.members
            else { continue }
            for (fieldIndex, field) in metadata.enumerated() where field.key == "requires" || field.key == "conflicts" {
                guard case .string(let list) = field.value else { continue }
                let keys = list.split(separator: ",").map { $0.trimmingCharacters() }
                guard keys.contains(key) else { continue }
                let kept = keys.filter { $0 != key && !$0.isEmpty }
                if kept.isEmpty {
                    edits.append((removal(of: fieldIndex, in: metadata), ""))
                } else {
                    edits.append((field.valueStart..<field.valueEnd, FlagValue.string(kept.joined(separator: ",")).jsonString))
                }
            }
        }
        var bytes = Array(text.utf8)
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.replacement.utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes to delete to remove member `index` of an object, with its separating comma.
    private static func removal(of index: Int, in members: [JSONNode.Member]) -> Range<Int> {
        let member = members[index]
        if index > 0 { return members[index - 1].valueEnd..<member.valueEnd }
        if members.count > 1 { return member.keyStart..<members[1].keyStart }
        return member.keyStart..<member.valueEnd
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
