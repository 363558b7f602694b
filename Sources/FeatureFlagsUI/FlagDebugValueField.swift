#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

#if canImport(UIKit)
import UIKit
#endif

/// A number, text or JSON field of the debug menu. Commits on Return, when it loses focus, and
/// from its keyboard toolbar's Done (the decimal keypad has no Return key), which also offers
/// a minus sign for numbers; says when its text is not applied yet. The logic is
/// ``FlagDebugFieldDraft``'s.
struct FlagDebugValueField: View {
    let row: FlagDebugRow
    let model: FlagDebugModel
    @State private var draft: FlagDebugFieldDraft
    @FocusState private var isFocused: Bool

    init(row: FlagDebugRow, model: FlagDebugModel) {
        self.row = row
        self.model = model
        self._draft = State(initialValue: FlagDebugFieldDraft(row))
    }

    var body: some View {
        VStack(alignment: .trailing, spacing: 2) {
            TextField(row.isSensitive ? "<REDACTED>" : row.displayName, text: $draft.text)
                .multilineTextAlignment(.trailing)
                .monospaced()
                .focused($isFocused)
                .onSubmit { _ = draft.commit(with: model) }
                #if os(iOS) || os(visionOS)
                .keyboardType(keyboard)
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
                #endif
                #if os(iOS)
                .toolbar {
                    if isFocused {
                        ToolbarItemGroup(placement: .keyboard) {
                            if draft.isNumeric {
                                Button("−/+") { draft.toggleSign() }
                                    .accessibilityLabel("Change sign")
                            }
                            Spacer()
                            Button("Done") {
                                _ = draft.commit(with: model)
                                isFocused = false
                            }
                        }
                    }
                }
                #endif
            if let notice = draft.notice {
                Text(notice)
                    .font(.caption2)
                    .foregroundStyle(draft.problem == nil ? Color.orange : Color.red)
            }
        }
        .onChange(of: isFocused) { _, focused in
            _ = draft.focusChanged(isFocused: focused, with: model)
        }
        .onChange(of: row) { _, newRow in
            draft.rowChanged(newRow)
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
}

#Preview("Value fields") {
    let model = FlagDebugModel(PreviewFlags.manager())
    Form {
        ForEach(model.rows().filter { $0.editor == .decimal || $0.editor == .integer || $0.editor == .text }) { row in
            FlagDebugValueField(row: row, model: model)
        }
    }
}
#endif
