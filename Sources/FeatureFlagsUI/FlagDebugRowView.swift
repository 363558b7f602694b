#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

/// One row of the debug menu: the flag, its typed editor, and its actions (clear the override,
/// clear the user's preference) as a context menu and as swipe actions, so every platform has
/// them: watchOS has no context menus, tvOS no swipe actions.
public struct FlagDebugRowView: View {
    let row: FlagDebugRow
    let model: FlagDebugModel
    @State private var problem: String?

    /// The view of `row`, acting through `model`.
    public init(row: FlagDebugRow, model: FlagDebugModel) {
        self.row = row
        self.model = model
    }

    /// The flag's name, value and winning layer, its editor, and its clear actions.
    public var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack {
                Text(row.displayName).font(.headline)
                if row.isOverridden {
                    Image(systemName: "pencil.circle.fill").accessibilityLabel("Overridden")
                }
                Spacer()
                editor
            }
            if !row.description.isEmpty {
                Text(row.description).font(.caption).foregroundStyle(.secondary)
            }
            Text(caption).font(.caption2).foregroundStyle(.secondary)
            if let note = row.note {
                Text(note).font(.caption2).foregroundStyle(.orange)
            }
            if let problem {
                Text(problem).font(.caption2).foregroundStyle(.red)
            }
        }
        #if !os(watchOS)
        .contextMenu { actions }
        #endif
        #if !os(tvOS)
        .swipeActions { actions }
        #endif
    }

    /// The editor the model chose for the row's type.
    @ViewBuilder private var editor: some View {
        switch row.editor {
        case .toggle:
            Toggle(row.displayName, isOn: Binding(
                get: { row.value == .bool(true) },
                set: { @MainActor on in setOverride(parsing: on ? "true" : "false") }))
            .labelsHidden()
            .disabled(!row.canOverride)
        case .choice(let values):
            Picker(row.displayName, selection: Binding(
                get: { row.value },
                set: { @MainActor value in setOverride(parsing: FlagDebugModel.editText(value)) })) {
                ForEach(values, id: \.self) { value in
                    Text(FlagDebugModel.display(value, sensitive: row.isSensitive)).tag(value)
                }
            }
            .labelsHidden()
            .disabled(!row.canOverride)
        case .integer, .decimal, .text, .json:
            if row.canOverride {
                FlagDebugValueField(row: row, model: model)
            } else {
                Text(row.displayValue).monospaced()
            }
        }
    }

    /// The row's actions, from ``FlagDebugRow/actions``.
    @ViewBuilder private var actions: some View {
        ForEach(row.actions) { action in
            Button(action.title, systemImage: action.systemImage, role: action == .clearOverride ? .destructive : nil) {
                do throws(FlagOverrideError) {
                    try model.perform(action, on: row)
                    problem = nil
                } catch {
                    problem = error.description
                }
            }
        }
    }

    /// Sets the override from a toggle or picker; the model's validation message replaces the
    /// last one, success clears it.
    private func setOverride(parsing text: String) {
        do throws(FlagDebugInputError) {
            try model.setOverride(parsing: text, forKey: row.key)
            problem = nil
        } catch {
            problem = error.message
        }
    }

    private var caption: String {
        var parts = [row.key, "from \(row.layer)"]
        if let preference = row.displayUserPreference { parts.append("user: \(preference)") }
        if let phase = row.phase { parts.append("phase \(phase)") }
        if let owner = row.owner { parts.append(owner) }
        if let target = row.removalTarget { parts.append("remove by \(target)") }
        return parts.joined(separator: " · ")
    }
}

#Preview("Rows") {
    let model = FlagDebugModel(PreviewFlags.manager())
    List {
        ForEach(model.rows()) { row in
            FlagDebugRowView(row: row, model: model)
        }
    }
}
#endif
