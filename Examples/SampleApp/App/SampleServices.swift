// What the sample app builds once at launch: the remote loader (OFREP from a local flag server,
// following its server-sent events), the flags over it, the event recorder and its delivery, and
// the publisher that shares the resolved flags with the widget through the App Group.
#if os(iOS)
import ExampleFlags
import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import FeatureFlagsSharing
import Foundation

/// The App Group the app and its widget share (the same one `Examples/ExampleWidget` reads).
let sampleAppGroup = "group.com.example.feature-flags"

/// The widget's kind (`FlagsWidget.kind` in `Examples/ExampleWidget/FlagsWidget.swift`, which the
/// widget extension compiles; the app target does not link the extension's code).
let sampleWidgetKind = "FlagsWidget"

/// The flag server and its client token, from the scheme's environment variables (Product ›
/// Scheme › Edit Scheme › Run › Arguments): `FLAG_SERVER_URL` (the simulator reaches the Mac's
/// loopback, so `http://127.0.0.1:8080` by default) and `FLAG_SERVER_CLIENT_TOKEN`.
struct SampleServerSettings: Sendable {
    var baseURL: URL
    var clientToken: String?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        baseURL = environment["FLAG_SERVER_URL"].flatMap { URL(string: $0) } ?? URL(string: "http://127.0.0.1:8080")!
        clientToken = environment["FLAG_SERVER_CLIENT_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `Authorization` for the server's delivery and ingestion endpoints.
    var headerFields: [String: String] {
        clientToken.map { ["Authorization": "Bearer \($0)"] } ?? [:]
    }
}

/// The app's flags and the services feeding them, built once.
@MainActor
final class SampleServices {
    let settings: SampleServerSettings
    let flags: FeatureFlagManager<AppFlag>
    let loader: RemoteConfigurationLoader
    let delivery: FlagEventDelivery
    let publisher: SharedFlagPublisher<AppFlag>?
    private var started = false
    private var tasks: [Task<Void, Never>] = []

    init(settings: SampleServerSettings = SampleServerSettings()) {
        self.settings = settings
        let bundle = Bundle.main
        let appVersion = bundle.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String ?? "1.0"
        let build = bundle.object(forInfoDictionaryKey: "CFBundleVersion") as? String ?? "1"
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
        let environment = AppEnvironment(
            .dev, baseURL: settings.baseURL, bundleIdentifier: bundle.bundleIdentifier ?? "com.example.feature-flags.sample",
            appVersion: appVersion, build: build)

        // One registry for the loader (which validates what the server sends) and the flags. A
        // registry that does not build is a mistake in AppFlag's declarations: it traps with a
        // message saying which flag and why.
        let registry: FlagRegistry
        do {
            registry = try FlagRegistry(AppFlag.self)
        } catch {
            fatalError("AppFlag's registry does not build: \(error)")
        }
        // OFREP bulk evaluation for this installation; the server's response advertises its
        // event stream, which the loader follows, so a change made in the console arrives within
        // about a second.
        loader = RemoteConfigurationLoader(
            configuration: .init(
                environment: environment,
                source: .ofrep(context: RemoteEvaluationContext(targetingKey: Self.installationID())),
                cacheDirectory: caches, headerFields: settings.headerFields),
            registry: registry)

        // Exposures (which variant this installation was served) and tracked events, sent to
        // the server's ingestion endpoint in batches.
        let recorder = FlagEventRecorder(.init(source: FlagEventSource(buildConfiguration: Self.buildConfiguration)))
        delivery = FlagEventDelivery(
            configuration: .init(
                endpoint: settings.baseURL.appendingPathComponent("ofrep/v1/ingestion"),
                headerFields: settings.headerFields,
                queueFile: caches.appendingPathComponent("flag-events.json"),
                flushInterval: 10),
            recorder: recorder)

        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(
                buildConfiguration: Self.buildConfiguration, overrideStore: UserDefaultsFlagStore(), remoteProvider: loader,
                remoteApplyPolicy: .immediately, eventRecorder: recorder),
            registry: registry)
        self.flags = flags

        publisher = SharedFlagsFile(appGroup: sampleAppGroup).map { SharedFlagPublisher(flags: flags, file: $0) }
    }

    /// Starts delivering events and publishing to the widget. Called once, from the first
    /// scene's `.task`. (The flags load the remote values themselves: the loader's cache at
    /// once, then a request; the scene's `.refreshesFeatureFlags(loader)` refreshes on return to
    /// the foreground.)
    func start() async {
        guard !started else { return }
        started = true
        await delivery.start()
        if let publisher {
            tasks.append(Task { await publisher.run() })
            tasks.append(publisher.reloadWidgetTimelines(ofKinds: [sampleWidgetKind]))
        }
    }

    /// How this app was compiled: the library cannot know (its own `#if DEBUG` describes the
    /// library's build), so the app says. Overrides and the debug menu work in debug builds.
    static var buildConfiguration: BuildConfiguration {
        #if DEBUG
        .debug
        #else
        .release
        #endif
    }

    /// A random identifier kept across launches: the unit percentage splits hash, so this
    /// installation stays in its experiment arm.
    private static func installationID(defaults: UserDefaults = .standard) -> String {
        let key = "sample.installationID"
        if let existing = defaults.string(forKey: key) { return existing }
        let created = UUID().uuidString
        defaults.set(created, forKey: key)
        return created
    }
}
#endif
