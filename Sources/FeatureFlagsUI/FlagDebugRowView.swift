#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

#if canImport(UIKit)
import UIKit
#endif

/// One row of the debug menu: the flag, its typed editor, and a context menu (and, where the
/// platform has them, swipe actions) to clear its override.
public struct FlagDebugRowView: View {
    let row: FlagDebugRow
    let model: FlagDebugModel
    @State private var text: String
    @State private var problem: String?

    public init(row: FlagDebugRow, model: FlagDebugModel) {
        self.row = row
        self.model = model
        self._text = State(initialValue: row.editText)
    }

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
        .onChange(of: row.editText) { _, newValue in
            text = newValue
            problem = nil
        }
        #if !os(watchOS)
        .contextMenu { actions }
        #endif
        #if !os(tvOS)
        .swipeActions {
            if row.isOverridden {
                Button("Clear") { clearOverride() }
            }
        }
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
                TextField(row.isSensitive ? "<REDACTED>" : row.displayName, text: $text)
                    .multilineTextAlignment(.trailing)
                    .monospaced()
                    .onSubmit { setOverride(parsing: text) }
                    #if os(iOS) || os(visionOS)
                    .keyboardType(keyboard)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    #endif
            } else {
                Text(row.displayValue).monospaced()
            }
        }
    }

    /// The context menu: clear this override, clear the user's preference.
    @ViewBuilder private var actions: some View {
        Button("Clear Override", systemImage: "arrow.uturn.backward") { clearOverride() }
            .disabled(!row.isOverridden)
        if row.isUserTogglable {
            Button("Clear User Preference", systemImage: "person.crop.circle.badge.xmark") {
                do throws(FlagOverrideError) {
                    try model.setUserPreference(nil, forKey: row.key)
                    problem = nil
                } catch {
                    problem = error.description
                }
            }
            .disabled(row.userPreference == nil)
        }
    }

    private func clearOverride() {
        do throws(FlagOverrideError) {
            try model.clearOverride(forKey: row.key)
            problem = nil
        } catch {
            problem = error.description
        }
    }

    /// Sets the override from an editor's text; the model's validation message replaces the
    /// last one, success clears it.
    private func setOverride(parsing text: String) {
        do throws(FlagDebugInputError) {
            try model.setOverride(parsing: text, forKey: row.key)
            problem = nil
        } catch {
            problem = error.message
        }
    }

    #if os(iOS) || os(visionOS)
    private var keyboard: UIKeyboardType {
        switch row.editor {
        case .integer: .numbersAndPunctuation
        case .decimal: .decimalPad
        default: .default
        }
    }
    #endif

    private var caption: String {
        var parts = [row.key, "from \(row.layer)"]
        if let preference = row.displayUserPreference { parts.append("user: \(preference)") }
        if let phase = row.phase { parts.append("phase \(phase)") }
        if let owner = row.owner { parts.append(owner) }
        if let target = row.removalTarget { parts.append("remove by \(target)") }
        return parts.joined(separator: " · ")
    }
}
#endif
