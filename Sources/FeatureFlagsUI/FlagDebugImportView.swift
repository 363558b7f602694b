#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

/// Imports an override document someone shared (the JSON the `flags` command reads): paste it,
/// import, and read what was applied and what was skipped. The logic is
/// ``FlagDebugModel/importOverrides(fromJSON:)``'s.
struct FlagDebugImportView: View {
    let model: FlagDebugModel
    @Environment(\.dismiss) private var dismiss
    @State private var text = ""
    @State private var outcome: String?
    @State private var failed = false

    var body: some View {
        Form {
            Section {
                TextField(#"{"chat_view_redesign": true}"#, text: $text, axis: .vertical)
                    .monospaced()
                    .lineLimit(4...12)
                    #if os(iOS) || os(visionOS)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    #endif
            } footer: {
                Text("The overrides replace the current ones. Keys this app does not know are skipped.")
            }
            if let outcome {
                Text(outcome).font(.caption).foregroundStyle(failed ? Color.red : Color.primary)
            }
        }
        .navigationTitle("Import Overrides")
        .toolbar {
            ToolbarItem(placement: .cancellationAction) {
                Button("Close") { dismiss() }
            }
            ToolbarItem(placement: .confirmationAction) {
                Button("Import") {
                    do throws(FlagOverridesImportError) {
                        outcome = try model.importOverrides(fromJSON: text).summary
                        failed = false
                    } catch {
                        outcome = error.message
                        failed = true
                    }
                }
                .disabled(text.isEmpty)
            }
        }
    }
}

#Preview("Import") {
    NavigationStack {
        FlagDebugImportView(model: FlagDebugModel(PreviewFlags.manager()))
    }
}
#endif
