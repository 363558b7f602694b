import FeatureFlagsTesting
import Foundation
import Testing

@testable import FeatureFlags

/// The app context: read from a provider, fields left out on request, the app's own values
/// winning, and carried by every event's source.
struct AppContextTests {
    static let device = FixedAppContextProvider(
        AppContext(
            appVersion: "4.2.1", appBuild: "412", osName: "iOS", osVersion: "18.2.0", deviceClass: .phone, locale: "en_NZ"))

    @Test func everyFieldTheProviderReadsIsAnAttribute() {
        let context = AppContext(reading: Self.device)
        #expect(
            context.attributes == [
                "appVersion": "4.2.1", "appBuild": "412", "osName": "iOS", "osVersion": "18.2.0", "deviceClass": "phone",
                "locale": "en_NZ",
            ])
        #expect(Set(context.attributes.keys) == Set(AppContext.Field.allCases.map(\.rawValue)))
    }

    @Test func anUnknownValueIsLeftOut() {
        let context = AppContext(reading: FixedAppContextProvider(AppContext(osName: "Linux", deviceClass: .server)))
        #expect(context.attributes == ["osName": "Linux", "deviceClass": "server"])
        #expect(context.value(of: .appVersion) == nil)
    }

    @Test(arguments: AppContext.Field.allCases)
    func anExcludedFieldIsLeftOut(field: AppContext.Field) {
        let excluded = AppContext(reading: Self.device, excluding: [field])
        #expect(excluded.value(of: field) == nil)
        #expect(excluded.attributes[field.rawValue] == nil)
        #expect(excluded.attributes.count == AppContext.Field.allCases.count - 1)
        #expect(AppContext(reading: Self.device).excluding(field) == excluded)
        // A value set afterwards stays out too: the exclusion is the app's choice.
        let everything = AppContext(appVersion: "9", appBuild: "9", osName: "9", osVersion: "9", deviceClass: .tv, locale: "9")
        #expect(excluded.setting(everything).value(of: field) == nil)
    }

    @Test func theAppsOwnValuesWinOverTheProvidersAndTheRestIsRead() {
        let context = AppContext(reading: Self.device, setting: AppContext(appVersion: "5.0.0-beta.1", deviceClass: .pad))
        #expect(context.appVersion == "5.0.0-beta.1")
        #expect(context.deviceClass == .pad)
        #expect(context.appBuild == "412")
        #expect(context.locale == "en_NZ")
        #expect(context.attributes["appVersion"] == "5.0.0-beta.1")
        #expect(context.attributes["deviceClass"] == "pad")
    }

    @Test func theSystemProviderReadsThisProcess() {
        let context = SystemAppContextProvider().appContext()
        #expect(context.osName == FlagEventSource.currentPlatform)
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #expect(context.osVersion == "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)")
        #expect(context.locale == (Locale.current.identifier.isEmpty ? nil : Locale.current.identifier))
        #if os(Linux)
        #expect(context.deviceClass == .server)
        #elseif os(macOS)
        #expect(context.deviceClass == .mac)
        #endif
        #expect(AppContext.current == AppContext(reading: SystemAppContextProvider()))
    }

    // MARK: - Events

    @Test func anEventSourceCarriesTheAppContext() {
        let source = FlagEventSource(buildConfiguration: .release, appContext: AppContext(reading: Self.device))
        #expect(
            source
                == FlagEventSource(
                    appVersion: "4.2.1", buildConfiguration: "release", platform: "iOS", appBuild: "412", osVersion: "18.2.0",
                    deviceClass: "phone", locale: "en_NZ"))

        let optedOut = FlagEventSource(
            buildConfiguration: .debug, appContext: AppContext(reading: Self.device, excluding: [.locale, .appVersion, .osName]))
        #expect(optedOut.locale == nil)
        #expect(optedOut.appVersion == "")
        #expect(optedOut.platform == "")
        #expect(optedOut.appBuild == "412")

        let explicit = FlagEventSource(
            buildConfiguration: .release, appContext: AppContext(reading: Self.device, setting: AppContext(appVersion: "4.3")))
        #expect(explicit.appVersion == "4.3")
        #expect(FlagEventSource(buildConfiguration: .release).appVersion == AppContext.current.appVersion ?? "")
    }

    /// The fields are in the source's JSON (the batch's `source` object and the queue file), and
    /// a source written before they existed still reads.
    @Test func anEventSourceEncodesTheFieldsItHasAndReadsOldFiles() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let source = FlagEventSource(buildConfiguration: .release, appContext: AppContext(reading: Self.device, excluding: [.locale]))
        #expect(
            String(decoding: try encoder.encode(source), as: UTF8.self)
                == #"{"appBuild":"412","appVersion":"4.2.1","buildConfiguration":"release","deviceClass":"phone","osVersion":"18.2.0","platform":"iOS"}"#)
        let old = try JSONDecoder().decode(
            FlagEventSource.self, from: Data(#"{"appVersion":"4.1","buildConfiguration":"release","platform":"iOS"}"#.utf8))
        #expect(old == FlagEventSource(appVersion: "4.1", buildConfiguration: "release", platform: "iOS"))
        #expect(try JSONDecoder().decode(FlagEventSource.self, from: try encoder.encode(source)) == source)
    }

    @Test func exposuresSummariesAndTrackedEventsCarryTheAppContext() {
        let source = FlagEventSource(buildConfiguration: .release, appContext: AppContext(reading: Self.device))
        let recorder = FlagEventRecorder(.init(source: source, allowedAttributes: ["plan"]))
        let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: recorder))
        flags.engine.receiveRemoteValues(
            RemoteFlagValues(["right": RemoteFlagValue(true, variant: "on", reason: .split)], source: "ofrep", unit: "u1"))
        _ = flags.isEnabled(.right)
        flags.track("checkout", value: 1, attributes: ["plan": "pro"])
        let events = recorder.drain().events
        #expect(events.count == 3)
        for event in events {
            #expect(event.source == source)
            #expect(event.source.appVersion == "4.2.1")
            #expect(event.source.appBuild == "412")
            #expect(event.source.osVersion == "18.2.0")
            #expect(event.source.deviceClass == "phone")
            #expect(event.source.locale == "en_NZ")
            #expect(event.source.platform == "iOS")
        }
    }
}
