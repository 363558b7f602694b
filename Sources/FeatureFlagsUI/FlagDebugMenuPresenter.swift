#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

#if os(iOS)
import UIKit
#endif

/// What opens the ready-made debug menu: a shake (iPhone and iPad) or a gesture the app
/// chooses. Gestures open it only outside release builds (``FlagDebugModel/opensOnGesture``).
public struct FlagDebugMenuTrigger: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case shake
        case longPress(minimumDuration: Double)
        case taps(Int)
    }

    let kind: Kind

    #if os(iOS)
    /// Shaking the device, as many iOS apps do for their debug menus. The shake reaches the
    /// menu while no text field is being edited.
    public static let shake = FlagDebugMenuTrigger(kind: .shake)
    #endif

    /// A long press anywhere on the view, held `minimumDuration` seconds.
    public static func longPress(minimumDuration: Double = 2) -> FlagDebugMenuTrigger {
        FlagDebugMenuTrigger(kind: .longPress(minimumDuration: minimumDuration))
    }

    /// `count` taps anywhere on the view (three by default, so ordinary taps go on working).
    public static func taps(_ count: Int = 3) -> FlagDebugMenuTrigger {
        FlagDebugMenuTrigger(kind: .taps(count))
    }
}

extension View {
    /// Presents the debug menu in a sheet with its own navigation stack and a Done button
    /// while `isPresented` is true: for an app that opens it from its own settings screen.
    ///
    /// ```swift
    /// SettingsView()
    ///     .flagDebugMenu(flags, isPresented: $showsFlags, remote: loader)
    /// ```
    public func flagDebugMenu<Key: FeatureFlagKey>(
        _ flags: FeatureFlagManager<Key>, isPresented: Binding<Bool>, choices: [FlagChoices] = [],
        remote: (any FlagDebugRemoteStatusReporting)? = nil, environments: FlagDebugEnvironmentSwitcher? = nil
    ) -> some View {
        sheet(isPresented: isPresented) {
            FlagDebugSheet(flags: flags, choices: choices, remote: remote, environments: environments)
        }
    }

    /// Presents the debug menu in a sheet with its own navigation stack when `trigger`
    /// happens: a shake, a long press or taps. Outside release builds only, so App Store users
    /// never open it by accident.
    ///
    /// ```swift
    /// ContentView()
    ///     .flagDebugMenu(flags, openedBy: .shake, remote: loader)
    /// ```
    public func flagDebugMenu<Key: FeatureFlagKey>(
        _ flags: FeatureFlagManager<Key>, openedBy trigger: FlagDebugMenuTrigger, choices: [FlagChoices] = [],
        remote: (any FlagDebugRemoteStatusReporting)? = nil, environments: FlagDebugEnvironmentSwitcher? = nil
    ) -> some View {
        modifier(
            FlagDebugMenuPresenter(
                flags: flags, trigger: trigger, choices: choices, remote: remote, environments: environments))
    }
}

/// The menu in a sheet: its own navigation stack and a Done button.
struct FlagDebugSheet<Key: FeatureFlagKey>: View {
    let flags: FeatureFlagManager<Key>
    let choices: [FlagChoices]
    let remote: (any FlagDebugRemoteStatusReporting)?
    let environments: FlagDebugEnvironmentSwitcher?
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            FlagDebugView(flags, choices: choices, remote: remote, environments: environments)
                .toolbar {
                    ToolbarItem(placement: .confirmationAction) {
                        Button("Done") { dismiss() }
                    }
                }
        }
    }
}

/// Opens the sheet on the trigger, when the flags' build configuration allows it.
private struct FlagDebugMenuPresenter<Key: FeatureFlagKey>: ViewModifier {
    let flags: FeatureFlagManager<Key>
    let trigger: FlagDebugMenuTrigger
    let choices: [FlagChoices]
    let remote: (any FlagDebugRemoteStatusReporting)?
    let environments: FlagDebugEnvironmentSwitcher?
    @State private var isPresented = false

    func body(content: Content) -> some View {
        triggered(content)
            .flagDebugMenu(
                flags, isPresented: $isPresented, choices: choices, remote: remote, environments: environments)
    }

    @ViewBuilder private func triggered(_ content: Content) -> some View {
        switch trigger.kind {
        case .shake:
            #if os(iOS)
            content.background { ShakeDetector { open() } }
            #else
            content
            #endif
        case .longPress(let minimumDuration):
            content.simultaneousGesture(LongPressGesture(minimumDuration: minimumDuration).onEnded { _ in open() })
        case .taps(let count):
            content.simultaneousGesture(TapGesture(count: count).onEnded { open() })
        }
    }

    private func open() {
        if FlagDebugModel(flags).opensOnGesture { isPresented = true }
    }
}

#if os(iOS)
/// A hidden view controller that hears shakes: it becomes first responder when it appears,
/// and shake motions reach it while no text field holds the keyboard.
private struct ShakeDetector: UIViewControllerRepresentable {
    let onShake: () -> Void

    func makeUIViewController(context: Context) -> ShakeDetectingController {
        ShakeDetectingController(onShake: onShake)
    }

    func updateUIViewController(_ controller: ShakeDetectingController, context: Context) {
        controller.onShake = onShake
    }
}

private final class ShakeDetectingController: UIViewController {
    var onShake: () -> Void

    init(onShake: @escaping () -> Void) {
        self.onShake = onShake
        super.init(nibName: nil, bundle: nil)
    }

    required init?(coder: NSCoder) { nil }

    override var canBecomeFirstResponder: Bool { true }

    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        becomeFirstResponder()
    }

    override func motionEnded(_ motion: UIEvent.EventSubtype, with event: UIEvent?) {
        if motion == .motionShake {
            onShake()
        } else {
            super.motionEnded(motion, with: event)
        }
    }
}
#endif

#Preview("Opened by three taps") {
    Text("Tap three times")
        .flagDebugMenu(PreviewFlags.manager(), openedBy: .taps(3), environments: PreviewFlags.environments)
}
#endif
