#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

/// The debug menu's status: build configuration, overrides, remote state, last fetch and error,
/// waiting remote values, diagnostics, and the environment switcher.
///
/// Its body reads ``FlagDebugModel/status`` once: an observed read of the engine's status and
/// the remote loader's, so it redraws when remote values start waiting, a refresh fails, or
/// the loader's state changes.
struct FlagDebugStatusSection: View {
    let model: FlagDebugModel
    let environments: FlagDebugEnvironmentSwitcher?

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
                if let eventStream = remote.eventStream {
                    LabeledContent("Change stream", value: eventStream)
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
        if let environments {
            FlagDebugEnvironmentPicker(switcher: environments)
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

/// Picks the environment the app talks to; what a switch does is the app's
/// (``FlagDebugEnvironmentSwitcher``).
struct FlagDebugEnvironmentPicker: View {
    let switcher: FlagDebugEnvironmentSwitcher
    @State private var selection: String
    @State private var problem: String?

    init(switcher: FlagDebugEnvironmentSwitcher) {
        self.switcher = switcher
        self._selection = State(initialValue: switcher.current)
    }

    var body: some View {
        Section {
            Picker("Environment", selection: $selection) {
                ForEach(switcher.options) { option in
                    VStack(alignment: .leading) {
                        Text(option.name)
                        if let detail = option.detail {
                            Text(detail).font(.caption2).foregroundStyle(.secondary)
                        }
                    }
                    .tag(option.name)
                }
            }
            if let problem {
                Text(problem).font(.caption).foregroundStyle(.red)
            }
        } header: {
            Text("Environment")
        } footer: {
            Text(switcher.footnote)
        }
        .onChange(of: selection) { previous, chosen in
            do throws(FlagDebugEnvironmentError) {
                try switcher.select(chosen, from: previous)
                problem = nil
            } catch {
                problem = error.description
            }
        }
    }
}

#Preview("Status") {
    List {
        FlagDebugStatusSection(model: FlagDebugModel(PreviewFlags.manager()), environments: PreviewFlags.environments)
    }
}
#endif
