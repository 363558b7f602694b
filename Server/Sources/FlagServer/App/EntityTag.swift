import Foundation

/// `If-None-Match` evaluation (RFC 9110, §13.1.2): the weak comparison of entity tags (§8.8.3.2),
/// under which `W/"a"` matches `"a"` and `W/"a"`, and `*` matches any current representation.
enum EntityTag {
    /// Whether the `If-None-Match` field value `field` matches the current ETag `current`.
    static func anyMatches(_ field: String?, _ current: String) -> Bool {
        guard let field else { return false }
        let opaque = opaqueTag(current)
        for member in field.split(separator: ",") {
            let tag = member.trimmingCharacters(in: .whitespaces)
            if tag == "*" || opaqueTag(tag) == opaque { return true }
        }
        return false
    }

    /// The opaque tag without the weakness indicator: `W/"a"` and `"a"` are both `"a"`.
    static func opaqueTag(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }
}
