/// What the debug menu's flag list shows: a search, a phase, only overridden flags, and how
/// the rows are grouped. The SwiftUI menu keeps one in its state and passes it to
/// ``FlagDebugModel/list(_:)``.
public struct FlagDebugFilter: Sendable, Hashable {
    /// Case-insensitive text matched against key, display name and owner; empty matches all.
    public var search: String
    /// The phase to show, or `nil` for every phase.
    public var phase: Int?
    /// Whether to show only flags with an override in effect.
    public var overriddenOnly: Bool
    /// How rows are grouped into sections.
    public var grouping: FlagDebugGrouping

    /// A filter; by default it lets every flag through, ungrouped.
    public init(
        search: String = "", phase: Int? = nil, overriddenOnly: Bool = false, grouping: FlagDebugGrouping = .ungrouped
    ) {
        self.search = search
        self.phase = phase
        self.overriddenOnly = overriddenOnly
        self.grouping = grouping
    }
}

/// How the debug menu groups its rows.
public enum FlagDebugGrouping: String, Sendable, Hashable, CaseIterable, Identifiable {
    /// One section, in registry order.
    case ungrouped
    /// A section per owner (by name), flags without an owner last.
    case owner
    /// A section per phase (ascending), flags without a phase last.
    case phase

    /// The grouping's raw value, for pickers.
    public var id: String { rawValue }

    /// The name a picker shows.
    public var displayName: String {
        switch self {
        case .ungrouped: "None"
        case .owner: "Owner"
        case .phase: "Phase"
        }
    }
}

/// A titled group of rows in the debug menu.
public struct FlagDebugSection: Sendable, Hashable, Identifiable {
    /// Stable across redraws: the title.
    public var id: String { title }
    /// `Flags`, an owner's name, `Phase 2`, `No owner`, `No phase`.
    public var title: String
    /// The section's rows, in registry order.
    public var rows: [FlagDebugRow]

    /// A section titled `title` holding `rows`.
    public init(title: String, rows: [FlagDebugRow]) {
        self.title = title
        self.rows = rows
    }
}

/// Everything the debug menu's flag list shows, read at once by its view body: the sections,
/// the choices of its pickers and the state of Reset All.
public struct FlagDebugList: Sendable, Hashable {
    /// The rows that pass the filter, grouped.
    public var sections: [FlagDebugSection]
    /// The phases in the registry, ascending, for the phase picker.
    public var phases: [Int]
    /// How many overrides are in effect (over every flag, not only the ones shown).
    public var overrideCount: Int
    /// Whether overrides can be set in this configuration.
    public var overridesPermitted: Bool

    /// Whether Reset All has anything to do: it is disabled when nothing is overridden.
    public var canResetAll: Bool { overridesPermitted && overrideCount > 0 }

    /// Whether no row passed the filter.
    public var isEmpty: Bool { sections.allSatisfy(\.rows.isEmpty) }

    /// What Reset All's confirmation asks, naming how many overrides go.
    public var resetAllConfirmation: String {
        overrideCount == 1
            ? "Clear the 1 override? Every flag goes back to its remote, preference or build value."
            : "Clear all \(overrideCount) overrides? Every flag goes back to its remote, preference or build value."
    }

    /// A list as the model builds it.
    public init(sections: [FlagDebugSection], phases: [Int], overrideCount: Int, overridesPermitted: Bool) {
        self.sections = sections
        self.phases = phases
        self.overrideCount = overrideCount
        self.overridesPermitted = overridesPermitted
    }
}
