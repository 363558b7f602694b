/// What a Boolean flag declares about itself: how it reads in menus, who owns it, where it is in
/// its lifecycle, and how its default is decided.
///
/// Returned by ``FeatureFlagKey/metadata`` for each case of the app's flag enum:
///
/// ```swift
/// var metadata: FlagMetadata<AppFlag> {
///     switch self {
///     case .sidebarRedesign:
///         FlagMetadata("Sidebar redesign", description: "The new sidebar", phase: 1,
///                      owner: "ipad-team", removalTarget: "3.0", requires: [.navigationSplitView])
///     }
/// }
/// ```
public struct FlagMetadata<Flag: Hashable & Sendable>: Sendable {
    /// A short name for menus.
    public var displayName: String
    /// What the flag changes, in a sentence.
    public var description: String
    /// The development phase (0 is the earliest); drives ``PhasePolicy``.
    public var phase: Int?
    /// The team or person responsible for the flag and its removal.
    public var owner: String?
    /// The value when no other layer says anything.
    public var defaultValue: Bool
    /// The app version by which the flag should be gone, such as `"3.0"`.
    public var removalTarget: String?
    /// The build configurations in which the flag is on by default; when set, the phase policy
    /// does not apply and every other configuration defaults to off.
    public var enabledIn: Set<BuildConfiguration>?
    /// Flags that must be on for this one to be on.
    public var requires: [Flag]
    /// Flags that are never on together with this one.
    public var conflicts: [Flag]
    /// Whether users may switch the flag themselves (a user preference).
    public var isUserTogglable: Bool
    /// How the user's preference combines with the other layers.
    public var checking: CheckingMode

    /// A flag's metadata; each parameter sets the member of the same name, and everything but the display name is optional.
    public init(
        _ displayName: String,
        description: String = "",
        phase: Int? = nil,
        owner: String? = nil,
        default defaultValue: Bool = false,
        removalTarget: String? = nil,
        enabledIn: Set<BuildConfiguration>? = nil,
        requires: [Flag] = [],
        conflicts: [Flag] = [],
        userTogglable isUserTogglable: Bool = false,
        checking: CheckingMode = .buildAndUser
    ) {
        self.displayName = displayName
        self.description = description
        self.phase = phase
        self.owner = owner
        self.defaultValue = defaultValue
        self.removalTarget = removalTarget
        self.enabledIn = enabledIn
        self.requires = requires
        self.conflicts = conflicts
        self.isUserTogglable = isUserTogglable
        self.checking = checking
    }
}
