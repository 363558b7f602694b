extension FlagDebugModel {
    /// What the flag list shows for `filter`: the rows that pass it, grouped, with the phase
    /// picker's choices and the state of Reset All. Observed: a view body that reads it redraws
    /// when any value, layer or override changes.
    ///
    /// ```swift
    /// let list = menu.list(FlagDebugFilter(search: "chat", overriddenOnly: true, grouping: .owner))
    /// for section in list.sections { print(section.title, section.rows.map(\.key)) }
    /// ```
    public func list(_ filter: FlagDebugFilter = FlagDebugFilter()) -> FlagDebugList {
        let overrides = engine.overrides
        var rows = rows(matching: filter.search, phase: filter.phase)
        if filter.overriddenOnly { rows.removeAll { !$0.isOverridden } }
        return FlagDebugList(
            sections: Self.group(rows, by: filter.grouping), phases: phases, overrideCount: overrides.count,
            overridesPermitted: engine.overridesPermitted)
    }

    /// Groups rows into sections, keeping registry order inside each.
    static func group(_ rows: [FlagDebugRow], by grouping: FlagDebugGrouping) -> [FlagDebugSection] {
        switch grouping {
        case .ungrouped:
            return [FlagDebugSection(title: "Flags", rows: rows)]
        case .owner:
            let owners = Set(rows.compactMap(\.owner)).sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
            var sections = owners.map { owner in FlagDebugSection(title: owner, rows: rows.filter { $0.owner == owner }) }
            let unowned = rows.filter { $0.owner == nil }
            if !unowned.isEmpty { sections.append(FlagDebugSection(title: "No owner", rows: unowned)) }
            return sections
        case .phase:
            let phases = Set(rows.compactMap(\.phase)).sorted()
            var sections = phases.map { phase in FlagDebugSection(title: "Phase \(phase)", rows: rows.filter { $0.phase == phase }) }
            let unphased = rows.filter { $0.phase == nil }
            if !unphased.isEmpty { sections.append(FlagDebugSection(title: "No phase", rows: unphased)) }
            return sections
        }
    }

    /// Does what a row's action says (see ``FlagDebugRow/actions``).
    ///
    /// - Throws: ``FlagOverrideError`` when the engine refuses (an unknown flag, overrides not
    ///   permitted, a flag that is not user-togglable).
    public func perform(_ action: FlagDebugRowAction, on row: FlagDebugRow) throws(FlagOverrideError) {
        switch action {
        case .clearOverride: try engine.setOverride(nil, forKey: row.key)
        case .clearUserPreference: try engine.setUserPreference(nil, forKey: row.key)
        }
    }
}

/// What a debug-menu row offers besides its editor. The SwiftUI menu shows the same list as a
/// context menu and as swipe actions, so every platform reaches each one (watchOS has no
/// context menus, tvOS no swipe actions).
public enum FlagDebugRowAction: String, Sendable, Hashable, CaseIterable, Identifiable {
    /// Clears the local override.
    case clearOverride
    /// Clears the user's preference for a user-togglable flag.
    case clearUserPreference

    /// The action's raw value, for lists and buttons.
    public var id: String { rawValue }

    /// The button's title.
    public var title: String {
        switch self {
        case .clearOverride: "Clear Override"
        case .clearUserPreference: "Clear User Preference"
        }
    }

    /// The button's SF Symbol.
    public var systemImage: String {
        switch self {
        case .clearOverride: "arrow.uturn.backward"
        case .clearUserPreference: "person.crop.circle.badge.xmark"
        }
    }
}

extension FlagDebugRow {
    /// The actions that apply now: clearing the override when one is set, clearing the user's
    /// preference when there is one.
    public var actions: [FlagDebugRowAction] {
        var actions: [FlagDebugRowAction] = []
        if isOverridden { actions.append(.clearOverride) }
        if isUserTogglable, userPreference != nil { actions.append(.clearUserPreference) }
        return actions
    }
}
