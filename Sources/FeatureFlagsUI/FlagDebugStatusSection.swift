#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

/// The debug menu's status: build configuration, overrides, remote state and diagnostics.
struct FlagDebugStatusSection: View {
    let model: FlagDebugModel

    var body: some View {
        let status = model.status
        Section("Status") {
            LabeledContent("Build", value: status.buildConfiguration.map { "\($0)" } ?? "not configured")
            LabeledContent("Overrides", value: status.overridesPermitted ? "permitted" : "not permitted")
            LabeledContent("Remote values", value: status.remoteSource ?? "none")
            if let remote = status.remote {
                LabeledContent("Remote state", value: remote.state)
                if let lastFetch = remote.lastFetch {
                    LabeledContent("Last fetch") { Text(lastFetch, style: .relative) }
                }
                if let error = remote.error {
                    Text(error).font(.caption).foregroundStyle(.red)
                }
                if let notice = remote.notice {
                    Text(notice).font(.caption).foregroundStyle(.secondary)
                }
            }
            if status.hasPendingRemoteValues {
                Button("Apply Waiting Remote Values") { model.applyPendingRemoteValues() }
            }
            Button("Refresh Remote Values") {
                Task { await model.refreshRemoteValues() }
            }
        }
        if !status.diagnostics.isEmpty {
            Section("Diagnostics") {
                ForEach(Array(status.diagnostics.enumerated()), id: \.offset) { _, diagnostic in
                    Text(diagnostic.message).font(.caption)
                }
            }
        }
    }
}
#endif
