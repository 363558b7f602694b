public import FlagEvaluation

extension JSONValue {
    /// `self` with the JSON Merge Patch `patch` applied (RFC 7396): an object patch sets each of
    /// its members, merging objects member by member, and removes the members it sets to `null`;
    /// any other patch replaces the value whole.
    ///
    /// ```swift
    /// JSONValue(["enabled": true, "defaultVariant": "on"]).merging(patch: ["enabled": false])
    /// // {"enabled": false, "defaultVariant": "on"}
    /// ```
    public func merging(patch: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        var members: [String: JSONValue] = if case .object(let current) = self { current } else { [:] }
        for (name, change) in changes {
            if change == .null {
                members[name] = nil
            } else {
                members[name] = (members[name] ?? .null).merging(patch: change)
            }
        }
        return .object(members)
    }
}
