#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

/// The debug menu: the flags' status (build configuration, remote state, diagnostics), then
/// every flag with its value, winning layer, user preference and overridden mark; search, a
/// phase filter, typed editors, clear one and reset all.
///
/// A thin view over ``FlagDebugModel``, which holds the logic (and is tested on every platform).
///
/// ```swift
/// .sheet(isPresented: $showsFlags) {
///     NavigationStack {
///         FlagDebugView(flags, choices: [FlagChoices(AppConfig.composerStyle)], remote: loader)
///     }
/// }
/// ```
public struct FlagDebugView<Key: FeatureFlagKey>: View {
    private let flags: FeatureFlagManager<Key>
    private let model: FlagDebugModel
    @State private var search = ""
    @State private var phase: Int?

    /// A menu over `flags`.
    ///
    /// - Parameters:
    ///   - choices: the cases of enum-like values, for pickers; others are edited as text.
    ///   - remote: the remote loader (`RemoteConfigurationLoader`), to show its state.
    public init(
        _ flags: FeatureFlagManager<Key>, choices: [FlagChoices] = [],
        remote: (any FlagDebugRemoteStatusReporting)? = nil
    ) {
        self.flags = flags
        self.model = FlagDebugModel(flags, choices: choices, remote: remote)
    }

    public var body: some View {
        // Reading the snapshot registers the observation that redraws this view on changes.
        let _ = flags.snapshot
        List {
            FlagDebugStatusSection(model: model)
            Section("Flags") {
                Picker("Phase", selection: $phase) {
                    Text("All phases").tag(Int?.none)
                    ForEach(model.phases, id: \.self) { phase in
                        Text("Phase \(phase)").tag(Int?.some(phase))
                    }
                }
                ForEach(model.rows(matching: search, phase: phase)) { row in
                    FlagDebugRowView(row: row, model: model)
                }
            }
        }
        .searchable(text: $search)
        .navigationTitle("Feature Flags")
        .toolbar {
            Button("Reset All", role: .destructive) { model.resetAll() }
                .disabled(!model.engine.overridesPermitted)
        }
    }
}
#endif
