/// What a console user may do.
public enum ConsoleRole: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Sees every page; changes nothing.
    case viewer
    /// Also changes flags: settings, rollouts, the kill switch, revert.
    case editor
    /// Also manages tokens, console users and the order of environments.
    case admin

    var rank: Int {
        switch self {
        case .viewer: 0
        case .editor: 1
        case .admin: 2
        }
    }

    /// Orders roles by what they may do: viewer, then editor, then admin.
    public static func < (lhs: ConsoleRole, rhs: ConsoleRole) -> Bool { lhs.rank < rhs.rank }
}
