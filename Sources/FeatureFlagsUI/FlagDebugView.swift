#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

/// The debug menu: every flag with its value, winning layer and overridden mark; search, a
/// phase filter, toggles for Boolean flags, clear one and reset all.
///
/// A thin view over ``FlagDebugModel``, which holds the logic (and is tested on every platform).
///
/// ```swift
/// .sheet(isPresented: $showsFlags) { NavigationStack { FlagDebugView(flags) } }
/// ```
public struct FlagDebugView<Key: FeatureFlagKey>: View {
    private let flags: FeatureFlagManager<Key>
    @State private var search = ""
    @State private var phase: Int?

    public init(_ flags: FeatureFlagManager<Key>) {
        self.flags = flags
    }

    public var body: some View {
        let model = FlagDebugModel(flags)
        // Reading the snapshot registers the observation that redraws this view on changes.
        let _ = flags.snapshot
        List {
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
        .searchable(text: $search)
        .navigationTitle("Feature Flags")
        .toolbar {
            Button("Reset All", role: .destructive) { model.resetAll() }
                .disabled(!model.engine.overridesPermitted)
        }
    }
}

/// One row of the debug menu.
public struct FlagDebugRowView: View {
    let row: FlagDebugRow
    let model: FlagDebugModel

    public init(row: FlagDebugRow, model: FlagDebugModel) {
        self.row = row
        self.model = model
    }

    public var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack {
                Text(row.displayName).font(.headline)
                if row.isOverridden {
                    Image(systemName: "pencil.circle.fill").accessibilityLabel("Overridden")
                }
                Spacer()
                if row.type == .boolean {
                    Toggle(row.displayName, isOn: Binding(
                        get: { row.value == .bool(true) },
                        set: { try? model.setOverride(.bool($0), forKey: row.key) }))
                    .labelsHidden()
                    .disabled(!row.canOverride)
                } else {
                    Text(row.displayValue).monospaced()
                }
            }
            if !row.description.isEmpty {
                Text(row.description).font(.caption).foregroundStyle(.secondary)
            }
            Text(caption).font(.caption2).foregroundStyle(.secondary)
            if let note = row.note {
                Text(note).font(.caption2).foregroundStyle(.orange)
            }
        }
        .swipeActions {
            if row.isOverridden {
                Button("Clear") { try? model.clearOverride(forKey: row.key) }
            }
        }
    }

    private var caption: String {
        var parts = [row.key, "from \(row.layer)"]
        if let phase = row.phase { parts.append("phase \(phase)") }
        if let owner = row.owner { parts.append(owner) }
        if let target = row.removalTarget { parts.append("remove by \(target)") }
        return parts.joined(separator: " · ")
    }
}
#endif
