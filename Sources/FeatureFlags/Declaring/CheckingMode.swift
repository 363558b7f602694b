/// How a user-togglable flag combines the user's preference with the rest of the pipeline.
///
/// The names follow Firefox for iOS: `buildOnly` ignores the user, `userOnly` lets the user's
/// choice (when made) decide, and `buildAndUser` needs both on.
public enum CheckingMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Ignore the user's preference; the build, remote and default layers decide.
    case buildOnly
    /// The user's preference when set; otherwise the layers below decide.
    case userOnly
    /// On only when the layers below say on *and* the user has not switched it off.
    /// An unset preference counts as on.
    case buildAndUser
}
