#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

/// The debug menu: the flags' status (build configuration, remote state, diagnostics, the
/// environment switcher), then every flag with its value, winning layer, user preference and
/// overridden mark; search, a phase filter, an "overridden only" filter, grouping by owner or
/// phase, typed editors, clear one, reset all (after a confirmation), and sharing and importing
/// the overrides as the JSON the `flags` command reads.
///
/// A thin view over ``FlagDebugModel``, which holds the logic (and is tested on every platform).
/// Each view body reads one observed value of the model (``FlagDebugModel/list(_:)``,
/// ``FlagDebugModel/status``), so the menu redraws on every change it shows.
///
/// ```swift
/// .sheet(isPresented: $showsFlags) {
///     NavigationStack {
///         FlagDebugView(flags, choices: [FlagChoices(AppConfig.composerStyle)], remote: loader)
///     }
/// }
/// ```
///
/// Or let `.flagDebugMenu(_:isPresented:)` or `.flagDebugMenu(_:openedBy:)` present
/// it, with its own navigation stack and a Done button.
public struct FlagDebugView<Key: FeatureFlagKey>: View {
    private let model: FlagDebugModel
    private let environments: FlagDebugEnvironmentSwitcher?
    @State private var filter = FlagDebugFilter()
    @State private var confirmsReset = false
    @State private var importsOverrides = false

    /// A menu over `flags`.
    ///
    /// - Parameters:
    ///   - choices: the cases of enum-like values, for pickers; others are edited as text.
    ///   - remote: the remote loader (`RemoteConfigurationLoader`), to show its state.
    ///   - environments: the environments the app can switch between (FeatureFlagsRemote's
    ///     `AppEnvironments.debugSwitcher(current:select:)`), or `nil` for no switcher.
    public init(
        _ flags: FeatureFlagManager<Key>, choices: [FlagChoices] = [],
        remote: (any FlagDebugRemoteStatusReporting)? = nil, environments: FlagDebugEnvironmentSwitcher? = nil
    ) {
        self.model = FlagDebugModel(flags, choices: choices, remote: remote)
        self.environments = environments
    }

    /// The searchable, filterable flag list with its status and Reset All.
    public var body: some View {
        let list = model.list(filter)
        List {
            FlagDebugStatusSection(model: model, environments: environments)
            Section("Overrides") {
                FlagDebugShareButton(model: model)
                Button("Import Overrides…", systemImage: "square.and.arrow.down") { importsOverrides = true }
                    .disabled(!list.overridesPermitted)
                Button("Reset All Overrides…", systemImage: "arrow.counterclockwise", role: .destructive) {
                    confirmsReset = true
                }
                .disabled(!list.canResetAll)
            }
            Section("Filter") {
                FlagDebugFilterControls(filter: $filter, phases: list.phases)
            }
            if list.isEmpty {
                Text(filter.overriddenOnly ? "No overridden flag matches." : "No flag matches.")
                    .foregroundStyle(.secondary)
            }
            ForEach(list.sections) { section in
                Section(section.title) {
                    ForEach(section.rows) { row in
                        FlagDebugRowView(row: row, model: model)
                    }
                }
            }
        }
        .searchable(text: $filter.search)
        .navigationTitle("Feature Flags")
        .confirmationDialog("Reset All Overrides", isPresented: $confirmsReset, titleVisibility: .visible) {
            Button("Reset All", role: .destructive) { model.resetAll() }
            Button("Cancel", role: .cancel) {}
        } message: {
            Text(list.resetAllConfirmation)
        }
        .sheet(isPresented: $importsOverrides) {
            NavigationStack {
                FlagDebugImportView(model: model)
            }
        }
    }
}

/// The list's filters: phase, overridden only, grouping.
struct FlagDebugFilterControls: View {
    @Binding var filter: FlagDebugFilter
    let phases: [Int]

    var body: some View {
        Picker("Phase", selection: $filter.phase) {
            Text("All phases").tag(Int?.none)
            ForEach(phases, id: \.self) { phase in
                Text("Phase \(phase)").tag(Int?.some(phase))
            }
        }
        Toggle("Overridden only", isOn: $filter.overriddenOnly)
        Picker("Group by", selection: $filter.grouping) {
            ForEach(FlagDebugGrouping.allCases) { grouping in
                Text(grouping.displayName).tag(grouping)
            }
        }
    }
}

/// Shares the overrides as an override document, where the platform has a share sheet; tvOS
/// has none, so the menu shows the text instead.
struct FlagDebugShareButton: View {
    let model: FlagDebugModel

    var body: some View {
        let export = model.exportOverrides()
        #if os(tvOS)
        LabeledContent("Overrides to share") {
            Text(export.text).font(.caption).monospaced()
        }
        #else
        ShareLink(
            item: export.text, subject: Text("Feature flag overrides"),
            message: Text("\(export.summary). Import them in the debug menu, or use them with `flags --overrides`.")
        ) {
            Label("Share Overrides", systemImage: "square.and.arrow.up")
        }
        .disabled(export.isEmpty)
        #endif
    }
}

#Preview("Debug menu") {
    NavigationStack {
        FlagDebugView(PreviewFlags.manager(), environments: PreviewFlags.environments)
    }
}

#Preview("Release build") {
    NavigationStack {
        FlagDebugView(PreviewFlags.manager(.release))
    }
}
#endif
